package prompt_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/offshoot-dev/offshoot/prompt"
)

// FuzzParseOutput feeds arbitrary model answers to ParseOutput, for object
// and array outputs, strict and lenient: it must never panic, and every
// failure must be an *OutputError.
func FuzzParseOutput(f *testing.F) {
	for _, seed := range []string{
		`{"approve":true,"reasons":[{"line":3,"title":"typo"}]}`,
		"```json\n[{\"line\":1,\"title\":\"a\"}]\n```",
		`{"items":[{"line":1,"title":"a"}]}`,
		`prose {"approve": false, "reasons": []} more {`,
		`[{"line": "x"}]`,
		"",
		"{[}]",
	} {
		f.Add(seed)
	}
	obj := renderWith(f, prompt.WithOutput[Verdict]())
	arr := renderWith(f, prompt.WithOutput[[]Issue]())
	lenient := renderWith(f, prompt.WithOutput[Verdict](), prompt.AllowExtraKeys())
	lenientArr := renderWith(f, prompt.WithOutput[[]Issue](), prompt.AllowExtraKeys())
	f.Fuzz(func(t *testing.T, text string) {
		check := func(err error) {
			var oe *prompt.OutputError
			if err != nil && !errors.As(err, &oe) {
				t.Fatalf("ParseOutput(%q) returned an untyped error: %v", text, err)
			}
		}
		_, err := prompt.ParseOutput[Verdict](text, obj)
		check(err)
		_, err = prompt.ParseOutput[Verdict](text, lenient)
		check(err)
		_, err = prompt.ParseOutput[[]Issue](text, arr)
		check(err)
		_, err = prompt.ParseOutput[[]Issue](text, lenientArr)
		check(err)
	})
}

// FuzzRender renders prompts with arbitrary params, and arbitrary template
// bodies over them: nothing may panic, and every failure must be a
// *ValidationError or a *RenderError (a *SectionError for bodies that do
// not build).
func FuzzRender(f *testing.F) {
	f.Add("review the docs", "read comment", "a.md b.md", true, false, "Goal: {{.Goal}}")
	f.Add("", "", "", false, true, "{{.Fail}}")
	f.Add(strings.Repeat("x", 50), "é", "é ü", false, false, "{{if .Debug}}{{.Fail}}{{end}}")
	f.Add("g", "s", "p", true, true, "{{with .Goal}}{{.}}{{end}} {{printf \"%d\" 3}}")
	f.Add("g", "s", "p", false, false, "{{.Nope}}")
	f.Add("g", "s", "p", false, false, "{{index .Steps 5}}")

	fixed := mustNew(f, "fuzz", "render",
		prompt.Markdown[Task]("Task", "Goal: {{.Goal}}\n{{range .Steps}}- {{.}}\n{{end}}"),
		prompt.Markdown[Flags]("Flags", "status: {{.Fail}}", prompt.WithEnabled(func(fl Flags) bool { return fl.Debug })),
		prompt.Markdown[Files]("Files", "{{range $i, $p := .Paths}}{{$i}}={{$p}} {{end}}"),
	)
	f.Fuzz(func(t *testing.T, goal, steps, paths string, debug, boom bool, body string) {
		params := []any{
			Task{Goal: goal, Steps: strings.Fields(steps)},
			Flags{Debug: debug, Boom: boom},
			Files{Paths: strings.Fields(paths)},
		}
		checkRender(t, fixed, params)

		if len(body) > 200 || strings.Contains(body, "range") || strings.Contains(body, "template") ||
			strings.Contains(body, "define") || strings.Contains(body, "block") {
			return // bodies that loop or recurse are out of scope
		}
		s := prompt.Markdown[Task]("Fuzzed", body, prompt.WithChildren(prompt.Markdown[Flags]("Child", body)))
		p, err := prompt.New("fuzz", "body", s)
		if err != nil {
			var se *prompt.SectionError
			if !errors.As(err, &se) {
				t.Fatalf("New returned an untyped error: %v", err)
			}
			return
		}
		checkRender(t, p, params[:2])
	})
}

func checkRender(t *testing.T, p *prompt.Prompt, params []any) {
	t.Helper()
	r, err := p.Render(params...)
	if err == nil {
		if r == nil || r.Text == "" {
			t.Fatal("Render returned no text and no error")
		}
		return
	}
	var (
		ve *prompt.ValidationError
		re *prompt.RenderError
	)
	if !errors.As(err, &ve) && !errors.As(err, &re) {
		t.Fatalf("Render returned an untyped error: %v", err)
	}
}
