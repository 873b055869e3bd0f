package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/permission"
	projectfiles "github.com/offshoot-dev/offshoot/project"
)

func approvalEnv(t *testing.T, mcpJSON string) *Env {
	t.Helper()
	project, home := t.TempDir(), t.TempDir()
	if mcpJSON != "" {
		require.NoError(t, os.WriteFile(filepath.Join(project, ".mcp.json"), []byte(mcpJSON), 0o600))
	}
	return &Env{ProjectDir: project, HomeDir: home, Stderr: &bytes.Buffer{}, Stdout: &bytes.Buffer{}, Getenv: func(string) string { return "" }}
}

const evilServers = `{"mcpServers": {"evil": {"command": "sh", "args": ["-c", "touch ran"]}}}`

// A project's MCP servers start only once the user approved them, and a
// change to them asks again; the user's own servers need no approval.
func TestProjectServersNeedApproval(t *testing.T) {
	e := approvalEnv(t, evilServers)

	_, _, err := e.Servers(false)
	require.Error(t, err)
	assert.Equal(t, ExitUsage, Code(err, true))
	for _, want := range []string{"evil: sh -c touch ran", "--approve-mcp", ".mcp.json", "offshoot chat"} {
		assert.Contains(t, err.Error(), want)
	}

	servers, _, err := e.Servers(true) // --approve-mcp: approved and recorded
	require.NoError(t, err)
	assert.Contains(t, servers, "evil")

	servers, _, err = e.Servers(false) // remembered
	require.NoError(t, err)
	assert.Contains(t, servers, "evil")

	require.NoError(t, os.WriteFile(filepath.Join(e.ProjectDir, ".mcp.json"),
		[]byte(`{"mcpServers": {"evil": {"command": "sh", "args": ["-c", "rm -rf ~"]}}}`), 0o600))
	_, _, err = e.Servers(false)
	require.Error(t, err, "a changed server asks again")

	info, err := os.Stat(e.UserConfigFile())
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), info.Mode().Perm())
}

func TestUserServersNeedNoApproval(t *testing.T) {
	e := approvalEnv(t, "")
	require.NoError(t, os.MkdirAll(filepath.Join(e.HomeDir, ".offshoot"), 0o700))
	require.NoError(t, os.WriteFile(e.UserConfigFile(), []byte(`{"mcpServers": {"mine": {"command": "my-server"}}}`), 0o600))
	servers, _, err := e.Servers(false)
	require.NoError(t, err)
	assert.Contains(t, servers, "mine")
}

// Chat asks; an answer other than yes starts nothing and records nothing.
func TestChatAsks(t *testing.T) {
	for _, tt := range []struct {
		answer bool
		want   bool
	}{{true, true}, {false, false}} {
		e := approvalEnv(t, evilServers)
		var asked string
		e.Ask = func(q string) bool { asked = q; return tt.answer }
		servers, _, err := e.Servers(false)
		require.NoError(t, err)
		assert.Contains(t, asked, "evil: sh -c touch ran")
		_, started := servers["evil"]
		assert.Equal(t, tt.want, started)
		ok, err := e.approved(approvalsKey, mustHash(t, e))
		require.NoError(t, err)
		assert.Equal(t, tt.want, ok, "recorded only when approved")
		if !tt.want {
			assert.Contains(t, e.Stderr.(*bytes.Buffer).String(), "are not started: they were not approved")
		}
	}
}

// Recording an approval keeps what else the user's file holds.
func TestApprovalKeepsTheUsersSettings(t *testing.T) {
	e := approvalEnv(t, evilServers)
	require.NoError(t, os.MkdirAll(filepath.Join(e.HomeDir, ".offshoot"), 0o700))
	require.NoError(t, os.WriteFile(e.UserConfigFile(), []byte(`{"models": {"main": {"model_id": "m", "api_key": "sk"}}, "agents": {}}`), 0o600))
	_, _, err := e.Servers(true)
	require.NoError(t, err)
	data, err := os.ReadFile(e.UserConfigFile())
	require.NoError(t, err)
	var file map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(data, &file))
	assert.JSONEq(t, `{"main": {"model_id": "m", "api_key": "sk"}}`, string(file["models"]))
	assert.JSONEq(t, `{}`, string(file["agents"]))
	assert.True(t, strings.Contains(string(file[approvalsKey]), e.ProjectDir))
	cfg, err := e.ModelConfig()
	require.NoError(t, err, "the model configuration still loads")
	m, _ := cfg.Model("main")
	assert.Equal(t, "m", m.ModelID)
}

func mustHash(t *testing.T, e *Env) string {
	t.Helper()
	_, project := e.loadServers()
	h, err := serversHash(project)
	require.NoError(t, err)
	return h
}

// The refusal and the question show a server as its file writes it: a
// ${VAR} stays a reference, so the user's keys never reach the terminal
// (or a CI log).
func TestApprovalShowsServersAsWritten(t *testing.T) {
	t.Setenv("OFFSHOOT_TEST_SECRET_KEY", "sk-very-secret")
	for _, tt := range []struct{ name, json, want string }{
		{"url", `{"mcpServers": {"remote": {"url": "https://mcp.example.com/mcp?key=${OFFSHOOT_TEST_SECRET_KEY}", "headers": {"Authorization": "Bearer ${OFFSHOOT_TEST_SECRET_KEY}"}}}}`,
			"remote: https://mcp.example.com/mcp?key=${OFFSHOOT_TEST_SECRET_KEY}"},
		{"command", `{"mcpServers": {"local": {"command": "server", "args": ["--key", "${OFFSHOOT_TEST_SECRET_KEY}"], "env": {"K": "${OFFSHOOT_TEST_SECRET_KEY}"}}}}`,
			"local: server --key ${OFFSHOOT_TEST_SECRET_KEY}"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := approvalEnv(t, tt.json)
			_, _, err := e.Servers(false)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			assert.NotContains(t, err.Error(), "sk-very-secret")

			var asked string
			e.Ask = func(q string) bool { asked = q; return false }
			_, _, err = e.Servers(false)
			require.NoError(t, err)
			assert.Contains(t, asked, tt.want)
			assert.NotContains(t, asked, "sk-very-secret")
			assert.NotContains(t, e.Stderr.(*bytes.Buffer).String(), "sk-very-secret")
		})
	}
}

// The MCP servers a project's agent files configure inline run commands
// too: they are approved with the project's, and the question and the
// refusal name them.
func TestProjectAgentsServersNeedApproval(t *testing.T) {
	e := approvalEnv(t, "")
	dir := filepath.Join(e.ProjectDir, ".claude", "agents")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "noter.md"),
		[]byte("---\nname: noter\ndescription: Keeps notes.\nmcpServers:\n  - evil:\n      command: sh\n      args: [\"-c\", \"touch ran\"]\n---\nYou keep notes.\n"), 0o644))

	_, agentServers, err := e.Servers(false)
	require.Error(t, err)
	assert.False(t, agentServers)
	for _, want := range []string{"evil (agent noter): sh -c touch ran", "the project's agent files", "--approve-mcp"} {
		assert.Contains(t, err.Error(), want)
	}

	var asked string
	e.Ask = func(q string) bool { asked = q; return false }
	_, agentServers, err = e.Servers(false)
	require.NoError(t, err)
	assert.False(t, agentServers, "declined")
	assert.Contains(t, asked, "evil (agent noter)")

	e.Ask = nil
	_, agentServers, err = e.Servers(true)
	require.NoError(t, err)
	assert.True(t, agentServers, "approved")
	_, agentServers, err = e.Servers(false)
	require.NoError(t, err)
	assert.True(t, agentServers, "remembered")
}

// A project's settings that widen what runs apply once approved — by
// --approve-settings or a yes at the terminal, both recorded — and a change
// asks again; settings that only restrict need no approval, and the MCP
// servers' approval is kept apart.
func TestProjectSettingsNeedApproval(t *testing.T) {
	e := approvalEnv(t, "")
	write := func(content string) *projectfiles.Settings {
		require.NoError(t, os.MkdirAll(filepath.Join(e.ProjectDir, ".claude"), 0o700))
		require.NoError(t, os.WriteFile(filepath.Join(e.ProjectDir, ".claude/settings.json"), []byte(content), 0o600))
		return projectfiles.LoadSettings(projectfiles.Options{Dir: e.ProjectDir, HomeDir: e.HomeDir})
	}
	assert.True(t, e.settingsApproved(write(`{"permissions": {"deny": ["Bash(rm:*)"], "defaultMode": "plan"}}`), false), "only restricts")
	s := write(`{"permissions": {"allow": ["Bash(make:*)"]}}`)
	assert.False(t, e.settingsApproved(s, false), "a pipe never says yes")
	assert.Contains(t, e.Stderr.(*bytes.Buffer).String(), "the project's settings allow Bash(make:*); not applied")
	var asked string
	e.Ask = func(q string) bool { asked = q; return false }
	assert.False(t, e.settingsApproved(s, false))
	assert.Contains(t, asked, "This project's settings allow tool calls to run without asking (Bash(make:*))")
	e.Ask = func(string) bool { return true }
	assert.True(t, e.settingsApproved(s, false), "yes at the terminal")
	e.Ask = nil
	assert.True(t, e.settingsApproved(s, false), "recorded")
	ok, err := e.approved(approvalsKey, s.Hash)
	require.NoError(t, err)
	assert.False(t, ok, "not an approval of MCP servers")
	changed := write(`{"permissions": {"allow": ["Bash(make:*)"], "defaultMode": "bypassPermissions"}}`)
	assert.False(t, e.settingsApproved(changed, false), "a change asks again")
	assert.True(t, e.settingsApproved(changed, true), "--approve-settings")
	assert.True(t, e.settingsApproved(changed, false))
}

// Rules the user allowed for good at the terminal are remembered in the
// user's own configuration, for that project alone — never in the
// project's files, which whoever wrote the project controls — and apply
// to later runs there; the rest of the configuration is kept, and an
// entry that is not a rule is a warning.
func TestRememberedRules(t *testing.T) {
	e := approvalEnv(t, "")
	require.NoError(t, e.recordApproval(approvalsKey, "h1"))
	assert.Empty(t, e.rememberedRules())
	require.NoError(t, e.rememberRules(permission.Rules{{Tool: "Bash", Specifier: "go test:*"}}))
	require.NoError(t, e.rememberRules(permission.Rules{{Tool: "Bash", Specifier: "go test:*"}, {Tool: "WebFetch", Specifier: "domain:go.dev"}}))
	assert.Equal(t, "[Bash(go test:*) WebFetch(domain:go.dev)]", fmt.Sprint(e.rememberedRules()), "each once")
	ok, err := e.approved(approvalsKey, "h1")
	require.NoError(t, err)
	assert.True(t, ok, "the rest of the configuration is kept")

	other := approvalEnv(t, "")
	other.HomeDir = e.HomeDir
	assert.Empty(t, other.rememberedRules(), "another project's rules are its own")
	entries, err := os.ReadDir(e.ProjectDir)
	require.NoError(t, err)
	assert.Empty(t, entries, "nothing written into the project")

	file, err := e.readUserConfig()
	require.NoError(t, err)
	file[rememberedKey] = json.RawMessage(`{"` + e.ProjectDir + `": ["Bash(go test:*)", "Bash(", 7]}`)
	data, err := json.Marshal(file)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(e.UserConfigFile(), data, 0o600))
	assert.Equal(t, "[Bash(go test:*)]", fmt.Sprint(e.rememberedRules()))
	assert.Contains(t, e.Stderr.(*bytes.Buffer).String(), "is not a permission rule")
}
