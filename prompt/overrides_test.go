package prompt_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/prompt"
)

// overridable builds the prompt the override tests use, with store.
func overridable(t testing.TB, store prompt.OverrideStore, body string) *prompt.Prompt {
	t.Helper()
	return mustNew(t, "docs", "review",
		prompt.Markdown[Task]("Goal", body, prompt.WithTools(tool(t, "ls")), prompt.WithChildren(
			prompt.Markdown[prompt.NoParams]("Style", "Be brief."),
		)),
		prompt.WithOverrides(store, "latest"),
	)
}

func TestFileStoreLayoutAndAtomicWrites(t *testing.T) {
	dir := filepath.Join(t.TempDir(), ".offshoot", "prompts", "overrides")
	store := prompt.FileStore{Dir: dir}
	o, err := store.Load("docs", "review", "latest")
	require.NoError(t, err)
	assert.Nil(t, o, "no file, no override")

	want := &prompt.Override{NS: "docs", Key: "review", Tag: "latest",
		Sections: map[string]prompt.SectionOverride{"goal": {Hash: "h", Body: "b"}},
		Tools:    map[string]prompt.ToolOverride{"ls": {Hash: "t", Description: "d"}},
	}
	require.NoError(t, store.Save(want))
	path := filepath.Join(dir, "docs", "review", "latest.json")
	p, err := store.Path("docs", "review", "latest")
	require.NoError(t, err)
	assert.Equal(t, path, p)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var onDisk prompt.Override
	require.NoError(t, json.Unmarshal(data, &onDisk))
	assert.Equal(t, *want, onDisk)
	entries, err := os.ReadDir(filepath.Dir(path))
	require.NoError(t, err)
	assert.Len(t, entries, 1, "no temporary file is left behind")

	got, err := store.Load("docs", "review", "latest")
	require.NoError(t, err)
	assert.Equal(t, want, got)

	want.Sections["goal"] = prompt.SectionOverride{Hash: "h2", Body: "b2"}
	require.NoError(t, store.Save(want))
	got, err = store.Load("docs", "review", "latest")
	require.NoError(t, err)
	assert.Equal(t, "b2", got.Sections["goal"].Body)

	require.NoError(t, store.Delete("docs", "review", "latest"))
	require.NoError(t, store.Delete("docs", "review", "latest"))
	got, err = store.Load("docs", "review", "latest")
	require.NoError(t, err)
	assert.Nil(t, got)

	_, err = prompt.FileStore{}.Load("docs", "review", "latest")
	assert.EqualError(t, err, `prompt: FileStore needs a Dir, such as ".offshoot/prompts/overrides"`)
	_, err = store.Path("docs", "../etc", "latest")
	assert.Error(t, err, "keys cannot escape the directory")
	assert.Error(t, store.Save(&prompt.Override{NS: "docs", Key: "review", Tag: "Bad Tag"}))
	assert.Error(t, store.Save(nil))
}

func TestFileStoreRejectsBadFiles(t *testing.T) {
	dir := t.TempDir()
	store := prompt.FileStore{Dir: dir}
	path := filepath.Join(dir, "docs", "review", "latest.json")
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))

	require.NoError(t, os.WriteFile(path, []byte(`{"ns":"docs","key":"review","tag":"latest","extra":1}`), 0o644))
	_, err := store.Load("docs", "review", "latest")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "is not valid: extra: unknown field")

	require.NoError(t, os.WriteFile(path, []byte(`{"ns":"docs","key":"other","tag":"latest"}`), 0o644))
	_, err = store.Load("docs", "review", "latest")
	require.Error(t, err)
	assert.Contains(t, err.Error(), `is for docs/other tag "latest", not docs/review tag "latest"`)
}

func TestOverridesReplaceBodiesAndDescriptionsWhileHashesMatch(t *testing.T) {
	store := prompt.FileStore{Dir: t.TempDir()}
	p := overridable(t, store, "Goal: {{.Goal}}")
	d := p.Descriptor()

	r, err := p.Render(Task{Goal: "g"})
	require.NoError(t, err)
	assert.Equal(t, "## 1. Goal\n\nGoal: g\n\n### 1.1. Style\n\nBe brief.", r.Text)
	require.NotNil(t, r.Overrides)
	assert.Equal(t, prompt.OverrideReport{Tag: "latest"}, *r.Overrides)

	goal, err := d.OverrideSection("goal", "\n\t\tYour goal is {{.Goal}}.\n\t")
	require.NoError(t, err)
	ls, err := d.OverrideTool("ls", "List files, newest first.")
	require.NoError(t, err)
	_, err = d.OverrideSection("nope", "x")
	assert.EqualError(t, err, `prompt: docs/review has no section "nope"`)
	_, err = d.OverrideTool("nope", "x")
	assert.EqualError(t, err, `prompt: docs/review has no tool "nope"`)
	require.NoError(t, store.Save(&prompt.Override{NS: "docs", Key: "review", Tag: "latest",
		Sections: map[string]prompt.SectionOverride{
			"goal":       goal,
			"goal/style": {Hash: "0000", Body: "Be verbose."},
			"missing":    {Hash: "x", Body: "y"},
		},
		Tools: map[string]prompt.ToolOverride{
			"ls":   ls,
			"gone": {Hash: "x", Description: "y"},
		},
	}))

	r, err = p.Render(Task{Goal: "g"})
	require.NoError(t, err)
	assert.Equal(t, "## 1. Goal\n\nYour goal is g.\n\n### 1.1. Style\n\nBe brief.", r.Text, "the stale style override is not applied")
	lsTool, _ := r.Tools.Lookup("ls")
	assert.Equal(t, "List files, newest first.", lsTool.Spec().Description)
	assert.Equal(t, d, r.Descriptor, "the descriptor describes the original")
	assert.Equal(t, []prompt.OverrideTarget{{Kind: "section", Name: "goal"}, {Kind: "tool", Name: "ls"}}, r.Overrides.Applied)
	assert.Equal(t, []prompt.IgnoredOverride{
		{OverrideTarget: prompt.OverrideTarget{Kind: "section", Name: "goal/style"}, Reason: "stale: the section's template changed since the override was written"},
		{OverrideTarget: prompt.OverrideTarget{Kind: "section", Name: "missing"}, Reason: "the prompt has no such section"},
		{OverrideTarget: prompt.OverrideTarget{Kind: "tool", Name: "gone"}, Reason: "the prompt has no such tool"},
	}, r.Overrides.Ignored)

	// The section's template changes: the stored override is now stale.
	changed := overridable(t, store, "The goal: {{.Goal}}")
	r, err = changed.Render(Task{Goal: "g"})
	require.NoError(t, err)
	assert.Equal(t, "## 1. Goal\n\nThe goal: g\n\n### 1.1. Style\n\nBe brief.", r.Text)
	assert.Contains(t, r.Overrides.Ignored, prompt.IgnoredOverride{
		OverrideTarget: prompt.OverrideTarget{Kind: "section", Name: "goal"},
		Reason:         "stale: the section's template changed since the override was written",
	})
	assert.Equal(t, []prompt.OverrideTarget{{Kind: "tool", Name: "ls"}}, r.Overrides.Applied)
}

func TestInvalidOverridesAreIgnored(t *testing.T) {
	store := prompt.FileStore{Dir: t.TempDir()}
	p := overridable(t, store, "Goal: {{.Goal}}")
	d := p.Descriptor()
	badField, _ := d.OverrideSection("goal", "{{.Gaol}}")
	style, _ := d.OverrideSection("goal/style", "{{.Nope}}")
	emptyDesc, _ := d.OverrideTool("ls", "   ")
	require.NoError(t, store.Save(&prompt.Override{NS: "docs", Key: "review", Tag: "latest",
		Sections: map[string]prompt.SectionOverride{"goal": badField, "goal/style": style},
		Tools:    map[string]prompt.ToolOverride{"ls": emptyDesc},
	}))
	r, err := p.Render(Task{Goal: "g"})
	require.NoError(t, err)
	assert.Equal(t, "## 1. Goal\n\nGoal: g\n\n### 1.1. Style\n\nBe brief.", r.Text)
	assert.Empty(t, r.Overrides.Applied)
	require.Len(t, r.Overrides.Ignored, 3)
	assert.Equal(t, "invalid: the template refers to .Gaol, but prompt_test.Task has no field or method Gaol", r.Overrides.Ignored[0].Reason)
	assert.Equal(t, `invalid: tools: tool "ls" needs a description telling the model what it does`, r.Overrides.Ignored[2].Reason)
}

func TestOverrideThatFailsAtRenderFallsBack(t *testing.T) {
	store := prompt.FileStore{Dir: t.TempDir()}
	p := mustNew(t, "docs", "review", prompt.Markdown[Flags]("Status", "ok"), prompt.WithOverrides(store, "latest"))
	o, _ := p.Descriptor().OverrideSection("status", "status: {{.Fail}}")
	require.NoError(t, store.Save(&prompt.Override{NS: "docs", Key: "review", Tag: "latest", Sections: map[string]prompt.SectionOverride{"status": o}}))

	r, err := p.Render(Flags{})
	require.NoError(t, err)
	assert.Equal(t, "## 1. Status\n\nstatus: fine", r.Text)

	r, err = p.Render(Flags{Boom: true})
	require.NoError(t, err)
	assert.Equal(t, "## 1. Status\n\nok", r.Text)
	assert.Empty(t, r.Overrides.Applied)
	require.Len(t, r.Overrides.Ignored, 1)
	assert.Contains(t, r.Overrides.Ignored[0].Reason, "invalid: it failed to render, so the original body was used: ")
}

// failingStore fails every load.
type failingStore struct{}

func (failingStore) Load(string, string, string) (*prompt.Override, error) {
	return nil, errors.New("disk unplugged")
}

func TestStoreFailuresAreReportedNotFatal(t *testing.T) {
	p := overridable(t, failingStore{}, "Goal: {{.Goal}}")
	r, err := p.Render(Task{Goal: "g"})
	require.NoError(t, err)
	assert.Equal(t, []prompt.IgnoredOverride{{OverrideTarget: prompt.OverrideTarget{Kind: "store", Name: "latest"}, Reason: "disk unplugged"}}, r.Overrides.Ignored)
}

func TestWithOverridesNeedsAStoreAndATag(t *testing.T) {
	_, err := prompt.New("ns", "k", prompt.WithOverrides(nil, "latest"))
	assert.ErrorContains(t, err, "prompt: WithOverrides needs a store")
	_, err = prompt.New("ns", "k", prompt.WithOverrides(prompt.FileStore{Dir: "x"}, "../x"))
	assert.ErrorContains(t, err, `prompt: WithOverrides: override tag "../x" must contain only`)
}
