package vfs_test

import (
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/tools/vfs"
)

// TestDiskDrift: how many of the files a session copied in differ on disk
// now — edited, removed, replaced by a directory — compared with the
// hashes its mount kept; files added to the directory since are not the
// session's, and do not count.
func TestDiskDrift(t *testing.T) {
	for _, tt := range []struct {
		name    string
		change  func(t *testing.T, repo string)
		changed int
	}{
		{name: "as it was", change: func(*testing.T, string) {}},
		{name: "one edited", changed: 1, change: func(t *testing.T, repo string) {
			require.NoError(t, os.WriteFile(filepath.Join(repo, "a.txt"), []byte("A\n"), 0o644))
		}},
		{name: "one edited to the same content", change: func(t *testing.T, repo string) {
			require.NoError(t, os.WriteFile(filepath.Join(repo, "a.txt"), []byte("a\n"), 0o644))
		}},
		{name: "one removed, one a directory", changed: 2, change: func(t *testing.T, repo string) {
			require.NoError(t, os.Remove(filepath.Join(repo, "a.txt")))
			require.NoError(t, os.Remove(filepath.Join(repo, "sub", "b.txt")))
			require.NoError(t, os.Mkdir(filepath.Join(repo, "sub", "b.txt"), 0o755))
		}},
		{name: "one added", change: func(t *testing.T, repo string) {
			require.NoError(t, os.WriteFile(filepath.Join(repo, "new.txt"), []byte("new\n"), 0o644))
		}},
		{name: "one a symbolic link to the same content", changed: 1, change: func(t *testing.T, repo string) {
			require.NoError(t, os.WriteFile(filepath.Join(repo, "elsewhere"), []byte("a\n"), 0o644))
			require.NoError(t, os.Remove(filepath.Join(repo, "a.txt")))
			require.NoError(t, os.Symlink("elsewhere", filepath.Join(repo, "a.txt")))
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			base := t.TempDir()
			repo := filepath.Join(base, "repo")
			materialize(t, repo, fstest.MapFS{"a.txt": {Data: []byte("a\n")}, "sub/b.txt": {Data: []byte("b\n")}, "c.txt": {Data: []byte("c\n")}})
			s := mounted(t, base, "")
			tt.change(t, repo)
			d, err := vfs.DiskDrift(s.Snapshot(), repo)
			require.NoError(t, err)
			assert.Equal(t, vfs.Drift{Copied: 3, Changed: tt.changed}, d)
		})
	}
}

func TestDiskDriftWithoutAMount(t *testing.T) {
	s, err := session.New()
	require.NoError(t, err)
	defer s.Close()
	d, err := vfs.DiskDrift(s.Snapshot(), t.TempDir())
	require.NoError(t, err)
	assert.Equal(t, vfs.Drift{}, d, "nothing was copied in")

	_, err = vfs.DiskDrift(s.Snapshot(), filepath.Join(t.TempDir(), "missing"))
	require.ErrorContains(t, err, "missing")
}
