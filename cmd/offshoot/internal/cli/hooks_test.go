package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/hooks"
)

// A project's hook runs only once the user said yes: asked on a terminal,
// a no leaves it out and a yes is recorded; a change asks again. Running
// the hooks proves it: the unapproved one never touches its file.
func TestProjectHooksNeedApproval(t *testing.T) {
	e := approvalEnv(t, "")
	write := func(settings string) {
		require.NoError(t, os.MkdirAll(filepath.Join(e.ProjectDir, ".claude"), 0o700))
		require.NoError(t, os.WriteFile(filepath.Join(e.ProjectDir, ".claude", "settings.json"), []byte(settings), 0o600))
	}
	runStop := func(h *hooks.Hooks) {
		_, err := h.Run(context.Background(), hooks.Input{Event: hooks.Stop})
		require.NoError(t, err)
	}
	write(`{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "touch ran"}]}]}}`)
	ran := filepath.Join(e.ProjectDir, "ran")
	var asked []string
	answer := false
	e.Ask = func(q string) bool { asked = append(asked, q); return answer }

	h := e.Hooks(false)
	require.Nil(t, h, "said no")
	runStop(h)
	assert.NoFileExists(t, ran)
	require.Len(t, asked, 1)
	assert.Contains(t, asked[0], ".claude/settings.json: Stop touch ran")
	assert.Contains(t, e.Stderr.(*bytes.Buffer).String(), "the project's hooks do not run: they were not approved")

	answer = true
	h = e.Hooks(false)
	require.NotNil(t, h)
	assert.Equal(t, e.ProjectDir, h.Dir)
	runStop(h)
	assert.FileExists(t, ran)
	assert.Equal(t, []string{"hooks from .claude/settings.json: Stop touch ran"}, e.HookLines())

	e.Ask = nil // a pipe: remembered
	require.NotNil(t, e.Hooks(false))
	write(`{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "touch ran; rm -rf ~"}]}]}}`)
	assert.Nil(t, e.Hooks(false), "changed: not run from a pipe")
	assert.Empty(t, e.HookLines())
}

// The user's hooks run without asking; in the user's own directory, the
// project's files are the user's.
func TestUserHooksNeedNoApproval(t *testing.T) {
	e := approvalEnv(t, "")
	require.NoError(t, os.MkdirAll(filepath.Join(e.HomeDir, ".claude"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(e.HomeDir, ".claude", "settings.json"),
		[]byte(`{"env": {"A": "b"}, "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "mine"}]}]}}`), 0o600))
	h := e.Hooks(false)
	require.NotNil(t, h)
	assert.Equal(t, []hooks.Hook{{Event: hooks.Stop, Command: "mine"}}, h.List)
	assert.Equal(t, map[string]string{"A": "b"}, h.Env)

	e.ProjectDir = e.HomeDir
	h = e.Hooks(false)
	require.NotNil(t, h)
	assert.Len(t, h.List, 1, "read once")
}
