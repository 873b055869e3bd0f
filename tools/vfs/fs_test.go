package vfs_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/tools/vfs"
)

func TestFSPassesTestFS(t *testing.T) {
	h := newHarness(t)
	h.write(tree)
	h.clock.Advance(time.Minute)
	h.write(map[string]string{"docs/late.md": "late\n"})
	fsys := vfs.FS(h.s)
	require.NoError(t, fstest.TestFS(fsys, paths(vfs.Files(h.s))...))

	empty, err := session.New()
	require.NoError(t, err)
	defer empty.Close()
	require.NoError(t, fstest.TestFS(vfs.FS(empty)))
}

func TestFSView(t *testing.T) {
	h := newHarness(t)
	h.write(tree)
	h.clock.Advance(time.Minute)
	h.write(map[string]string{"docs/late.md": "late\n"})
	fsys := vfs.FS(h.s)

	data, err := fs.ReadFile(fsys, "docs/guide.md")
	require.NoError(t, err)
	assert.Equal(t, "# Guide\nTODO first\n", string(data))

	info, err := fs.Stat(fsys, "docs")
	require.NoError(t, err)
	assert.True(t, info.IsDir())
	assert.Equal(t, fs.ModeDir|0o555, info.Mode())
	assert.Equal(t, stamp(t0.Add(time.Minute)), info.ModTime(), "a directory's time is its latest file's")

	info, err = fs.Stat(fsys, "a.txt")
	require.NoError(t, err)
	assert.Equal(t, fs.FileMode(0o444), info.Mode())
	assert.Equal(t, int64(6), info.Size())

	entries, err := fs.ReadDir(fsys, "docs")
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	assert.Equal(t, []string{"guide", "guide.md", "late.md", "zeta.md"}, names)

	matches, err := fs.Glob(fsys, "docs/*.md")
	require.NoError(t, err)
	assert.Equal(t, []string{"docs/guide.md", "docs/late.md", "docs/zeta.md"}, matches)

	for _, tc := range []struct {
		name string
		want error
	}{
		{"missing.md", fs.ErrNotExist},
		{"/a.txt", fs.ErrInvalid},
		{"docs/../a.txt", fs.ErrInvalid},
		{"a.txt/inner", fs.ErrNotExist},
	} {
		_, err := fsys.Open(tc.name)
		assert.ErrorIs(t, err, tc.want, tc.name)
	}
	_, err = fs.ReadFile(fsys, "docs")
	assert.Error(t, err)
	_, err = fs.ReadDir(fsys, "a.txt")
	assert.Error(t, err)

	f, err := fsys.Open("docs")
	require.NoError(t, err)
	_, err = f.Read(make([]byte, 1))
	assert.Error(t, err, "a directory cannot be read")
	require.NoError(t, f.Close())
}

// The view holds the files of the moment it was taken.
func TestFSIsAFrozenView(t *testing.T) {
	h := newHarness(t)
	h.write(map[string]string{"a.md": "before"})
	fsys := vfs.FS(h.s)
	ok[vfs.WriteResult](h, "edit_file", `{"file_path": "a.md", "old_string": "before", "new_string": "after"}`)
	h.write(map[string]string{"b.md": "new"})
	data, err := fs.ReadFile(fsys, "a.md")
	require.NoError(t, err)
	assert.Equal(t, "before", string(data))
	_, err = fs.Stat(fsys, "b.md")
	assert.ErrorIs(t, err, fs.ErrNotExist)
	data, err = fs.ReadFile(vfs.FS(h.s), "a.md")
	require.NoError(t, err)
	assert.Equal(t, "after", string(data))
}

func TestExport(t *testing.T) {
	h := newHarness(t)
	h.write(tree)
	dir := filepath.Join(t.TempDir(), "out")
	require.NoError(t, vfs.Export(h.s.Snapshot(), dir))
	var got []string
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		got = append(got, filepath.ToSlash(rel))
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		assert.Equal(t, tree[filepath.ToSlash(rel)], string(data))
		return nil
	}))
	assert.ElementsMatch(t, paths(vfs.Files(h.s)), got)

	// Exporting again overwrites; other files stay.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "extra.txt"), []byte("keep"), 0o644))
	ok[vfs.WriteResult](h, "edit_file", `{"file_path": "a.txt", "old_string": "alpha", "new_string": "ALPHA"}`)
	require.NoError(t, vfs.Export(h.s.Snapshot(), dir))
	data, err := os.ReadFile(filepath.Join(dir, "a.txt"))
	require.NoError(t, err)
	assert.Equal(t, "ALPHA\n", string(data))
	_, err = os.Stat(filepath.Join(dir, "extra.txt"))
	assert.NoError(t, err)
}

// A symlink planted in the target directory cannot lead a write outside.
func TestExportNeverEscapes(t *testing.T) {
	base := t.TempDir()
	outside := filepath.Join(base, "outside")
	dir := filepath.Join(base, "out")
	require.NoError(t, os.MkdirAll(outside, 0o755))
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.Symlink(outside, filepath.Join(dir, "docs")))
	require.NoError(t, os.Symlink(filepath.Join(outside, "victim.txt"), filepath.Join(dir, "a.txt")))

	for _, files := range []map[string]string{
		{"docs/guide.md": "through a directory link"},
		{"a.txt": "through a file link"},
	} {
		h := newHarness(t)
		h.write(files)
		err := vfs.Export(h.s.Snapshot(), dir)
		require.Error(t, err)
		entries, err := os.ReadDir(outside)
		require.NoError(t, err)
		assert.Empty(t, entries, "nothing was written outside the export directory")
	}
}

// A snapshot read from JSON cannot smuggle in a path that would escape:
// the table refuses it while decoding.
func TestSnapshotJSONWithEscapingPathIsRefused(t *testing.T) {
	h := newHarness(t)
	h.write(map[string]string{"docs/a.md": "a"})
	data, err := session.MarshalSnapshot(h.s.Snapshot(), h.s.Registry())
	require.NoError(t, err)
	for _, bad := range []string{"../escape.md", "/abs.md", "docs/./a.md", "docs//a.md"} {
		tampered := []byte(strings.Replace(string(data), `"path":"docs/a.md"`, `"path":"`+bad+`"`, 1))
		_, err := session.UnmarshalSnapshot(tampered, h.s.Registry())
		require.Error(t, err, bad)
	}
	var table vfs.Table
	assert.Error(t, table.UnmarshalJSON([]byte(`{"files":[{"path":"a","content":"x","version":1,"created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z"},{"path":"a/b","content":"y","version":1,"created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z"}]}`)), "a file cannot also be a directory")
	assert.Error(t, table.UnmarshalJSON([]byte(`{"files":[{"path":"a","content":"x","version":0,"created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z"}]}`)), "versions start at 1")
	assert.Error(t, table.UnmarshalJSON([]byte(`{"files":[],"extra":1}`)), "unknown members")
}
