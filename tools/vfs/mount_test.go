package vfs_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/tools/vfs"
)

// hostTree makes, under a temporary directory:
//
//	outside/secret.txt         a file outside the allowed root
//	root/                      the allowed root
//	  repo/README.md, docs/guide.md, docs/img.bin (not UTF-8),
//	  .git/config, src/main.go, src/main_test.go,
//	  leak.txt -> ../../outside/secret.txt   (leaves the root: skipped)
//	  alias.md -> README.md                   (stays inside: followed)
//	  abs.md -> /…/root/repo/README.md        (absolute, inside: followed)
//	  docslink -> docs                        (a directory link: skipped)
//	  outlink -> ../../outside                (leaves the root)
//	  other/note.txt
//
// and returns the temporary directory.
func hostTree(t *testing.T) string {
	t.Helper()
	base := t.TempDir()
	write := func(rel, content string) {
		p := filepath.Join(base, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
	write("outside/secret.txt", "secret")
	write("root/repo/README.md", "# Repo\n")
	write("root/repo/docs/guide.md", "guide\n")
	write("root/repo/docs/img.bin", "\xff\xfe\x00")
	write("root/repo/.git/config", "[core]\n")
	write("root/repo/src/main.go", "package main\n")
	write("root/repo/src/main_test.go", "package main\n")
	write("root/other/note.txt", "note\n")
	repo := filepath.Join(base, "root", "repo")
	require.NoError(t, os.Symlink(filepath.Join("..", "..", "outside", "secret.txt"), filepath.Join(repo, "leak.txt")))
	require.NoError(t, os.Symlink("README.md", filepath.Join(repo, "alias.md")))
	require.NoError(t, os.Symlink(filepath.Join(repo, "README.md"), filepath.Join(repo, "abs.md")))
	require.NoError(t, os.Symlink("docs", filepath.Join(repo, "docslink")))
	require.NoError(t, os.Symlink(filepath.Join("..", "..", "outside"), filepath.Join(repo, "outlink")))
	mod := time.Date(2026, 1, 2, 3, 4, 5, 678_900_000, time.UTC)
	require.NoError(t, os.Chtimes(filepath.Join(repo, "README.md"), mod, mod))
	return base
}

func TestLoadMounts(t *testing.T) {
	base := hostTree(t)
	root := filepath.Join(base, "root")
	repo := filepath.Join(root, "repo")
	for _, tc := range []struct {
		name   string
		mounts []vfs.Mount
		want   []string
	}{
		{"a whole directory, links that leave the root skipped, .git left out", []vfs.Mount{{HostPath: repo}},
			[]string{"README.md", "abs.md", "alias.md", "docs/guide.md", "src/main.go", "src/main_test.go"}},
		{"under a mount path", []vfs.Mount{{HostPath: repo, MountPath: "/work/repo/", Include: []string{"*.md"}}},
			[]string{"work/repo/README.md", "work/repo/abs.md", "work/repo/alias.md"}},
		{"include at any depth, exclude a directory and a pattern", []vfs.Mount{{HostPath: repo, Include: []string{"**/*.go", "**/*.md", ".git/**"}, Exclude: []string{".git", "**/*_test.go"}}},
			[]string{"README.md", "abs.md", "alias.md", "docs/guide.md", "src/main.go"}},
		{"a single file keeps its base name", []vfs.Mount{{HostPath: filepath.Join(repo, "src", "main.go"), MountPath: "code"}},
			[]string{"code/main.go"}},
		{"the root itself, later mounts replace earlier files", []vfs.Mount{
			{HostPath: root, Include: []string{"other/**"}},
			{HostPath: filepath.Join(root, "other"), MountPath: "other"},
		}, []string{"other/note.txt"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			table, err := vfs.LoadMounts([]string{root}, tc.mounts...)
			require.NoError(t, err)
			assert.Equal(t, tc.want, paths(table))
			for f := range table.All() {
				assert.NotEqual(t, "secret", f.Content, "nothing outside the root is read")
				assert.Equal(t, 1, f.Version)
			}
		})
	}
	table, err := vfs.LoadMounts([]string{root}, vfs.Mount{HostPath: repo})
	require.NoError(t, err)
	readme, _ := table.Get("README.md")
	want := time.Date(2026, 1, 2, 3, 4, 5, 678_000_000, time.UTC)
	assert.Equal(t, vfs.File{Path: "README.md", Content: "# Repo\n", Version: 1, CreatedAt: want, UpdatedAt: want}, readme)
}

func TestLoadMountsRefuses(t *testing.T) {
	base := hostTree(t)
	root := filepath.Join(base, "root")
	repo := filepath.Join(root, "repo")
	for _, tc := range []struct {
		name   string
		roots  []string
		mount  vfs.Mount
		want   string
		isRoot bool
	}{
		{"a host path outside the roots", []string{root}, vfs.Mount{HostPath: filepath.Join(base, "outside")}, "not inside", true},
		{"a host path that is a symlink leading outside the root", []string{root}, vfs.Mount{HostPath: filepath.Join(repo, "outlink")}, "not inside", true},
		{"a host path escaping with ..", []string{repo}, vfs.Mount{HostPath: filepath.Join(repo, "..", "other")}, "not inside", true},
		{"no allowed roots", nil, vfs.Mount{HostPath: repo}, "mounts need allowed roots", false},
		{"a missing host path", []string{root}, vfs.Mount{HostPath: filepath.Join(root, "missing")}, "does not resolve", false},
		{"an empty host path", []string{root}, vfs.Mount{}, "the host path is empty", false},
		{"a missing root", []string{filepath.Join(base, "nope")}, vfs.Mount{HostPath: repo}, "allowed root", false},
		{"over the byte cap", []string{root}, vfs.Mount{HostPath: repo, MaxBytes: 10}, "exceed the mount's cap of 10 bytes", false},
		{"a negative cap", []string{root}, vfs.Mount{HostPath: repo, MaxBytes: -1}, "MaxBytes is -1", false},
		{"a bad mount path", []string{root}, vfs.Mount{HostPath: repo, MountPath: "../x"}, "mount path: invalid path", false},
		{"a bad glob", []string{root}, vfs.Mount{HostPath: repo, Include: []string{"[x"}}, "malformed", false},
		{"a glob too long", []string{root}, vfs.Mount{HostPath: repo, Exclude: []string{strings.Repeat("*", 1001)}}, "exclude: invalid glob pattern", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			table, err := vfs.LoadMounts(tc.roots, tc.mount)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.Equal(t, tc.isRoot, errors.Is(err, vfs.ErrOutsideRoots))
			assert.Equal(t, 0, table.Len())
		})
	}
	_, err := vfs.Tools(vfs.Options{AllowedRoots: []string{root}, Mounts: []vfs.Mount{{HostPath: filepath.Join(repo, "outlink")}}})
	assert.ErrorIs(t, err, vfs.ErrOutsideRoots, "Tools reports mount errors")
}

// An allowed root given through a symlink still confines the mount to
// where the link leads.
func TestLoadMountsRootThroughSymlink(t *testing.T) {
	base := hostTree(t)
	link := filepath.Join(base, "rootlink")
	require.NoError(t, os.Symlink(filepath.Join(base, "root"), link))
	table, err := vfs.LoadMounts([]string{link}, vfs.Mount{HostPath: filepath.Join(link, "other")})
	require.NoError(t, err)
	assert.Equal(t, []string{"note.txt"}, paths(table))
}

func TestMountsSeedSessionsWithoutFiles(t *testing.T) {
	base := hostTree(t)
	root := filepath.Join(base, "root")
	opts := vfs.Options{AllowedRoots: []string{root}, Mounts: []vfs.Mount{{HostPath: filepath.Join(root, "other"), MountPath: "host"}}}
	h := newHarness(t, opts)

	// The files were read when the tools were built: changing the host
	// changes nothing.
	require.NoError(t, os.WriteFile(filepath.Join(root, "other", "note.txt"), []byte("changed"), 0o644))
	got := ok[vfs.ReadResult](h, "read_file", `{"file_path": "host/note.txt"}`)
	assert.Equal(t, "   1 | note", got.Content)

	// Writes go to the session only; installing again does not re-seed.
	ok[vfs.WriteResult](h, "edit_file", `{"file_path": "host/note.txt", "old_string": "note", "new_string": "mine"}`)
	require.NoError(t, h.set.Install(context.Background(), h.s))
	f, _ := vfs.Files(h.s).Get("host/note.txt")
	assert.Equal(t, "mine\n", f.Content)
	data, err := os.ReadFile(filepath.Join(root, "other", "note.txt"))
	require.NoError(t, err)
	assert.Equal(t, "changed", string(data), "the host never sees VFS writes")

	// A second session gets its own copy; a session that already has files
	// keeps them.
	other, err := session.New()
	require.NoError(t, err)
	defer other.Close()
	require.NoError(t, h.set.Install(context.Background(), other))
	g, _ := vfs.Files(other).Get("host/note.txt")
	assert.Equal(t, "note\n", g.Content)

	busy := newHarness(t)
	busy.write(map[string]string{"mine.md": "x"})
	require.NoError(t, h.set.Install(context.Background(), busy.s))
	assert.Equal(t, []string{"mine.md"}, paths(vfs.Files(busy.s)))

	// A fork carries the files; a fresh child (no state) is seeded.
	child, err := h.s.Fork()
	require.NoError(t, err)
	defer child.Close()
	require.NoError(t, h.set.Install(context.Background(), child))
	c, _ := vfs.Files(child).Get("host/note.txt")
	assert.Equal(t, "mine\n", c.Content)
	fresh, err := h.s.Fork(session.Fresh())
	require.NoError(t, err)
	defer fresh.Close()
	require.NoError(t, h.set.Install(context.Background(), fresh))
	fr, _ := vfs.Files(fresh).Get("host/note.txt")
	assert.Equal(t, "note\n", fr.Content)
}

func TestMountSkipsWhatItCannotHold(t *testing.T) {
	base := t.TempDir()
	write := func(name string, data []byte) {
		require.NoError(t, os.WriteFile(filepath.Join(base, name), data, 0o644))
	}
	write("ok.txt", []byte("fine"))
	write("binary.dat", []byte{0xff, 0x00})
	write("huge.txt", []byte(strings.Repeat("x", vfs.MaxContentChars+1)))
	write("caf\u00e9.txt", []byte("non-ASCII name"))
	write("notes..md", []byte("dots"))
	table, err := vfs.LoadMounts([]string{base}, vfs.Mount{HostPath: base})
	require.NoError(t, err)
	assert.Equal(t, []string{"notes..md", "ok.txt"}, paths(table), "dots inside a name are an ordinary name")
}

// The byte cap counts only the files that are copied: skipped files (not
// UTF-8, binary, too long) do not use it up.
func TestMountByteCapCountsOnlyCopiedFiles(t *testing.T) {
	base := t.TempDir()
	write := func(name string, data []byte) {
		require.NoError(t, os.WriteFile(filepath.Join(base, name), data, 0o644))
	}
	write("a.bin", []byte(strings.Repeat("\xff", 1000)))
	write("nul.dat", []byte("valid UTF-8, but binary\x00\x01\x02"))
	write("b.txt", []byte(strings.Repeat("x", vfs.MaxContentChars+1)))
	write("c.txt", []byte("12345678"))
	table, err := vfs.LoadMounts([]string{base}, vfs.Mount{HostPath: base, MaxBytes: 10})
	require.NoError(t, err)
	assert.Equal(t, []string{"c.txt"}, paths(table))

	write("d.txt", []byte("123"))
	_, err = vfs.LoadMounts([]string{base}, vfs.Mount{HostPath: base, MaxBytes: 10})
	assert.ErrorContains(t, err, "the files exceed the mount's cap of 10 bytes at d.txt; narrow Include or Exclude, or raise MaxBytes")
	assert.ErrorIs(t, err, vfs.ErrMountTooLarge)
}

// A file with a NUL byte in its first 8 KiB is binary and is not copied,
// even when it is valid UTF-8; a NUL further on does not make it binary.
func TestMountSkipsBinaryFiles(t *testing.T) {
	base := t.TempDir()
	for name, data := range map[string]string{
		"image.png": "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
		"late.txt":  strings.Repeat("a", 9<<10) + "\x00",
		"notes.md":  "# Notes\n",
	} {
		require.NoError(t, os.WriteFile(filepath.Join(base, name), []byte(data), 0o644))
	}
	table, err := vfs.LoadMounts([]string{base}, vfs.Mount{HostPath: base})
	require.NoError(t, err)
	assert.Equal(t, []string{"late.txt", "notes.md"}, paths(table))
}

// A symlink inside a mount is followed only when its target lies inside
// the mounted directory itself, and Exclude applies to the target too: a
// link cannot expose a sibling of the mount or an excluded file.
func TestMountSymlinksStayInsideTheMount(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "root")
	mnt := filepath.Join(root, "mnt")
	write := func(rel, content string) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
	link := func(target, rel string) {
		require.NoError(t, os.Symlink(target, filepath.Join(mnt, filepath.FromSlash(rel))))
	}
	write("sibling/secret.txt", "sibling secret")
	write("mnt/README.md", "readme")
	write("mnt/.git/config", "git secret")
	write("mnt/private/key.txt", "private key")
	write("mnt/docs/guide.md", "guide")
	link("../sibling/secret.txt", "sibling.txt")           // inside the root, outside the mount
	link(".git/config", "config.txt")                      // into an excluded directory
	link("private/key.txt", "key.txt")                     // to an excluded file
	link("README.md", "alias.md")                          // inside: followed
	link("../README.md", "docs/up.md")                     // inside, from below: followed
	link(filepath.Join(mnt, "docs", "guide.md"), "abs.md") // absolute, inside: followed
	link("docs", "docslink")                               // a directory: skipped
	link("missing.md", "dangling.md")                      // nothing there: skipped

	table, err := vfs.LoadMounts([]string{root}, vfs.Mount{HostPath: mnt, Exclude: []string{".git", "**/key.txt"}})
	require.NoError(t, err)
	assert.Equal(t, []string{"README.md", "abs.md", "alias.md", "docs/guide.md", "docs/up.md"}, paths(table))
	for f := range table.All() {
		assert.NotContains(t, f.Content, "secret", f.Path)
		assert.NotContains(t, f.Content, "key", f.Path)
	}
	alias, _ := table.Get("alias.md")
	assert.Equal(t, "readme", alias.Content)

	// Mounting the root itself makes the sibling part of the mount.
	table, err = vfs.LoadMounts([]string{root}, vfs.Mount{HostPath: root, Include: []string{"mnt/sibling.txt"}})
	require.NoError(t, err)
	sib, _ := table.Get("mnt/sibling.txt")
	assert.Equal(t, "sibling secret", sib.Content)
}
