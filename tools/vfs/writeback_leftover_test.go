package vfs_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/tools/vfs"
)

// A write-back killed midway leaves its temporary file (.NAME.offshoot-
// and 12 hex digits) beside the file it was writing. The next write-back
// removes those it finds in the directories it writes to — regular files
// named exactly so, never through a link — and says how many.
func TestWriteBackRemovesLeftovers(t *testing.T) {
	base := t.TempDir()
	materialize(t, base, host)
	repo := filepath.Join(base, "repo")
	s := mounted(t, base, "")
	for _, e := range []edit{{Path: "README.md", Content: "new\n"}, {Path: "docs/a.md", Content: "b\n"}} {
		require.NoError(t, s.Dispatch(context.Background(), e.event()))
	}
	cases := []struct {
		name    string
		path    string // relative to repo
		plant   func(p string) error
		removed bool
	}{
		{"the leftover of a file the write-back writes", ".README.md.offshoot-0123456789ab", plantFile, true},
		{"the leftover of another file", ".gone.txt.offshoot-abcdefabcdef", plantFile, true},
		{"a leftover in another directory written to", "docs/.a.md.offshoot-000000000000", plantFile, true},
		{"in a directory not written to", "src/.main.go.offshoot-0123456789ab", plantFile, false},
		{"upper-case hex", ".README.md.offshoot-0123456789AB", plantFile, false},
		{"11 hex digits", ".README.md.offshoot-0123456789a", plantFile, false},
		{"13 hex digits", ".README.md.offshoot-0123456789abc", plantFile, false},
		{"not hex", ".README.md.offshoot-0123456789ag", plantFile, false},
		{"no leading dot", "README.md.offshoot-0123456789ab", plantFile, false},
		{"something after", ".README.md.offshoot-0123456789ab.bak", plantFile, false},
		{"no name", "..offshoot-0123456789ab", plantFile, false},
		{"another program's", ".README.md.tmp-0123456789ab", plantFile, false},
		{"a symbolic link", ".link.offshoot-0123456789ab", func(p string) error { return os.Symlink("README.md", p) }, false},
		{"a directory", ".dir.offshoot-0123456789ab", func(p string) error { return os.Mkdir(p, 0o755) }, false},
	}
	for _, tc := range cases {
		require.NoError(t, tc.plant(filepath.Join(repo, filepath.FromSlash(tc.path))), tc.name)
	}
	w, err := vfs.PlanWriteBack(s.Snapshot(), repo)
	require.NoError(t, err)
	require.NoError(t, w.Apply())
	assert.Equal(t, "0 created, 2 edited, 0 deleted; removed 3 temporary files an interrupted write-back left (.README.md.offshoot-0123456789ab, .gone.txt.offshoot-abcdefabcdef, docs/.a.md.offshoot-000000000000)", w.Summary())
	for _, tc := range cases {
		_, err := os.Lstat(filepath.Join(repo, filepath.FromSlash(tc.path)))
		if tc.removed {
			assert.ErrorIs(t, err, os.ErrNotExist, tc.name)
		} else {
			assert.NoError(t, err, tc.name)
		}
	}
	data, err := os.ReadFile(filepath.Join(repo, "README.md"))
	require.NoError(t, err)
	assert.Equal(t, "new\n", string(data), "the link's target is written, never removed")
}

// plantFile writes a leftover's full content at p.
func plantFile(p string) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, []byte("the whole new content\n"), 0o600)
}
