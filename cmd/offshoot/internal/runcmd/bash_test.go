package runcmd

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/cli"
	"github.com/offshoot-dev/offshoot/tools/vfs"
)

// fixer is a Claude Code agent file that lists Bash, Read and Edit.
const fixer = `---
name: fixer
description: Fixes the bug in main.txt.
tools: Bash, Read, Edit
---
You fix bugs.
`

// A Claude Code agent listing Bash runs its commands with the bash tool
// when the user allows it: on its own fork's copy of the files, its
// change handed back to the main agent's session.
func TestRunAgentWithBash(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the bash tool needs a Unix system")
	}
	f := newFixture(t, map[string]string{"main.txt": "a bug\n", ".claude/agents/fixer.md": fixer})
	f.script(t, `{"turns": [
  {"when": {"system_contains": "You fix bugs."}, "turns": [
    {"tool_calls": [{"name": "bash", "arguments": {"command": "sed -i s/bug/fix/ main.txt && cat main.txt"}}]},
    {"tool_calls": [{"name": "edit_file", "arguments": {"file_path": "main.txt", "old_string": "a fix", "new_string": "a good fix"}}]},
    {"text": "Fixed."}
  ]},
  {"tool_calls": [{"name": "Task", "arguments": {"subagent_type": "fixer", "description": "Fix the bug", "prompt": "Fix main.txt."}}]},
  {"text": "The fixer fixed it.", "repeat": true}
]}`)
	save := filepath.Join(t.TempDir(), "run.json")
	err := f.run(t, context.Background(), &run{task: "Fix the bug", flags: cli.AgentFlags{Save: save, Allow: []string{"bash=unconfined"}}})
	require.NoError(t, err, f.stderr.String())
	out := f.stdout.String()
	assert.Contains(t, out, `✓ bash {"command":"sed -i s/bug/fix/ main.txt && cat main.txt"} → Exit code 0.`)
	assert.Contains(t, out, "The fixer fixed it.")
	assert.NotContains(t, f.stderr.String(), "Bash")

	// The change is the session's; the directory is untouched.
	got, ok := vfs.FilesOf(readSnapshot(t, save)).Get("main.txt")
	require.True(t, ok)
	assert.Equal(t, "a good fix\n", got.Content)
	host, err := os.ReadFile(filepath.Join(f.env.ProjectDir, "main.txt"))
	require.NoError(t, err)
	assert.Equal(t, "a bug\n", string(host))
}

// Without --allow bash, an agent listing Bash runs without it.
func TestRunAgentWithoutBash(t *testing.T) {
	f := newFixture(t, map[string]string{"main.txt": "a bug\n", ".claude/agents/fixer.md": fixer})
	f.script(t, `{"turns": [
  {"tool_calls": [{"name": "bash", "arguments": {"command": "touch ran"}}]},
  {"text": "I cannot run commands.", "repeat": true}
]}`)
	save := filepath.Join(t.TempDir(), "run.json")
	err := f.run(t, context.Background(), &run{task: "Fix the bug", flags: cli.AgentFlags{Agent: "fixer", Save: save}})
	require.NoError(t, err, f.stderr.String())
	assert.Contains(t, f.stdout.String(), "✗ bash")
	_, ran := vfs.FilesOf(readSnapshot(t, save)).Get("ran")
	assert.False(t, ran)
}

// --allow takes bash and bash=unconfined only.
func TestRunAllowUnknown(t *testing.T) {
	f := newFixture(t, nil)
	f.script(t, `{"turns": [{"text": "x", "repeat": true}]}`)
	err := f.run(t, context.Background(), &run{task: "x", flags: cli.AgentFlags{Allow: []string{"python"}}})
	require.Error(t, err)
	assert.Equal(t, cli.ExitUsage, code(err))
	assert.Contains(t, err.Error(), "--allow python")
}
