package prompt_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/serde"
	"github.com/offshoot-dev/offshoot/tools"
)

// nested is a prompt with children, grandchildren and a disabled section
// in the middle of each level (when Flags.Debug is false).
func nested(t testing.TB) *prompt.Prompt {
	t.Helper()
	return mustNew(t, "docs", "nested",
		prompt.Markdown[prompt.NoParams]("Role", "You are a careful reviewer.",
			prompt.WithTools(tool(t, "role_tool")),
			prompt.WithChildren(
				prompt.Markdown[Task]("Goal", "Goal: {{.Goal}}"),
				prompt.Markdown[Flags]("Debugging", "Debug mode is on.",
					prompt.WithEnabled(func(f Flags) bool { return f.Debug }),
					prompt.WithTools(tool(t, "debug_tool")),
					prompt.WithChildren(prompt.Markdown[prompt.NoParams]("Debug Child", "never shown", prompt.WithTools(tool(t, "debug_child_tool")))),
				),
				prompt.Markdown[Task]("Steps", `
					{{range .Steps}}- {{.}}
					{{end}}`),
			),
		),
		prompt.Markdown[Flags]("Hidden", "Hidden section.",
			prompt.WithEnabled(func(f Flags) bool { return f.Debug }),
			prompt.WithTools(tool(t, "hidden_tool")),
		),
		prompt.Markdown[Files]("Files", `
			{{if .ReadOnly}}Do not change files.{{else}}You may change files.{{end}}`,
			prompt.WithTools(tool(t, "ls")),
			prompt.WithChildren(
				prompt.Markdown[Files]("Paths", `{{range .Paths}}{{.}} {{end}}`,
					prompt.WithChildren(prompt.Markdown[prompt.NoParams]("Deeper", "Deepest body.", prompt.WithTools(tool(t, "deep_tool")))),
				),
				prompt.Markdown[prompt.NoParams]("Empty Body", "{{/* nothing */}}"),
			),
		),
	)
}

func TestRenderNumbersEnabledSectionsDepthFirst(t *testing.T) {
	p := nested(t)
	r, err := p.Render(Files{Paths: []string{"a.md", "b.md"}}, Task{Goal: "review", Steps: []string{"read", "comment"}})
	require.NoError(t, err)
	const want = "## 1. Role\n" +
		"\n" +
		"You are a careful reviewer.\n" +
		"\n" +
		"### 1.1. Goal\n" +
		"\n" +
		"Goal: review\n" +
		"\n" +
		"### 1.2. Steps\n" +
		"\n" +
		"- read\n" +
		"- comment\n" +
		"\n" +
		"## 2. Files\n" +
		"\n" +
		"You may change files.\n" +
		"\n" +
		"### 2.1. Paths\n" +
		"\n" +
		"a.md b.md\n" +
		"\n" +
		"#### 2.1.1. Deeper\n" +
		"\n" +
		"Deepest body.\n" +
		"\n" +
		"### 2.2. Empty Body"
	assert.Equal(t, want, r.Text)
	assert.Equal(t, []string{"role_tool", "ls", "deep_tool"}, r.Tools.Names(), "disabled sections contribute no tools, not even their children's")
	assert.Equal(t, "docs", r.NS)
	assert.Equal(t, "nested", r.Key)
	assert.Nil(t, r.Output)
	assert.Nil(t, r.Overrides)

	r, err = p.Render(Flags{Debug: true}, Task{Goal: "g"}, Files{ReadOnly: true})
	require.NoError(t, err)
	assert.Equal(t, "## 1. Role\n\nYou are a careful reviewer.\n\n"+
		"### 1.1. Goal\n\nGoal: g\n\n"+
		"### 1.2. Debugging\n\nDebug mode is on.\n\n"+
		"#### 1.2.1. Debug Child\n\nnever shown\n\n"+
		"### 1.3. Steps\n\n"+
		"## 2. Hidden\n\nHidden section.\n\n"+
		"## 3. Files\n\nDo not change files.\n\n"+
		"### 3.1. Paths\n\n"+
		"#### 3.1.1. Deeper\n\nDeepest body.\n\n"+
		"### 3.2. Empty Body", r.Text)
	assert.Equal(t, []string{"role_tool", "debug_tool", "debug_child_tool", "hidden_tool", "ls", "deep_tool"}, r.Tools.Names())
}

func TestRenderMatchesParamsByType(t *testing.T) {
	p := mustNew(t, "ns", "key",
		prompt.Markdown[Task]("Task", "{{.Goal}}", prompt.WithDefaults(Task{Goal: "default goal"})),
		prompt.Markdown[Files]("Files", "{{len .Paths}} {{.ReadOnly}}"),
		prompt.Markdown[Task]("Task again", "again {{.Goal}}", prompt.WithDefaults(Task{Goal: "other default"})),
	)
	tests := []struct {
		name   string
		params []any
		want   string
	}{
		{"defaults and zero values", nil, "## 1. Task\n\ndefault goal\n\n## 2. Files\n\n0 false\n\n## 3. Task again\n\nagain other default"},
		{"one order", []any{Task{Goal: "g"}, Files{Paths: []string{"x"}}}, "## 1. Task\n\ng\n\n## 2. Files\n\n1 false\n\n## 3. Task again\n\nagain g"},
		{"other order", []any{Files{Paths: []string{"x"}}, Task{Goal: "g"}}, "## 1. Task\n\ng\n\n## 2. Files\n\n1 false\n\n## 3. Task again\n\nagain g"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := p.Render(tt.params...)
			require.NoError(t, err)
			assert.Equal(t, tt.want, r.Text)
		})
	}
}

func TestRenderRejectsBadParams(t *testing.T) {
	p := mustNew(t, "ns", "key",
		prompt.Markdown[Task]("Task", "{{.Goal}}", prompt.WithDefaults(Task{Goal: "g"})),
		prompt.Markdown[Files]("Files", "x", prompt.WithChildren(prompt.Markdown[Files]("Inner", "y"))),
	)
	tests := []struct {
		name    string
		params  []any
		msg     string
		section string
		field   string
		serde   bool
	}{
		{"unused type", []any{Flags{}}, "prompt: no section of ns/key takes params of type prompt_test.Flags; its sections take: prompt_test.Task, prompt_test.Files", "", "", false},
		{"two of one type", []any{Task{Goal: "a"}, Files{}, Task{Goal: "b"}}, "prompt: two params values of type prompt_test.Task; pass one value per type", "", "", false},
		{"not a struct", []any{"goal"}, "prompt: params value 0 is a string, not a struct", "", "", false},
		{"pointer", []any{&Task{Goal: "g"}}, "prompt: params value 0 is a *prompt_test.Task, not a struct; pass the struct value, not a pointer to it", "", "", false},
		{"nil", []any{Task{Goal: "g"}, nil}, "prompt: params value 1 is nil; pass a struct value of one of: prompt_test.Task, prompt_test.Files", "", "", false},
		{"failed validate tag", []any{Task{}}, `prompt: section "task": invalid params: goal: is required`, "task", "goal", true},
		{"failed dive", []any{Files{Paths: []string{"ok", "é"}}}, `prompt: section "files": invalid params: paths[1]: must be ASCII`, "files", "paths[1]", true},
		{"too long", []any{Task{Goal: strings.Repeat("x", 41)}}, `prompt: section "task": invalid params: goal: must be at most 40 characters`, "task", "goal", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := p.Render(tt.params...)
			require.Error(t, err)
			assert.Nil(t, r)
			var ve *prompt.ValidationError
			require.ErrorAs(t, err, &ve)
			assert.Equal(t, tt.msg, ve.Error())
			assert.Equal(t, tt.section, ve.Section)
			assert.Equal(t, tt.field, ve.Field)
			var se *serde.ValidationError
			assert.Equal(t, tt.serde, errors.As(err, &se))
		})
	}
}

func TestRenderReportsEveryFailingField(t *testing.T) {
	p := mustNew(t, "ns", "key", prompt.Markdown[Files]("Files", "x"))
	_, err := p.Render(Files{Paths: []string{"é", "b", "ü"}})
	require.Error(t, err)
	assert.Equal(t, `prompt: section "files": invalid params: paths[0]: must be ASCII`+"\n"+
		`prompt: section "files": invalid params: paths[2]: must be ASCII`, err.Error())
	var ve *prompt.ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, "paths[0]", ve.Field)
}

func TestDisabledSectionsAreNotValidated(t *testing.T) {
	p := mustNew(t, "ns", "key",
		prompt.Markdown[prompt.NoParams]("Always", "x"),
		prompt.Markdown[Task]("Task", "{{.Goal}}", prompt.WithEnabled(func(t Task) bool { return len(t.Steps) > 0 })),
	)
	r, err := p.Render()
	require.NoError(t, err, "the zero Task fails validation, but its section is disabled")
	assert.Equal(t, "## 1. Always\n\nx", r.Text)
}

func TestRenderErrorNamesTheSectionPath(t *testing.T) {
	p := mustNew(t, "ns", "key",
		prompt.Markdown[prompt.NoParams]("Outer", "x", prompt.WithChildren(
			prompt.Markdown[Flags]("Inner", "status: {{.Fail}}"),
		)),
	)
	r, err := p.Render(Flags{})
	require.NoError(t, err)
	assert.Equal(t, "## 1. Outer\n\nx\n\n### 1.1. Inner\n\nstatus: fine", r.Text)

	_, err = p.Render(Flags{Boom: true})
	var re *prompt.RenderError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, "outer/inner", re.Section)
	assert.EqualError(t, err, `prompt: rendering section "outer/inner": template: inner:1:10: executing "inner" at <.Fail>: error calling Fail: boom`)

	panicky := mustNew(t, "ns", "key", prompt.Markdown[Flags]("P", "x", prompt.WithEnabled(func(f Flags) bool {
		if f.Boom {
			panic("predicate exploded")
		}
		return true
	})))
	_, err = panicky.Render(Flags{Boom: true})
	require.ErrorAs(t, err, &re)
	assert.EqualError(t, err, `prompt: rendering section "p": the enabled predicate panicked: predicate exploded`)
}

func TestDescriptorHashesTemplatesAndToolContracts(t *testing.T) {
	p := nested(t)
	r, err := p.Render(Task{Goal: "g"})
	require.NoError(t, err)
	d := r.Descriptor
	assert.Equal(t, "docs", d.NS)
	assert.Equal(t, "nested", d.Key)
	var paths []string
	for _, s := range d.SectionList() {
		paths = append(paths, s.Path)
		assert.Len(t, s.Hash, 64)
	}
	assert.Equal(t, []string{"role", "role/goal", "role/debugging", "role/debugging/debug-child", "role/steps", "hidden", "files", "files/paths", "files/paths/deeper", "files/empty-body"}, paths, "every section, enabled or not")
	sum := sha256.Sum256([]byte("Goal: {{.Goal}}"))
	h, ok := d.SectionHash("role/goal")
	require.True(t, ok)
	assert.Equal(t, hex.EncodeToString(sum[:]), h)
	sum = sha256.Sum256([]byte("{{range .Steps}}- {{.}}\n{{end}}"))
	h, _ = d.SectionHash("role/steps")
	assert.Equal(t, hex.EncodeToString(sum[:]), h, "the hash is of the dedented body")

	var names []string
	for _, th := range d.ToolList() {
		names = append(names, th.Name)
	}
	assert.Equal(t, []string{"role_tool", "debug_tool", "debug_child_tool", "hidden_tool", "ls", "deep_tool"}, names)
	ls, _ := r.Tools.Lookup("ls")
	hs := sha256.New()
	for _, part := range [][]byte{[]byte(ls.Spec().Name), []byte(ls.Spec().Description), ls.Spec().Params, ls.Spec().Result} {
		hs.Write(part)
		hs.Write([]byte{0})
	}
	h, ok = d.ToolHash("ls")
	require.True(t, ok)
	assert.Equal(t, hex.EncodeToString(hs.Sum(nil)), h)
	_, ok = d.ToolHash("nope")
	assert.False(t, ok)

	other := mustNew(t, "docs", "nested", prompt.Markdown[Task]("Goal", "Goal: {{.Goal}}!"))
	h2, _ := other.Descriptor().SectionHash("goal")
	assert.NotEqual(t, h, h2)

	r.Descriptor.SectionList()[0].Hash = "changed"
	again, _ := p.Render(Task{Goal: "g"})
	assert.NotEqual(t, "changed", again.Descriptor.SectionList()[0].Hash, "each Rendered has its own copy")
}

func TestConcurrentRenders(t *testing.T) {
	p := nested(t)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			r, err := p.Render(Flags{Debug: i%2 == 0}, Task{Goal: "g"})
			if assert.NoError(t, err) {
				assert.Contains(t, r.Text, "Goal: g")
			}
		})
	}
	wg.Wait()
}

// A section without a heading shows its body alone, where it stands,
// takes no number, and still offers its tools; the sections around it are
// numbered as if it were not there.
func TestASectionWithoutAHeading(t *testing.T) {
	body := func() *prompt.Section {
		return prompt.Markdown[Task]("Preamble", "You review {{.Goal}}.", prompt.WithoutHeading(), prompt.WithTools(tool(t, "pre_tool")))
	}
	tests := []struct {
		name  string
		parts []prompt.Part
		want  string
	}{
		{"first", []prompt.Part{body(), prompt.Markdown[prompt.NoParams]("Rules", "Be brief.")},
			"You review the docs.\n\n## 1. Rules\n\nBe brief."},
		{"between", []prompt.Part{prompt.Markdown[prompt.NoParams]("Rules", "Be brief."), body(), prompt.Markdown[Flags]("More", "More.")},
			"## 1. Rules\n\nBe brief.\n\nYou review the docs.\n\n## 2. More\n\nMore."},
		{"alone", []prompt.Part{body()}, "You review the docs."},
		{"with output", []prompt.Part{body(), prompt.WithOutput[Verdict]()}, "You review the docs.\n\n## 1. " + prompt.ResponseFormatTitle},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := mustNew(t, "docs", "plain", tt.parts...).Render(Task{Goal: "the docs"})
			require.NoError(t, err)
			assert.True(t, strings.HasPrefix(r.Text, tt.want), r.Text)
			if tt.name != "with output" {
				assert.Equal(t, tt.want, r.Text)
			}
			_, ok := r.Tools.Lookup("pre_tool")
			assert.True(t, ok)
		})
	}
}

// A section without a heading cannot have children: they would have no
// heading to be numbered under.
func TestASectionWithoutAHeadingHasNoChildren(t *testing.T) {
	_, err := prompt.New("docs", "plain", prompt.Markdown[prompt.NoParams]("Preamble", "Hello.", prompt.WithoutHeading(),
		prompt.WithChildren(prompt.Markdown[prompt.NoParams]("Child", "Hi."))))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "a section without a heading cannot have children")
}

// A descriptor's Hash changes with any section's template or tool
// contract, and not otherwise.
func TestDescriptorHashCoversTheWholeContract(t *testing.T) {
	build := func(body string, tool string) string {
		t.Helper()
		var parts []prompt.Part
		sec := []prompt.SectionOption{}
		if tool != "" {
			tl, err := tools.New(tool, "A tool.", func(context.Context, *tools.Invocation, struct{}) (tools.Result[string], error) {
				return tools.OK("ok", ""), nil
			})
			require.NoError(t, err)
			sec = append(sec, prompt.WithTools(tl))
		}
		parts = append(parts, prompt.Markdown[prompt.NoParams]("Task", body, sec...))
		p, err := prompt.New("test", "hash", parts...)
		require.NoError(t, err)
		return p.Descriptor().Hash()
	}
	base := build("Do it.", "")
	for _, tc := range []struct {
		name       string
		hash       string
		sameAsBase bool
	}{
		{"built again", build("Do it.", ""), true},
		{"another template", build("Do it well.", ""), false},
		{"a tool more", build("Do it.", "look"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.sameAsBase, tc.hash == base)
			assert.Len(t, tc.hash, 64)
		})
	}
}
