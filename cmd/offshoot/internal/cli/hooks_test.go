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
	projectfiles "github.com/offshoot-dev/offshoot/project"
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

	h := e.Hooks(loadSettings(e), false)
	require.Nil(t, h, "said no")
	runStop(h)
	assert.NoFileExists(t, ran)
	require.Len(t, asked, 1)
	assert.Contains(t, asked[0], ".claude/settings.json: Stop touch ran")
	assert.Contains(t, e.Stderr.(*bytes.Buffer).String(), "the project's hooks do not run: they were not approved")

	answer = true
	h = e.Hooks(loadSettings(e), false)
	require.NotNil(t, h)
	assert.Equal(t, e.ProjectDir, h.Dir)
	runStop(h)
	assert.FileExists(t, ran)
	assert.Equal(t, []string{"hooks from .claude/settings.json: Stop touch ran"}, e.HookLines())

	e.Ask = nil // a pipe: remembered
	require.NotNil(t, e.Hooks(loadSettings(e), false))
	write(`{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "touch ran; rm -rf ~"}]}]}}`)
	assert.Nil(t, e.Hooks(loadSettings(e), false), "changed: not run from a pipe")
	assert.Empty(t, e.HookLines())
}

// The user's hooks run without asking; in the user's own directory, the
// project's files are the user's.
func TestUserHooksNeedNoApproval(t *testing.T) {
	e := approvalEnv(t, "")
	require.NoError(t, os.MkdirAll(filepath.Join(e.HomeDir, ".claude"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(e.HomeDir, ".claude", "settings.json"),
		[]byte(`{"env": {"A": "b"}, "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "mine"}]}]}}`), 0o600))
	h := e.Hooks(loadSettings(e), false)
	require.NotNil(t, h)
	assert.Equal(t, []hooks.Hook{{Event: hooks.Stop, Command: "mine"}}, h.List)
	assert.Equal(t, map[string]string{"A": "b"}, h.Env)

	e.ProjectDir = e.HomeDir
	h = e.Hooks(loadSettings(e), false)
	require.NotNil(t, h)
	assert.Len(t, h.List, 1, "read once")
}

// loadSettings reads the settings files of e's project and user.
func loadSettings(e *Env) *projectfiles.Settings {
	return projectfiles.LoadSettings(projectfiles.Options{Dir: e.ProjectDir, HomeDir: e.HomeDir})
}

// writeSettings writes a settings file at dir/name.
func writeSettings(t *testing.T, dir, name, content string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600))
}

// stopHook is a settings file with one Stop hook running command.
func stopHook(command string) string {
	return `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "` + command + `"}]}]}}`
}

// Hooks from every file run, in Claude Code's order of its settings: the
// user's, then the project's shared files, then its local ones (.claude's
// before .offshoot's at each level), as the permissions are merged.
func TestHooksRunInSettingsOrder(t *testing.T) {
	e := approvalEnv(t, "")
	writeSettings(t, e.HomeDir, ".claude/settings.json", stopHook("user"))
	writeSettings(t, e.ProjectDir, ".claude/settings.json", stopHook("shared"))
	writeSettings(t, e.ProjectDir, ".claude/settings.local.json", stopHook("local"))
	writeSettings(t, e.ProjectDir, ".offshoot/settings.json", stopHook("offshoot shared"))
	writeSettings(t, e.ProjectDir, ".offshoot/settings.local.json", stopHook("offshoot local"))
	h := e.Hooks(loadSettings(e), true)
	require.NotNil(t, h)
	var commands []string
	for _, k := range h.List {
		commands = append(commands, k.Command)
	}
	assert.Equal(t, []string{"user", "shared", "offshoot shared", "local", "offshoot local"}, commands)
	assert.Equal(t, []string{
		"hooks from ~/.claude/settings.json: Stop user",
		"hooks from .claude/settings.json: Stop shared",
		"hooks from .offshoot/settings.json: Stop offshoot shared",
		"hooks from .claude/settings.local.json: Stop local",
		"hooks from .offshoot/settings.local.json: Stop offshoot local",
	}, e.HookLines())
}

// A settings file is read once: its hooks are those of the bytes its
// permissions came from, even when it changes in between.
func TestSettingsReadOnce(t *testing.T) {
	e := approvalEnv(t, "")
	writeSettings(t, e.ProjectDir, ".claude/settings.json",
		`{"permissions": {"allow": ["Bash(make:*)"]}, "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "before"}]}]}}`)
	_, err := e.policy(AgentFlags{ApproveSettings: true}, nil, func(string) bool { return false })
	require.NoError(t, err)
	writeSettings(t, e.ProjectDir, ".claude/settings.json",
		`{"permissions": {"allow": ["Bash"]}, "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "after"}]}]}}`)
	h := e.Hooks(e.Settings, true)
	require.NotNil(t, h)
	assert.Equal(t, []hooks.Hook{{Event: hooks.Stop, Command: "before"}}, h.List)
}
