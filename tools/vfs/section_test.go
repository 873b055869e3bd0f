package vfs_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/tools/vfs"
)

func TestSection(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "docs"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "docs", "a.md"), []byte("a\n"), 0o644))
	sec := vfs.Section(vfs.Options{
		Title:        "Workspace",
		AllowedRoots: []string{root},
		Mounts:       []vfs.Mount{{HostPath: filepath.Join(root, "docs"), MountPath: "/in/{{x}}/"}, {HostPath: filepath.Join(root, "docs"), MountPath: "in/{{x}}"}},
	}, prompt.WithKey("ws"))
	require.NoError(t, sec.Err())
	assert.Equal(t, "ws", sec.Key())
	p, err := prompt.New("test", "vfs", sec)
	require.NoError(t, err)
	r, err := p.Render()
	require.NoError(t, err)
	assert.Contains(t, r.Text, "## 1. Workspace\n\nYou have a virtual filesystem")
	assert.Contains(t, r.Text, "Copies of host files were placed under in/{{x}}/ when the session started", "mount paths are shown once, braces and all")
	assert.Equal(t, []string{"ls", "read_file", "write_file", "edit_file", "glob", "grep", "rm"}, r.Tools.Names())

	// The rendered tools install on any session and seed it.
	for range 2 {
		s, err := session.New()
		require.NoError(t, err)
		require.NoError(t, r.Tools.Install(context.Background(), s))
		f, found := vfs.Files(s).Get("in/{{x}}/a.md")
		assert.True(t, found)
		assert.Equal(t, "a\n", f.Content)
		require.NoError(t, s.Close())
	}
}

// A mount that cannot be loaded is a construction error of the section,
// which prompt.New reports.
func TestSectionMountError(t *testing.T) {
	root := t.TempDir()
	sec := vfs.Section(vfs.Options{AllowedRoots: []string{root}, Mounts: []vfs.Mount{{HostPath: filepath.Dir(root)}}})
	assert.True(t, errors.Is(sec.Err(), vfs.ErrOutsideRoots))
	_, err := prompt.New("test", "vfs", sec)
	require.Error(t, err)
	assert.ErrorIs(t, err, vfs.ErrOutsideRoots)
}
