package offshoot_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot"
	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/tools/vfs"
)

// The main agent reads which prompts dispatch_subagent runs: those
// enabled in the registry when its conversation starts.
func TestDispatchablePromptsAreListed(t *testing.T) {
	reg := prompt.NewRegistry()
	m := scripted.New(
		scripted.When(scripted.SystemContains("You carry out one task."), scripted.Text("Done: the notes are fine.")),
		scripted.ToolCall("dispatch_subagent", `{"mode":"ad_hoc","prompt_ns":"team","prompt_key":"worker","instructions":"Check the notes."}`),
		scripted.Text("The worker says the notes are fine."),
	)
	c := newClient(t, m, offshoot.Options{DispatchSubagent: reg})
	// Registered after NewClient, before the first query: listed; a
	// disabled prompt is not.
	for _, p := range []struct{ key, text string }{{"worker", "You carry out one task."}, {"reviewer", "You review."}} {
		pr, err := prompt.New("team", p.key, prompt.Markdown[prompt.NoParams]("Role", p.text))
		require.NoError(t, err)
		require.NoError(t, reg.Register(pr))
	}
	require.NoError(t, reg.Disable("team", "reviewer"))
	assert.Equal(t, "The worker says the notes are fine.", final(t, collect(t, c, "Check the notes.")).Text)
	system := m.Calls()[0].Request.Messages[0].Content
	assert.Contains(t, system, "Prompts To Dispatch\n\ndispatch_subagent runs one of these prompts; give its prompt_ns and prompt_key:\n- prompt_ns \"team\", prompt_key \"worker\"")
	assert.NotContains(t, system, "prompt_key \"reviewer\"")
}

// Without dispatch_subagent, or with no prompt to run, nothing is listed.
func TestNoDispatchablePrompts(t *testing.T) {
	for name, opts := range map[string]offshoot.Options{
		"no dispatch_subagent": {},
		"an empty registry":    {DispatchSubagent: prompt.NewRegistry()},
	} {
		t.Run(name, func(t *testing.T) {
			m := scripted.New(scripted.Text("Hello."))
			c := newClient(t, m, opts)
			require.NoError(t, final(t, collect(t, c, "Hi.")).Err)
			assert.NotContains(t, m.Calls()[0].Request.Messages[0].Content, "Prompts To Dispatch")
		})
	}
}

// The transcripts directory is left out of a directory copied in that
// holds it: the agents' records are no files of the project. So are
// .offshoot folders and .env files, which may hold secrets.
func TestTranscriptsAreNotMounted(t *testing.T) {
	dir := t.TempDir()
	transcripts := filepath.Join(dir, "records", "transcripts")
	for path, text := range map[string]string{
		"main.go":                          "package main\n",
		"records/notes.md":                 "kept\n",
		".offshoot/agents/reviewer.md":     "---\nname: reviewer\ndescription: Reviews.\n---\nReview.\n",
		".offshoot/config.json":            `{"api_key": "sk-secret"}`,
		".env":                             "LLM_API_KEY=sk-secret\n",
		"records/transcripts/r1/a1.jsonl":  "{}\n",
		"records/transcripts/r1/a1.record": "{}\n",
	} {
		p := filepath.Join(dir, filepath.FromSlash(path))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	}
	c := newClient(t, scripted.New(), offshoot.Options{Mounts: []vfs.Mount{offshoot.DirectoryMount(dir, "")}, Transcripts: transcripts})
	var paths []string
	for f := range vfs.Files(c.Session()).All() {
		paths = append(paths, f.Path)
	}
	assert.Equal(t, []string{"main.go", "records/notes.md"}, paths)
}
