package runcmd

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/cli"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/scripted"
)

// editing is a run whose main agent hands README.md to the editor agent
// (testdata/agents/editor.md, a Claude Code agent file whose tools are
// Read and Edit) through the Task tool; the editor reads the file and
// edits it.
const editing = `{"turns": [
  {"when": {"system_contains": "You edit files exactly as asked"}, "turns": [
    {"tool_calls": [{"name": "read_file", "arguments": {"file_path": "README.md"}}]},
    {"tool_calls": [{"name": "edit_file", "arguments": {"file_path": "README.md", "old_string": "hello", "new_string": "hello, world"}}]},
    {"text": "README.md now says hello, world."}
  ]},
  {"tool_calls": [{"name": "Task", "arguments": {"subagent_type": "editor", "description": "Fix the README", "prompt": "Make README.md say hello, world."}}]},
  {"text": "The editor changed README.md.", "repeat": true}
]}`

// editorFixture is a project with README.md and the editor agent, on the
// editing script.
func editorFixture(t *testing.T) *fixture {
	t.Helper()
	agent, err := os.ReadFile(filepath.Join("testdata", "agents", "editor.md"))
	require.NoError(t, err)
	f := newFixture(t, map[string]string{"README.md": "hello\n", ".claude/agents/editor.md": string(agent)})
	f.script(t, editing)
	return f
}

func (f *fixture) readme(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(f.env.ProjectDir, "README.md"))
	require.NoError(t, err)
	return string(data)
}

const readmeDiff = `--- a/README.md
+++ b/README.md
@@ -1 +1 @@
-hello
+hello, world
`

// A Claude Code agent listing Read and Edit edits a file through the Task
// tool; with --write its edit reaches the directory.
func TestRunWritesBack(t *testing.T) {
	f := editorFixture(t)
	r := &run{task: "Fix the README", writeFlags: cli.WriteBackFlags{Write: true}}
	require.NoError(t, f.run(t, context.Background(), r), f.stderr.String())
	out := f.stdout.String()
	assert.Contains(t, out, "✓ Task {\"subagent_type\":\"editor\"")
	assert.Contains(t, out, "\n"+readmeDiff)
	assert.Contains(t, out, "offshoot run: wrote to "+f.env.ProjectDir+": 0 created, 1 edited, 0 deleted\n")
	assert.Equal(t, "hello, world\n", f.readme(t))
}

// --dry-run, or no --write where no one can be asked, shows the diff and
// writes nothing.
func TestRunShowsChangesOnly(t *testing.T) {
	for _, tc := range []struct {
		name  string
		flags cli.WriteBackFlags
		later string
	}{
		{"dry run", cli.WriteBackFlags{DryRun: true}, ""},
		{"no terminal", cli.WriteBackFlags{}, "offshoot run: run again with --write to write them"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := editorFixture(t)
			r := &run{task: "Fix the README", writeFlags: tc.flags}
			require.NoError(t, f.run(t, context.Background(), r), f.stderr.String())
			out := f.stdout.String()
			assert.Contains(t, out, readmeDiff)
			assert.Contains(t, out, "offshoot run: not written to "+f.env.ProjectDir+": 0 created, 1 edited, 0 deleted\n")
			if tc.later != "" {
				assert.Contains(t, out, tc.later)
			}
			assert.Equal(t, "hello\n", f.readme(t))
		})
	}
}

// A file changed on disk while the run worked is left as it is, named,
// and the run exits with 1; the other changes are written.
func TestRunWriteBackConflict(t *testing.T) {
	f := newFixture(t, map[string]string{"README.md": "hello\n"})
	readme := filepath.Join(f.env.ProjectDir, "README.md")
	m := scripted.New(
		scripted.Func(func(context.Context, *model.Request) (*model.Response, error) {
			// Someone edits README.md on disk while the agent works.
			if err := os.WriteFile(readme, []byte("theirs\n"), 0o644); err != nil {
				return nil, err
			}
			return &model.Response{Message: model.AssistantMessage("",
				model.ToolCall{ID: "c1", Name: "edit_file", Arguments: `{"file_path": "README.md", "old_string": "hello", "new_string": "mine"}`},
				model.ToolCall{ID: "c2", Name: "write_file", Arguments: `{"file_path": "NOTES.md", "content": "notes\n"}`})}, nil
		}),
		scripted.Text("Done."),
	)
	r := &run{task: "Fix the README", writeFlags: cli.WriteBackFlags{Write: true}, adjust: f.withModel(t, m)}
	err := f.run(t, context.Background(), r)
	require.Error(t, err)
	assert.Equal(t, cli.ExitFailed, code(err))
	assert.Contains(t, err.Error(), "1 file not written, left unchanged on disk: README.md (changed on disk since it was mounted)")
	assert.Contains(t, f.stdout.String(), "offshoot run: wrote to "+f.env.ProjectDir+": 1 created, 0 edited, 0 deleted; 1 left: README.md (changed on disk since it was mounted)\n")
	assert.Contains(t, f.stdout.String(), "offshoot run: the files changed on disk since they were copied in, against the session's version, to merge by hand:\n"+
		"--- disk/README.md\n+++ session/README.md\n@@ -1 +1 @@\n-theirs\n+mine\n")
	assert.Equal(t, "theirs\n", f.readme(t))
	notes, err := os.ReadFile(filepath.Join(f.env.ProjectDir, "NOTES.md"))
	require.NoError(t, err)
	assert.Equal(t, "notes\n", string(notes))
}
