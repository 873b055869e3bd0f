package project

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

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

// TestLoadSettingsInHome: run in the home directory, its files are the
// user's, trusted.
func TestLoadSettingsInHome(t *testing.T) {
	home := t.TempDir()
	writeFile(t, home, ".claude/settings.json", `{"permissions": {"allow": ["Bash"]}}`)
	s := LoadSettings(Options{Dir: home, HomeDir: home})
	require.Empty(t, s.Hash)
	require.Equal(t, "Bash", rulesText(s.Permissions(false).Allow))
}
