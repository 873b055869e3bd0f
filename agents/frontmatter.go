package agents

import (
	"fmt"

	"go.yaml.in/yaml/v3"

	"github.com/offshoot-dev/offshoot/internal/frontmatter"
)

// maxFrontmatter is the largest frontmatter read, in bytes. Real ones,
// long descriptions with examples included, stay well under it.
const maxFrontmatter = 64 << 10

// document is an agent file split into its frontmatter and its body.
type document struct {
	// front holds the frontmatter lines, without the fences, dedented by
	// their common indentation; frontLine is the file line of front[0].
	front     []string
	frontLine int
	// body is the text after the closing fence, trimmed.
	body string
}

// splitError says why a file could not be split.
type splitError struct {
	line    int
	message string
	// notAgent is set when the file has no frontmatter at all: it is most
	// likely not an agent definition (a README beside the agents).
	notAgent bool
}

// normalize returns text with a leading byte order mark removed, CRLF and
// lone CR line ends turned into LF, and invalid UTF-8 replaced; changed
// reports the replacement.
func normalize(data []byte) (text string, invalidUTF8 bool) {
	return frontmatter.Normalize(data)
}

// split finds the frontmatter of text (normalized), as frontmatter.Split
// does, and says what is wrong in words about agent files. A file whose
// fence comes after blank lines or indented is skipped with a warning
// saying why: Claude Code would not read its frontmatter either.
func split(text string) (document, *splitError) {
	doc, problem, line, size := frontmatter.Split(text, maxFrontmatter)
	switch problem {
	case frontmatter.Missing:
		return document{}, &splitError{notAgent: true, line: line,
			message: "no frontmatter: an agent file starts with a line ---, then name: and description:, then a line ---, then the agent's instructions"}
	case frontmatter.NotFirst:
		return document{}, &splitError{notAgent: true, line: line,
			message: "the frontmatter does not begin on the first line (blank lines or indentation come before its ---), so Claude Code would not read it either: " +
				"start the file with the line --- to make it an agent"}
	case frontmatter.Unclosed:
		return document{}, &splitError{line: line,
			message: "the frontmatter opened here is never closed: add a line --- after its last key, before the agent's instructions"}
	case frontmatter.TooLarge:
		return document{}, &splitError{line: line,
			message: fmt.Sprintf("the frontmatter is %d bytes long; keep it under %d and put the agent's instructions below the closing ---", size, maxFrontmatter)}
	}
	return document{front: doc.Front, frontLine: doc.FrontLine, body: doc.Body}, nil
}

// parseFront reads frontmatter lines whose first is file line firstLine
// into a mapping node carrying file line numbers: as YAML, or leniently
// when they are not valid YAML (strictErr is then the reason), keeping
// the keys this package reads.
func parseFront(lines []string, firstLine int) (m *yaml.Node, strictErr error, ignored []int) {
	return frontmatter.Parse(lines, firstLine, func(key string) bool {
		_, ok := fieldOf(key)
		return ok
	})
}

// yamlProblem returns the message of a YAML error and the file line it
// names (see frontmatter.YAMLProblem).
func yamlProblem(err error, firstLine int) (line int, msg string) {
	return frontmatter.YAMLProblem(err, firstLine)
}
