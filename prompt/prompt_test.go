package prompt_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/prompt"
)

func TestNewChecksNamesAndJoinsEveryError(t *testing.T) {
	_, err := prompt.New("Docs", "re view",
		prompt.Markdown[Task]("Task", "{{.Nope}}"),
		prompt.Markdown[prompt.NoParams]("Outer", "x", prompt.WithChildren(
			prompt.Markdown[Files]("Inner", "{{.Missing}}"),
		)),
		nil,
	)
	require.Error(t, err)
	for _, want := range []string{
		`prompt: namespace "Docs" must contain only lower-case letters`,
		`prompt: prompt key "re view" must contain only lower-case letters`,
		`prompt: section "task": the template refers to .Nope`,
		`prompt: section "inner": the template refers to .Missing`,
		`prompt: part 2 is nil`,
	} {
		assert.Contains(t, err.Error(), want)
	}
	var se *prompt.SectionError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, "task", se.Section)
}

func TestNewRejectsDuplicateToolsNamingBothSections(t *testing.T) {
	ls := tool(t, "ls")
	_, err := prompt.New("ns", "key",
		prompt.Markdown[prompt.NoParams]("Files", "x", prompt.WithTools(ls), prompt.WithChildren(
			prompt.Markdown[prompt.NoParams]("Nested", "y"),
		)),
		prompt.Markdown[prompt.NoParams]("Other", "z", prompt.WithChildren(
			prompt.Markdown[prompt.NoParams]("Deep", "w", prompt.WithTools(tool(t, "ls"))),
		)),
	)
	require.EqualError(t, err, `prompt: tool "ls" is declared by sections "files" and "other/deep"; tool names must be unique in a prompt`)

	_, err = prompt.New("ns", "key", prompt.Markdown[prompt.NoParams]("Files", "x", prompt.WithTools(ls, ls)))
	require.EqualError(t, err, `prompt: section "files" declares tool "ls" twice`)
}

func TestNewRejectsSiblingsWithOneKey(t *testing.T) {
	_, err := prompt.New("ns", "key",
		prompt.Markdown[prompt.NoParams]("Notes", "a"),
		prompt.Markdown[prompt.NoParams]("Other", "b", prompt.WithChildren(
			prompt.Markdown[prompt.NoParams]("Notes", "c"),
			prompt.Markdown[prompt.NoParams]("More notes", "d", prompt.WithKey("notes")),
		)),
	)
	require.EqualError(t, err, `prompt: two sections have the path "other/notes"; give one a different key with prompt.WithKey`)
}

func TestPromptAccessors(t *testing.T) {
	p := mustNew(t, "docs", "review",
		prompt.Markdown[Task]("Task", "{{.Goal}}", prompt.WithChildren(prompt.Markdown[Files]("Files", "x"))),
		prompt.Markdown[Task]("Again", "{{.Goal}}"),
		prompt.Markdown[prompt.NoParams]("Plain", "x"),
	)
	assert.Equal(t, "docs", p.NS())
	assert.Equal(t, "review", p.Key())
	assert.Nil(t, p.Output())
	assert.Equal(t, []reflect.Type{reflect.TypeFor[Task](), reflect.TypeFor[Files](), reflect.TypeFor[prompt.NoParams]()}, p.ParamTypes())
	d := p.Descriptor()
	require.Len(t, d.SectionList(), 4)
	assert.Equal(t, []string{"task", "task/files", "again", "plain"}, []string{d.SectionList()[0].Path, d.SectionList()[1].Path, d.SectionList()[2].Path, d.SectionList()[3].Path})
}

func TestExtendAppendsSectionsAndKeepsTheRest(t *testing.T) {
	type Out struct {
		Answer string `json:"answer"`
	}
	base, err := prompt.New("ns", "key", prompt.Markdown[prompt.NoParams]("First", "one"), prompt.WithOutput[Out]())
	require.NoError(t, err)
	ext, err := base.Extend(prompt.Markdown[prompt.NoParams]("Second", "two"))
	require.NoError(t, err)
	assert.Equal(t, "ns", ext.NS())
	assert.Equal(t, "key", ext.Key())
	assert.Same(t, base.Output(), ext.Output())
	r, err := ext.Render()
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(r.Text, "## 1. First\n\none\n\n## 2. Second\n\ntwo\n\n## 3. "+prompt.ResponseFormatTitle), r.Text)
	r0, err := base.Render()
	require.NoError(t, err)
	assert.NotContains(t, r0.Text, "Second", "the original prompt is unchanged")

	_, err = base.Extend(prompt.Markdown[prompt.NoParams]("First", "clash"))
	assert.ErrorContains(t, err, `two sections have the path "first"`)
}
