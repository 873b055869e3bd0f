// Package prompt composes the text and tools an agent is given from
// sections written in Go code, renders them with typed params, and reads
// structured output back.
//
// A section is built with Markdown: a title, a text/template body, and a
// params struct type of its own. Sections nest, carry tools, and can be
// switched on and off by a predicate over their params. New assembles
// top-level sections into a Prompt named by a namespace and a key:
//
//	p, err := prompt.New("docs", "review",
//		prompt.Markdown[prompt.NoParams]("Role", "You review documentation."),
//		prompt.Markdown[Files]("Files", `
//			Review these files:
//			{{range .Paths}}- {{.}}
//			{{end}}`,
//			prompt.WithTool(tools.New("read_file", "Read a file.", readFile)),
//		),
//		prompt.WithOutput[Review](),
//	)
//
// Render matches params values to sections by Go type and produces a
// Rendered: numbered Markdown text (## 1. Role, ## 2. Files, ### 2.1. …),
// the toolset of the enabled sections, and the structured-output
// declaration. ParseOutput reads the model's answer into the output type.
//
// Construction problems are errors, never panics: Markdown records them in
// the section and New returns all of them joined, so sections can be
// written inline. Rendering problems are *ValidationError (params) and
// *RenderError (templates) values; parsing problems are *OutputError.
//
// A Registry holds prompts by (namespace, key) for lookups by name, and an
// OverrideStore (such as FileStore) lets section bodies and tool
// descriptions be replaced without a rebuild, for as long as the hashes in
// the prompt's Descriptor show the original has not changed.
package prompt
