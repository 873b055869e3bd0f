package prompt_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/tools"
)

// BenchmarkRender renders a prompt of 20 sections (5 top-level, each with
// 3 children) and 10 tools, with two params values.
func BenchmarkRender(b *testing.B) {
	var parts []prompt.Part
	toolN := 0
	for i := range 5 {
		var children []*prompt.Section
		for j := range 3 {
			var opts []prompt.SectionOption
			if j < 2 && toolN < 10 {
				tl, err := tools.New(fmt.Sprintf("tool_%d", toolN), "A benchmark tool.",
					func(context.Context, *tools.Invocation, echoParams) (tools.Result[string], error) {
						return tools.Result[string]{}, nil
					})
				if err != nil {
					b.Fatal(err)
				}
				opts = append(opts, prompt.WithTools(tl))
				toolN++
			}
			children = append(children, prompt.Markdown[Files](fmt.Sprintf("Child %d", j), `
				Work on these files, reading each before changing it:
				{{range .Paths}}- {{.}}
				{{end}}{{if .ReadOnly}}Do not write.{{end}}`, opts...))
		}
		parts = append(parts, prompt.Markdown[Task](fmt.Sprintf("Section %d", i), `
			Your goal: {{.Goal}}.
			Keep the answer short, cite files by path, and stop when done.`,
			prompt.WithChildren(children...)))
	}
	p := mustNew(b, "bench", "render", parts...)
	task := Task{Goal: "review the change"}
	files := Files{Paths: []string{"a.md", "b.md", "c.md"}}
	r, err := p.Render(task, files)
	if err != nil {
		b.Fatal(err)
	}
	if r.Tools.Len() != 10 || strings.Count(r.Text, "\n## ")+strings.Count(r.Text, "\n### ")+1 != 20 {
		b.Fatalf("unexpected prompt: %d tools\n%s", r.Tools.Len(), r.Text)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.Render(task, files); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseOutput parses a 10 KB answer: prose around a fenced JSON
// array of findings.
func BenchmarkParseOutput(b *testing.B) {
	r := renderWith(b, prompt.WithOutput[[]Issue]())
	var sb strings.Builder
	sb.WriteString("I reviewed every file. Here are the issues I found:\n\n```json\n[")
	for i := 0; sb.Len() < 10_000-200; i++ {
		if i > 0 {
			sb.WriteString(",")
		}
		fmt.Fprintf(&sb, `{"line": %d, "title": "The sentence on this line is unclear; rephrase it."}`, i+1)
	}
	sb.WriteString("]\n```\n\nLet me know if you want me to fix them.")
	text := sb.String()
	if _, err := prompt.ParseOutput[[]Issue](text, r); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := prompt.ParseOutput[[]Issue](text, r); err != nil {
			b.Fatal(err)
		}
	}
}
