package prompt

// What the package keeps to itself, for its external tests.
type (
	SectionError = sectionError
	LookupError  = lookupError
)

const ResponseFormatTitle = responseFormatTitle

// SectionList returns the descriptor's section hashes, depth first (not a
// copy).
func (d Descriptor) SectionList() []hashedSection { return d.sections }

// ToolList returns the descriptor's tool hashes, in section order (not a
// copy).
func (d Descriptor) ToolList() []hashedTool { return d.tools }
