package project

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/hooks"
	"github.com/offshoot-dev/offshoot/permission"
)

// writeFile writes content at dir/name, making its folders.
func writeFile(t *testing.T, dir, name, content string) {
	t.Helper()
	p := filepath.Join(dir, name)
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
}

// rulesText writes rules as a settings file would, joined by ", ".
func rulesText(rs permission.Rules) string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.String()
	}
	return strings.Join(out, ", ")
}

// TestLoadSettings: every file's rules add up, the most specific mode
// wins, the project's allow rules and widening mode wait for trust, and
// the hash follows the project's files.
func TestLoadSettings(t *testing.T) {
	home, dir := t.TempDir(), t.TempDir()
	writeFile(t, home, ".claude/settings.json", `{"permissions": {"allow": ["Read"], "deny": ["Bash(curl:*)"], "defaultMode": "acceptEdits"}}`)
	writeFile(t, dir, ".claude/settings.json", `{"permissions": {"allow": ["Bash(go test:*)"], "deny": ["Read(./.env)"], "defaultMode": "bypassPermissions"}, "hooks": {}}`)
	writeFile(t, dir, ".claude/settings.local.json", `{"permissions": {"ask": ["Bash(git push:*)"]}}`)
	writeFile(t, dir, ".offshoot/settings.json", `{"permissions": {"allow": ["WebFetch(domain:go.dev)"], "bogus": 1, "deny": [3]}}`)
	s := LoadSettings(Options{Dir: dir, HomeDir: home})
	require.Equal(t, []string{
		filepath.Join(home, ".claude/settings.json"), filepath.Join(dir, ".claude/settings.json"),
		filepath.Join(dir, ".offshoot/settings.json"), filepath.Join(dir, ".claude/settings.local.json"),
	}, s.Files)
	require.Len(t, s.Warnings, 1)
	require.Contains(t, s.Warnings[0], filepath.Join(dir, ".offshoot/settings.json")+": permissions.deny[0]")
	require.NotEmpty(t, s.Hash)

	untrusted := s.Permissions(false)
	require.Equal(t, "Read", rulesText(untrusted.Allow))
	require.Equal(t, "Bash(curl:*), Read(./.env)", rulesText(untrusted.Deny))
	require.Equal(t, "Bash(git push:*)", rulesText(untrusted.Ask))
	require.Equal(t, permission.AcceptEdits, untrusted.DefaultMode, "the project's bypassPermissions waits for trust")
	trusted := s.Permissions(true)
	require.Equal(t, "Read, Bash(go test:*), WebFetch(domain:go.dev)", rulesText(trusted.Allow))
	require.Equal(t, permission.BypassPermissions, trusted.DefaultMode)

	hash := s.Hash
	require.Equal(t, hash, LoadSettings(Options{Dir: dir, HomeDir: home}).Hash, "the same files, the same hash")
	writeFile(t, dir, ".claude/settings.local.json", `{"permissions": {"ask": []}}`)
	require.NotEqual(t, hash, LoadSettings(Options{Dir: dir, HomeDir: home}).Hash, "a change asks again")

	// A restricting mode from the project applies at once.
	writeFile(t, dir, ".offshoot/settings.local.json", `{"permissions": {"defaultMode": "plan"}}`)
	require.Equal(t, permission.Plan, LoadSettings(Options{Dir: dir, HomeDir: home}).Permissions(false).DefaultMode)
}

// TestLoadSettingsRefuses: what is not a regular file, too large, or not
// JSON is a warning, and nothing of it is read; no files, no hash.
func TestLoadSettingsRefuses(t *testing.T) {
	dir := t.TempDir()
	require.Empty(t, LoadSettings(Options{Dir: dir}).Hash)
	writeFile(t, dir, ".claude/settings.json", `[1]`)
	require.NoError(t, syscall.Mkfifo(filepath.Join(dir, ".claude/settings.local.json"), 0o644))
	writeFile(t, dir, ".offshoot/settings.json", `{"permissions": {"allow": ["`+string(make([]byte, 2<<20))+`"]}}`)
	outside := t.TempDir()
	writeFile(t, outside, "x.json", `{"permissions": {"allow": ["Bash"]}}`)
	require.NoError(t, os.Symlink(filepath.Join(outside, "x.json"), filepath.Join(dir, ".offshoot/settings.local.json")))
	s := LoadSettings(Options{Dir: dir})
	require.Empty(t, s.Files)
	require.Empty(t, s.Hash)
	require.Len(t, s.Warnings, 4)
	require.Empty(t, s.Permissions(true).Allow)
}

// TestLoadSettingsInHome: run in the home directory, its files, the local
// ones too, are the user's, trusted.
func TestLoadSettingsInHome(t *testing.T) {
	home := t.TempDir()
	writeFile(t, home, ".claude/settings.json", `{"permissions": {"allow": ["Bash"]}}`)
	writeFile(t, home, ".claude/settings.local.json", stopHook("mine", `"permissions": {"allow": ["Read"]}`))
	s := LoadSettings(Options{Dir: home, HomeDir: home})
	require.Empty(t, s.Hash)
	require.Equal(t, "Bash, Read", rulesText(s.Permissions(false).Allow))
	require.Equal(t, []string{"mine"}, hookCommands(s.Hooks(false)))
}

// hookCommands are the commands of h, in order.
func hookCommands(h *hooks.Hooks) []string {
	var out []string
	for _, k := range h.List {
		out = append(out, k.Command)
	}
	return out
}

// stopHook is a settings file with one Stop hook running command, and
// more keys (`"env": …`) when extra is set.
func stopHook(command, extra string) string {
	if extra != "" {
		extra = ", " + extra
	}
	return `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "` + command + `"}]}]}` + extra + `}`
}

// TestLoadSettingsHooks: the hooks come from the same reading as the
// permissions, the user's and the project's apart; those in force run
// every file's, in the order of the files, the project's once trusted.
func TestLoadSettingsHooks(t *testing.T) {
	home, dir := t.TempDir(), t.TempDir()
	writeFile(t, home, ".claude/settings.json", stopHook("user", `"env": {"A": "user", "B": "user"}`))
	writeFile(t, dir, ".claude/settings.json", stopHook("shared", `"permissions": {"allow": ["Bash(make:*)"]}, "env": {"A": "shared"}`))
	writeFile(t, dir, ".claude/settings.local.json", stopHook("local", `"env": {"A": "local"}`))
	writeFile(t, dir, ".offshoot/settings.json", stopHook("offshoot", ""))
	writeFile(t, dir, ".offshoot/settings.local.json", `{"permissions": {"deny": ["Read(./.env)"]}, "hooks": []}`)
	s := LoadSettings(Options{Dir: dir, HomeDir: home})

	require.Equal(t, []string{filepath.Join(home, ".claude/settings.json")}, slices.Collect(maps.Keys(s.UserHooks)))
	require.Len(t, s.ProjectHooks, 3)
	require.Len(t, s.Warnings, 1)
	require.Contains(t, s.Warnings[0], filepath.Join(dir, ".offshoot/settings.local.json")+": ")
	require.Contains(t, s.Warnings[0], "its hooks do not run")
	require.Equal(t, "Read(./.env)", rulesText(s.Project.Deny), "its permissions are read all the same")

	untrusted := s.Hooks(false)
	require.Equal(t, []string{"user"}, hookCommands(untrusted))
	require.Equal(t, map[string]string{"A": "user", "B": "user"}, untrusted.Env)
	require.Equal(t, dir, untrusted.Dir)
	trusted := s.Hooks(true)
	require.Equal(t, []string{"user", "shared", "offshoot", "local"}, hookCommands(trusted))
	require.Equal(t, map[string]string{"A": "local", "B": "user"}, trusted.Env, "the most specific file's value")

	require.Nil(t, LoadSettings(Options{Dir: t.TempDir()}).Hooks(true), "no hooks, none")
}

// TestLoadSettingsReadOnce: the permissions and the hooks are of one
// reading of a file, so a file that changes between two uses of them
// cannot give the one and the other from different contents.
func TestLoadSettingsReadOnce(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, ".claude/settings.json", stopHook("before", `"permissions": {"allow": ["Bash(make:*)"]}`))
	s := LoadSettings(Options{Dir: dir})
	writeFile(t, dir, ".claude/settings.json", stopHook("after", `"permissions": {"allow": ["Bash"]}`))
	require.Equal(t, "Bash(make:*)", rulesText(s.Permissions(true).Allow))
	require.Equal(t, []string{"before"}, hookCommands(s.Hooks(true)))
}
