package vfs_test

import (
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/tools/vfs"
)

func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, text := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		require.NoError(t, os.MkdirAll(filepath.Dir(full), 0o755))
		require.NoError(t, os.WriteFile(full, []byte(text), 0o600))
	}
}

// A mount leaves out, by default, the files that usually hold
// credentials, at any depth, and what the directory's .gitignore ignores;
// its report counts them by reason.
func TestMountLeavesSecretsOut(t *testing.T) {
	dir := t.TempDir()
	secret := "-----BEGIN PRIVATE KEY----- CANARY"
	writeTree(t, dir, map[string]string{
		"main.go":             "package main\n",
		"docs/guide.md":       "# Guide\n",
		".ssh/id_rsa":         secret,
		"deploy/id_ed25519":   secret,
		".npmrc":              secret,
		".netrc":              secret,
		"config/credentials":  secret,
		"tls/server.pem":      secret,
		"tls/server.key":      secret,
		".aws/credentials":    secret,
		".docker/config.json": secret,
		".env":                secret,
		"web/.env.production": secret,
		".gitignore":          "build/\n*.log\n!keep.log\n",
		"build/out.txt":       "built",
		"debug.log":           "log",
		"keep.log":            "kept",
	})
	require.NoError(t, os.Symlink(".ssh/id_rsa", filepath.Join(dir, "innocent.txt")))

	report := &vfs.MountReport{}
	table, err := vfs.LoadMounts([]string{dir}, vfs.Mount{HostPath: dir, GitIgnore: true, Report: report})
	require.NoError(t, err)
	var paths []string
	for f := range table.All() {
		paths = append(paths, f.Path)
		assert.NotContains(t, f.Content, "CANARY", f.Path)
	}
	slices.Sort(paths)
	assert.Equal(t, []string{".gitignore", "docs/guide.md", "keep.log", "main.go"}, paths)
	assert.Equal(t, 4, report.Copied)
	assert.Equal(t, 11, report.LeftOut[vfs.LeftSecret], report.Examples)
	assert.Equal(t, 2, report.LeftOut[vfs.LeftIgnored])
	assert.Equal(t, 1, report.LeftOut[vfs.LeftUnreadable], "the link to a secret")
	assert.Contains(t, report.Summary(), "11 may hold a secret (")
	assert.Contains(t, report.Summary(), "2 ignored by .gitignore")

	none, err := vfs.LoadMounts([]string{dir}, vfs.Mount{HostPath: dir, Secrets: []string{}})
	require.NoError(t, err)
	_, ok := none.Get(".npmrc")
	assert.True(t, ok, "an empty Secrets copies them")
}

// An unreadable directory, a FIFO or a link to a device inside the mount
// is skipped and reported; the rest is copied.
func TestMountSkipsWhatItCannotRead(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Log("running as root: the unreadable directory is readable; the other cases are checked")
	}
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"ok.md": "fine", "locked/secret.md": "hidden"})
	require.NoError(t, os.Chmod(filepath.Join(dir, "locked"), 0o000))
	t.Cleanup(func() { _ = os.Chmod(filepath.Join(dir, "locked"), 0o755) })
	require.NoError(t, syscall.Mkfifo(filepath.Join(dir, "pipe.md"), 0o600))
	require.NoError(t, os.Symlink("/dev/zero", filepath.Join(dir, "zero.md")))

	report := &vfs.MountReport{}
	table, err := vfs.LoadMounts([]string{dir}, vfs.Mount{HostPath: dir, Report: report})
	require.NoError(t, err)
	_, ok := table.Get("ok.md")
	assert.True(t, ok)
	assert.Equal(t, 1, report.LeftOut[vfs.LeftSpecial], "the FIFO")
	assert.GreaterOrEqual(t, report.LeftOut[vfs.LeftUnreadable], 1, "the link to /dev/zero")
	if os.Geteuid() != 0 {
		assert.Equal(t, 2, report.LeftOut[vfs.LeftUnreadable], "and the locked directory")
	}
}

// The tools and the section each load the mounts they are given: the
// report says what one load left out, not twice that.
func TestAMountReportCountsOneLoad(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"ok.md": "fine", ".env": "KEY=x"})
	report := &vfs.MountReport{}
	opts := vfs.Options{Mounts: []vfs.Mount{{HostPath: dir, Report: report}}, AllowedRoots: []string{dir}}
	_, err := vfs.Tools(opts)
	require.NoError(t, err)
	_ = vfs.Section(opts)
	assert.Equal(t, 1, report.Copied)
	assert.Equal(t, map[string]int{vfs.LeftSecret: 1}, report.LeftOut)
	assert.Equal(t, "1 left out: 1 may hold a secret (.env)", report.Summary())
}
