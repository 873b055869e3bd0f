package prompt_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/tools"
)

func TestSectionKeys(t *testing.T) {
	tests := []struct {
		title, key, want string
	}{
		{"Role", "", "role"},
		{"Response Format", "", "response-format"},
		{"  Tools & Files: v2.1  ", "", "tools-files-v2.1"},
		{"Résumé Notes", "", "r-sum-notes"},
		{"__init__ Step", "", "init__-step"},
		{"Anything", "custom.key_1", "custom.key_1"},
		{strings.Repeat("Long title ", 10), "", "long-title-long-title-long-title-long-title-long-title-long-titl"},
	}
	for _, tt := range tests {
		var opts []prompt.SectionOption
		if tt.key != "" {
			opts = append(opts, prompt.WithKey(tt.key))
		}
		s := prompt.Markdown[prompt.NoParams](tt.title, "body", opts...)
		require.NoError(t, s.Err(), tt.title)
		assert.Equal(t, tt.want, s.Key(), tt.title)
		assert.Equal(t, strings.TrimSpace(tt.title), s.Title())
	}
}

func TestSectionConstructionErrors(t *testing.T) {
	tests := []struct {
		name    string
		section *prompt.Section
		want    []string
	}{
		{"bad key", prompt.Markdown[prompt.NoParams]("Role", "x", prompt.WithKey("Role")),
			[]string{`prompt: section "Role": section key "Role" must contain only lower-case letters, digits, '.', '_' and '-', and start with a letter or digit`}},
		{"key starting with a dash", prompt.Markdown[prompt.NoParams]("Role", "x", prompt.WithKey("-role")),
			[]string{`section key "-role" must contain only`}},
		{"key too long", prompt.Markdown[prompt.NoParams]("Role", "x", prompt.WithKey(strings.Repeat("a", 65))),
			[]string{"must be 1 to 64 characters long"}},
		{"no key from title", prompt.Markdown[prompt.NoParams]("ÄÖÜ", "x"),
			[]string{`prompt: section "ÄÖÜ": no key can be derived from the title "ÄÖÜ"; give one with prompt.WithKey`}},
		{"empty title", prompt.Markdown[prompt.NoParams](" ", "x", prompt.WithKey("k")),
			[]string{`prompt: section "k": the title " " must be one non-empty line`}},
		{"two-line title", prompt.Markdown[prompt.NoParams]("a\nb", "x", prompt.WithKey("k")),
			[]string{`the title "a\nb" must be one non-empty line`}},
		{"params not a struct", prompt.Markdown[string]("Role", "x"),
			[]string{`prompt: section "role": params must be a struct type, got string; use prompt.NoParams for none`}},
		{"missing field", prompt.Markdown[Task]("Task", "Goal: {{.Gaol}}"),
			[]string{`prompt: section "task": the template refers to .Gaol, but prompt_test.Task has no field or method Gaol`}},
		{"missing field in range", prompt.Markdown[Task]("Task", "{{range .Steps}}{{.Title}}{{end}}"),
			[]string{`prompt: section "task": the template refers to .Title, but string has no field or method Title`}},
		{"missing field through $", prompt.Markdown[Task]("Task", "{{range .Steps}}{{$.Goal.Len}}{{end}}"),
			[]string{`the template refers to $.Goal.Len, but string has no field or method Len`}},
		{"missing field in with", prompt.Markdown[Files]("Files", "{{with .Paths}}{{.Count}}{{end}}"),
			[]string{`the template refers to .Count, but []string has no field or method Count`}},
		{"missing field in if", prompt.Markdown[Flags]("Flags", "{{if .Debug}}{{.Verbose}}{{end}}"),
			[]string{`the template refers to .Verbose, but prompt_test.Flags has no field or method Verbose`}},
		{"missing field as function argument", prompt.Markdown[Files]("Files", `{{printf "%v" .Pathz}}`),
			[]string{`the template refers to .Pathz`}},
		{"every missing field", prompt.Markdown[Task]("Task", "{{.A}} {{.B}}"),
			[]string{`prompt: section "task": the template refers to .A`, `prompt: section "task": the template refers to .B`}},
		{"does not parse", prompt.Markdown[Task]("Task", "{{.Goal"),
			[]string{`prompt: section "task": the template does not parse: template: task:1: unclosed action`}},
		{"fails with zero params", prompt.Markdown[Task]("Task", "{{index .Steps 0}}"),
			[]string{`prompt: section "task": the template fails with the zero prompt_test.Task: template: task:1:2: executing "task" at <index .Steps 0>: error calling index: reflect: slice index out of range`}},
		{"defaults of another type", prompt.Markdown[Task]("Task", "x", prompt.WithDefaults(Files{})),
			[]string{"WithDefaults got a prompt_test.Files, want the section's params type prompt_test.Task"}},
		{"predicate of another type", prompt.Markdown[Task]("Task", "x", prompt.WithEnabled(func(Files) bool { return true })),
			[]string{"WithEnabled got a func(prompt_test.Files) bool, want a func(prompt_test.Task) bool"}},
		{"tool construction error", prompt.Markdown[Task]("Task", "x", prompt.WithTool(tools.New("bad name", "d", func() tools.Handler[echoParams, string] { return nil }()))),
			[]string{`prompt: section "task": tools: tool name "bad name" may contain only`, `prompt: section "task": tools: tool "bad name" needs a handler`}},
		{"nil tool", prompt.Markdown[Task]("Task", "x", prompt.WithTools(nil)),
			[]string{"WithTools got a nil tool"}},
		{"nil child", prompt.Markdown[Task]("Task", "x", prompt.WithChildren(nil)),
			[]string{"WithChildren got a nil section"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.section.Err()
			require.Error(t, err)
			var se *prompt.SectionError
			require.ErrorAs(t, err, &se)
			for _, want := range tt.want {
				assert.Contains(t, err.Error(), want)
			}
			_, err = prompt.New("ns", "key", tt.section)
			require.Error(t, err, "New reports the section's errors")
			for _, want := range tt.want {
				assert.Contains(t, err.Error(), want)
			}
		})
	}
}

// Named has methods and nested fields that templates may use.
type Named struct {
	Name  string
	Inner struct{ Deep []struct{ Leaf string } }
	Attrs map[string]string
	Any   any
	Ptr   *Files
}

// Upper is a method templates can call.
func (n Named) Upper() string { return strings.ToUpper(n.Name) }

// Greeting is a pointer method templates can call.
func (n *Named) Greeting() string { return "hi " + n.Name }

func TestFieldChecksAcceptWhatTemplatesCanReach(t *testing.T) {
	for _, body := range []string{
		"{{.Name}} {{.Upper}} {{.Upper | printf \"%s\"}}",
		"{{range .Inner.Deep}}{{.Leaf}}{{end}}",
		"{{range $i, $d := .Inner.Deep}}{{$i}}{{$d.Leaf}}{{end}}",
		"{{.Attrs.anything}} {{with .Any}}{{.Whatever}}{{end}}",
		"{{with .Ptr}}{{.Paths}}{{.ReadOnly}}{{end}}",
		"{{if .Ptr}}{{.Ptr.ReadOnly}}{{end}}",
		"{{define \"x\"}}{{.Unknown}}{{end}}{{template \"x\" .Attrs}}",
		"{{range 3}}{{.}}{{end}} {{len .Name}} {{(.Inner).Deep}}",
		"{{- /* a comment */ -}}{{.Name}}",
	} {
		s := prompt.Markdown[Named]("Named", body)
		assert.NoError(t, s.Err(), body)
	}
}

func TestBodiesAreDedentedAndTrimmed(t *testing.T) {
	p := mustNew(t, "ns", "key", prompt.Markdown[prompt.NoParams]("Role", `

			You are careful.
			  - indented item
			Last line.   

	`))
	r, err := p.Render()
	require.NoError(t, err)
	assert.Equal(t, "## 1. Role\n\nYou are careful.\n  - indented item\nLast line.", r.Text)
}

func TestSectionErrorIsMatchedWithErrorsAs(t *testing.T) {
	err := prompt.Markdown[Task]("Task", "{{.Nope}}").Err()
	var se *prompt.SectionError
	require.True(t, errors.As(err, &se))
	assert.Equal(t, "task", se.Section)
	assert.EqualError(t, se, `prompt: section "task": the template refers to .Nope, but prompt_test.Task has no field or method Nope`)
	assert.EqualError(t, errors.Unwrap(se), "the template refers to .Nope, but prompt_test.Task has no field or method Nope")
}
