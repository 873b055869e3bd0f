package prompt_test

import (
	"context"
	"fmt"

	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/tools"
)

// ReviewParams are the params of the review section.
type ReviewParams struct {
	Paths  []string `validate:"min=1"`
	Strict bool
}

// ReadParams are the arguments of the read_file tool.
type ReadParams struct {
	Path string `json:"path" validate:"required"`
}

// Composing a prompt from sections: each section has its own params type,
// nested sections are numbered below their parent, a disabled section
// disappears with its tools, and the rendered toolset holds the tools of
// the enabled sections.
func Example_composeSections() {
	readFile := func(_ context.Context, _ *tools.Invocation, p ReadParams) (tools.Result[string], error) {
		return tools.OK("", "contents of "+p.Path), nil
	}
	p, err := prompt.New("docs", "review",
		prompt.Markdown[prompt.NoParams]("Role", `
			You review documentation changes.
			Be specific and kind.`),
		prompt.Markdown[ReviewParams]("Files", `
			Review these files:
			{{range .Paths}}- {{.}}
			{{end}}`,
			prompt.WithTool(tools.New("read_file", "Read a file of the change.", readFile)),
			prompt.WithChildren(
				prompt.Markdown[ReviewParams]("Strict Mode", "Flag every typo.",
					prompt.WithEnabled(func(p ReviewParams) bool { return p.Strict })),
				prompt.Markdown[prompt.NoParams]("Tone", "Explain each finding in one sentence."),
			),
		),
	)
	if err != nil {
		fmt.Println(err)
		return
	}
	r, err := p.Render(ReviewParams{Paths: []string{"README.md", "docs/guide.md"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.Text)
	fmt.Println("tools:", r.Tools.Names())
	// Output:
	// ## 1. Role
	//
	// You review documentation changes.
	// Be specific and kind.
	//
	// ## 2. Files
	//
	// Review these files:
	// - README.md
	// - docs/guide.md
	//
	// ### 2.1. Tone
	//
	// Explain each finding in one sentence.
	// tools: [read_file]
}

// Finding is one item of the structured output.
type Finding struct {
	File    string `json:"file" validate:"required"`
	Line    int    `json:"line" validate:"min=1"`
	Comment string `json:"comment" validate:"required"`
}

// Parsing structured output: the prompt declares its output type, the
// rendered text tells the model the format, and ParseOutput reads the
// answer, reporting mistakes with their JSON path.
func ExampleParseOutput() {
	p, err := prompt.New("docs", "findings",
		prompt.Markdown[prompt.NoParams]("Role", "List the problems you find."),
		prompt.WithOutput[[]Finding](),
	)
	if err != nil {
		fmt.Println(err)
		return
	}
	r, err := p.Render()
	if err != nil {
		fmt.Println(err)
		return
	}
	answer := "Here is what I found:\n```json\n" +
		`[{"file": "README.md", "line": 3, "comment": "Typo in the title."}]` +
		"\n```"
	findings, err := prompt.ParseOutput[[]Finding](answer, r)
	fmt.Printf("%+v %v\n", findings, err)

	_, err = prompt.ParseOutput[[]Finding](`{"items": [{"file": "a.md", "line": 0, "comment": "x"}]}`, r)
	fmt.Println(err)
	_, err = prompt.ParseOutput[[]Finding](`[{"file": "a.md", "line": 2, "comment": "x", "severity": "high"}]`, r)
	fmt.Println(err)
	// Output:
	// [{File:README.md Line:3 Comment:Typo in the title.}] <nil>
	// prompt: structured output: items[0].line: must be at least 1
	// prompt: structured output: [0].severity: unknown field; allowed: file, line, comment
}
