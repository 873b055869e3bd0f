package vfs_test

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/bus"
	"github.com/offshoot-dev/offshoot/serde"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/tools/vfs"
)

// materialize writes fsys under dir: a file whose mode has ModeSymlink
// becomes a symbolic link to its Data, one with ModeDir a directory;
// other files keep their permissions (0o644 when none are given).
func materialize(t *testing.T, dir string, fsys fstest.MapFS) {
	t.Helper()
	for name, f := range fsys {
		p := filepath.Join(dir, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		switch {
		case f.Mode&fs.ModeSymlink != 0:
			require.NoError(t, os.Symlink(string(f.Data), p))
		case f.Mode.IsDir():
			require.NoError(t, os.MkdirAll(p, 0o755))
		default:
			perm := f.Mode.Perm()
			if perm == 0 {
				perm = 0o644
			}
			require.NoError(t, os.WriteFile(p, f.Data, perm))
			require.NoError(t, os.Chmod(p, perm))
		}
	}
}

// hostFiles reads dir back: regular files by content, symbolic links as
// "-> TARGET", without walking into links.
func hostFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		require.NoError(t, err)
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			require.NoError(t, err)
			out[rel] = "-> " + target
		case d.Type().IsRegular():
			data, err := os.ReadFile(p)
			require.NoError(t, err)
			out[rel] = string(data)
		}
		return nil
	}))
	return out
}

// mounted returns a session with the directory base/repo mounted at
// mountPath, as the VFS tools seed it.
func mounted(t *testing.T, base, mountPath string) *session.Session {
	t.Helper()
	set, err := vfs.Tools(vfs.Options{
		Mounts:       []vfs.Mount{{HostPath: filepath.Join(base, "repo"), MountPath: mountPath, Exclude: []string{".git", "**/.git", ".offshoot", "**/.offshoot"}, GitIgnore: true}},
		AllowedRoots: []string{base},
	})
	require.NoError(t, err)
	s, err := session.New(session.WithBus(bus.New(bus.WithClock(newClock().Now))))
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	require.NoError(t, set.Install(context.Background(), s))
	return s
}

// edit is what a session does to its files: write a file (Content) or
// remove a path (Delete).
type edit struct {
	Path, Content string
	Delete        bool
}

func (e edit) event() any {
	if e.Delete {
		return vfs.FileDeleted{Path: e.Path}
	}
	return vfs.FileWritten{Path: e.Path, Content: e.Content}
}

// host is the directory every write-back case starts from, mounted as
// repo under an allowed root that also holds outside/.
var host = fstest.MapFS{
	"outside/secret.txt":  {Data: []byte("outside\n")},
	"repo/README.md":      {Data: []byte("# Repo\n\nHello.\n")},
	"repo/run.sh":         {Data: []byte("#!/bin/sh\necho hi\n"), Mode: 0o755},
	"repo/private.txt":    {Data: []byte("mine\n"), Mode: 0o600},
	"repo/docs/a.md":      {Data: []byte("a\n")},
	"repo/docs/img.bin":   {Data: []byte("\x00\x01binary")},
	"repo/.git/config":    {Data: []byte("[core]\n")},
	"repo/.env":           {Data: []byte("TOKEN=1\n")},
	"repo/.gitignore":     {Data: []byte("build/\n")},
	"repo/build/out.txt":  {Data: []byte("built\n")},
	"repo/alias.md":       {Data: []byte("README.md"), Mode: fs.ModeSymlink},
	"repo/outlink":        {Data: []byte("../outside"), Mode: fs.ModeSymlink},
	"repo/data":           {Data: []byte("\x00data")},
	"repo/src/main.go":    {Data: []byte("package main\n")},
	"repo/src/.offshoot/": {Mode: fs.ModeDir},
}

func TestWriteBack(t *testing.T) {
	for _, tc := range []struct {
		name      string
		edits     []edit
		onHost    func(t *testing.T, repo string) // after the mount, before the plan
		mountPath string
		want      map[string]string // files of repo that change ("" for removed)
		left      map[string]string // path → what its Left says
		summary   string
	}{
		{
			name:    "created",
			edits:   []edit{{Path: "notes/todo.md", Content: "- ship\n"}},
			want:    map[string]string{"notes/todo.md": "- ship\n"},
			summary: "1 created, 0 edited, 0 deleted",
		},
		{
			name:    "edited",
			edits:   []edit{{Path: "README.md", Content: "# Repo\n\nHello, world.\n"}, {Path: "run.sh", Content: "#!/bin/sh\necho bye\n"}},
			want:    map[string]string{"README.md": "# Repo\n\nHello, world.\n", "run.sh": "#!/bin/sh\necho bye\n"},
			summary: "0 created, 2 edited, 0 deleted",
		},
		{
			name:    "edited back to what was mounted is no change",
			edits:   []edit{{Path: "README.md", Content: "x"}, {Path: "README.md", Content: "# Repo\n\nHello.\n"}},
			summary: "no changes",
		},
		{
			name:    "deleted",
			edits:   []edit{{Path: "docs", Delete: true}},
			want:    map[string]string{"docs/a.md": ""}, // docs/img.bin, binary and never mounted, stays
			summary: "0 created, 0 edited, 1 deleted",
		},
		{
			name:    "edited on disk since the mount: a conflict",
			edits:   []edit{{Path: "README.md", Content: "mine\n"}, {Path: "notes.md", Content: "n\n"}},
			onHost:  func(t *testing.T, repo string) { writeHost(t, repo, "README.md", "theirs\n") },
			want:    map[string]string{"README.md": "theirs\n", "notes.md": "n\n"},
			left:    map[string]string{"README.md": "changed on disk since it was mounted"},
			summary: "1 created, 0 edited, 0 deleted; 1 left: README.md (changed on disk since it was mounted)",
		},
		{
			name:   "deleted, but changed on disk since the mount: a conflict",
			edits:  []edit{{Path: "docs/a.md", Delete: true}},
			onHost: func(t *testing.T, repo string) { writeHost(t, repo, "docs/a.md", "b\n") },
			want:   map[string]string{"docs/a.md": "b\n"},
			left:   map[string]string{"docs/a.md": "changed on disk since it was mounted"},
		},
		{
			name:   "edited, but deleted on disk since the mount",
			edits:  []edit{{Path: "docs/a.md", Content: "c\n"}},
			onHost: func(t *testing.T, repo string) { require.NoError(t, os.Remove(filepath.Join(repo, "docs", "a.md"))) },
			want:   map[string]string{"docs/a.md": ""},
			left:   map[string]string{"docs/a.md": "deleted on disk since it was mounted"},
		},
		{
			name:  "created where an unmounted file is: a conflict",
			edits: []edit{{Path: "build/out.txt", Content: "mine\n"}, {Path: "docs/img.bin", Content: "text\n"}},
			left:  map[string]string{"build/out.txt": "exists on disk and was not mounted", "docs/img.bin": "exists on disk and was not mounted"},
		},
		{
			name:    "created with the content already on disk",
			edits:   []edit{{Path: "build/out.txt", Content: "built\n"}},
			summary: "0 created, 0 edited, 0 deleted, 1 already on disk",
		},
		{
			name:  "excluded paths are never written",
			edits: []edit{{Path: ".env", Content: "TOKEN=2\n"}, {Path: "app/.env.local", Content: "X=1\n"}, {Path: ".git/config", Content: "x"}, {Path: "src/.offshoot/state", Content: "x"}, {Path: "keys/id_rsa", Content: "x"}, {Path: "server.pem", Content: "x"}},
			left: map[string]string{
				".env": "excluded", "app/.env.local": "excluded", ".git/config": "excluded",
				"src/.offshoot/state": "excluded", "keys/id_rsa": "excluded", "server.pem": "excluded",
			},
		},
		{
			name:  "a symbolic link is not written through",
			edits: []edit{{Path: "alias.md", Content: "through the link\n"}},
			left:  map[string]string{"alias.md": "a symbolic link on disk"},
		},
		{
			name:  "a symlinked directory is not followed out",
			edits: []edit{{Path: "outlink/secret.txt", Content: "overwritten\n"}, {Path: "outlink/new.txt", Content: "new\n"}},
			left:  map[string]string{"outlink/secret.txt": "outlink is a symbolic link on disk", "outlink/new.txt": "outlink is a symbolic link on disk"},
		},
		{
			name: "a symlinked directory made after the mount is not followed",
			onHost: func(t *testing.T, repo string) {
				require.NoError(t, os.RemoveAll(filepath.Join(repo, "docs")))
				require.NoError(t, os.Symlink("../outside", filepath.Join(repo, "docs")))
			},
			edits: []edit{{Path: "docs/a.md", Content: "x\n"}, {Path: "docs/secret.txt", Content: "overwritten\n"}},
			want:  map[string]string{"docs/a.md": ""},
			left:  map[string]string{"docs/a.md": "docs is a symbolic link on disk", "docs/secret.txt": "docs is a symbolic link on disk"},
		},
		{
			name:  "a file where a directory is needed",
			edits: []edit{{Path: "data/x.txt", Content: "x\n"}},
			left:  map[string]string{"data/x.txt": "data is a file on disk"},
		},
		{
			name:      "outside the mounted directory",
			mountPath: "repo",
			edits:     []edit{{Path: "notes.md", Content: "x\n"}, {Path: "repo/notes.md", Content: "y\n"}},
			left:      map[string]string{"notes.md": "outside the mounted directories", "repo/notes.md": ""},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := t.TempDir()
			materialize(t, base, host)
			repo := filepath.Join(base, "repo")
			s := mounted(t, base, tc.mountPath)
			for _, e := range tc.edits {
				require.NoError(t, s.Dispatch(context.Background(), e.event()), "%+v", e)
			}
			if tc.onHost != nil {
				tc.onHost(t, repo)
			}
			before := hostFiles(t, base)
			dir := repo
			if tc.mountPath != "" {
				dir = base
			}
			w, err := vfs.PlanWriteBack(s.Snapshot(), dir)
			require.NoError(t, err)
			assert.Equal(t, before, hostFiles(t, base), "planning wrote something")
			for p, reason := range tc.left {
				c := change(t, w, p)
				if reason == "" {
					assert.Empty(t, c.Left, p)
				} else {
					assert.Contains(t, c.Left, reason, p)
				}
			}
			if tc.summary != "" {
				assert.Equal(t, tc.summary, w.Summary())
			}
			err = w.Apply()
			if len(w.Left()) > 0 {
				require.Error(t, err)
				for _, c := range w.Left() {
					assert.Contains(t, err.Error(), c.Path)
				}
			} else {
				require.NoError(t, err)
			}
			// The host key of a VFS path: relative to base.
			key := func(p string) string {
				if tc.mountPath != "" {
					return p
				}
				return "repo/" + p
			}
			want := before
			for _, c := range w.Changes {
				switch {
				case c.Left != "":
				case c.Op == "deleted":
					delete(want, key(c.Path))
				default:
					want[key(c.Path)] = c.Content
				}
			}
			for p, content := range tc.want {
				if content == "" {
					assert.NotContains(t, want, key(p))
				} else {
					assert.Equal(t, content, want[key(p)], p)
				}
			}
			assert.Equal(t, want, hostFiles(t, base))
		})
	}
}

// change returns the change of w at p.
func change(t *testing.T, w *vfs.WriteBack, p string) vfs.Change {
	t.Helper()
	for _, c := range w.Changes {
		if c.Path == p {
			return c
		}
	}
	require.Failf(t, "no change", "no change at %s in %+v", p, w.Changes)
	return vfs.Change{}
}

// writeHost writes a host file under repo.
func writeHost(t *testing.T, repo, rel, content string) {
	t.Helper()
	require.NoError(t, os.WriteFile(filepath.Join(repo, filepath.FromSlash(rel)), []byte(content), 0o644))
}

// An edit keeps the host file's permissions; a created file gets the
// default ones; no temporary file stays.
func TestWriteBackKeepsModes(t *testing.T) {
	base := t.TempDir()
	materialize(t, base, host)
	repo := filepath.Join(base, "repo")
	s := mounted(t, base, "")
	for _, e := range []edit{{Path: "run.sh", Content: "#!/bin/sh\necho bye\n"}, {Path: "private.txt", Content: "still mine\n"}, {Path: "new/file.txt", Content: "new\n"}} {
		require.NoError(t, s.Dispatch(context.Background(), e.event()))
	}
	w, err := vfs.PlanWriteBack(s.Snapshot(), repo)
	require.NoError(t, err)
	require.NoError(t, w.Apply())
	for p, want := range map[string]fs.FileMode{"run.sh": 0o755, "private.txt": 0o600} {
		info, err := os.Stat(filepath.Join(repo, p))
		require.NoError(t, err)
		assert.Equal(t, want, info.Mode().Perm(), p)
	}
	info, err := os.Stat(filepath.Join(repo, "new", "file.txt"))
	require.NoError(t, err)
	assert.True(t, info.Mode().IsRegular())
	for p := range hostFiles(t, repo) {
		assert.NotContains(t, p, ".offshoot-", "a temporary file stayed")
	}
	assert.ErrorContains(t, w.Apply(), "applied already")

	// Planned again, the changes are all on disk: nothing to write.
	again, err := vfs.PlanWriteBack(s.Snapshot(), repo)
	require.NoError(t, err)
	assert.Equal(t, "0 created, 0 edited, 0 deleted, 3 already on disk", again.Summary())
	assert.Zero(t, again.Pending())
	assert.Empty(t, again.Diff())
	require.NoError(t, again.Apply())
}

// The diff shows each written change as a unified diff, and nothing of
// the changes left.
func TestWriteBackDiff(t *testing.T) {
	base := t.TempDir()
	materialize(t, base, host)
	repo := filepath.Join(base, "repo")
	s := mounted(t, base, "")
	for _, e := range []edit{
		{Path: "README.md", Content: "# Repo\n\nHello, world.\n"},
		{Path: "docs/a.md", Delete: true},
		{Path: "notes.md", Content: "one\ntwo"},
		{Path: ".env", Content: "TOKEN=2\n"},
	} {
		require.NoError(t, s.Dispatch(context.Background(), e.event()))
	}
	w, err := vfs.PlanWriteBack(s.Snapshot(), repo)
	require.NoError(t, err)
	assert.Equal(t, `--- a/README.md
+++ b/README.md
@@ -1,3 +1,3 @@
 # Repo
 
-Hello.
+Hello, world.
--- a/docs/a.md
+++ /dev/null
@@ -1 +0,0 @@
-a
--- /dev/null
+++ b/notes.md
@@ -0,0 +1,2 @@
+one
+two
\ No newline at end of file
`, w.Diff())
	assert.Equal(t, "1 created, 1 edited, 1 deleted; 1 left: .env (excluded: a write-back never writes it)", w.Summary())
}

// The baseline is session state: a snapshot saved and read back, and a
// fork, compare with the files that were mounted, and a fork's changes
// are its own.
func TestWriteBackBaselineTravels(t *testing.T) {
	base := t.TempDir()
	materialize(t, base, host)
	repo := filepath.Join(base, "repo")
	parent := mounted(t, base, "")
	child, err := parent.Fork()
	require.NoError(t, err)
	t.Cleanup(func() { _ = child.Close() })
	require.NoError(t, child.Dispatch(context.Background(), vfs.FileWritten{Path: "README.md", Content: "child\n"}))
	assert.Empty(t, vfs.Changes(parent.Snapshot()))

	data, err := session.MarshalSnapshot(child.Snapshot(), nil)
	require.NoError(t, err)
	reg := serde.NewRegistry()
	require.NoError(t, vfs.Reducers(vfs.Table{}).Name(reg))
	restored, err := session.UnmarshalSnapshot(data, reg)
	require.NoError(t, err)
	changes := vfs.Changes(restored)
	require.Len(t, changes, 1)
	assert.Equal(t, "edited", changes[0].Op)
	w, err := vfs.PlanWriteBack(restored, repo)
	require.NoError(t, err)
	require.NoError(t, w.Apply())
	assert.Equal(t, "child\n", hostFiles(t, repo)["README.md"])
}

// A session whose files were not mounted has created files only, and the
// default secrets are never written.
func TestWriteBackWithoutMounts(t *testing.T) {
	s, err := session.New()
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	require.NoError(t, s.Install(context.Background(), vfs.Reducers(vfs.Table{})))
	for _, e := range []edit{{Path: "a/b.txt", Content: "b\n"}, {Path: "id_ed25519", Content: "key"}} {
		require.NoError(t, s.Dispatch(context.Background(), e.event()))
	}
	dir := t.TempDir()
	w, err := vfs.PlanWriteBack(s.Snapshot(), dir)
	require.NoError(t, err)
	require.ErrorContains(t, w.Apply(), "id_ed25519 (excluded")
	assert.Equal(t, map[string]string{"a/b.txt": "b\n"}, hostFiles(t, dir))
}

// A host file that changes between the plan and the apply is left.
func TestWriteBackChecksAgainWhenApplying(t *testing.T) {
	base := t.TempDir()
	materialize(t, base, host)
	repo := filepath.Join(base, "repo")
	s := mounted(t, base, "")
	require.NoError(t, s.Dispatch(context.Background(), vfs.FileWritten{Path: "README.md", Content: "mine\n"}))
	w, err := vfs.PlanWriteBack(s.Snapshot(), repo)
	require.NoError(t, err)
	require.Empty(t, w.Left())
	writeHost(t, repo, "README.md", "theirs\n")
	require.ErrorContains(t, w.Apply(), "README.md (changed on disk since it was mounted)")
	assert.Equal(t, "theirs\n", hostFiles(t, repo)["README.md"])

	// Planned again, the conflict's diff shows the disk's content against
	// the session's, to merge by hand.
	again, err := vfs.PlanWriteBack(s.Snapshot(), repo)
	require.NoError(t, err)
	assert.Empty(t, again.Diff())
	assert.Equal(t, "--- disk/README.md\n+++ session/README.md\n@@ -1 +1 @@\n-theirs\n+mine\n", again.ConflictDiff())
}

func TestPlanWriteBackNeedsADirectory(t *testing.T) {
	s, err := session.New()
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	_, err = vfs.PlanWriteBack(s.Snapshot(), "")
	require.ErrorContains(t, err, "needs the directory")
	_, err = vfs.PlanWriteBack(s.Snapshot(), filepath.Join(t.TempDir(), "missing"))
	require.ErrorContains(t, err, "give an existing directory")
}

// A baseline read from snapshot JSON is checked: a crafted one is an
// error naming what is wrong.
func TestBaselineFromJSONIsChecked(t *testing.T) {
	base := t.TempDir()
	materialize(t, base, host)
	s := mounted(t, base, "")
	data, err := session.MarshalSnapshot(s.Snapshot(), nil)
	require.NoError(t, err)
	require.Contains(t, string(data), `"offshoot.vfs.Baseline"`)
	hash := `"` + strings.Repeat("a", 64) + `"`
	reg := serde.NewRegistry()
	require.NoError(t, vfs.Reducers(vfs.Table{}).Name(reg))
	for _, tc := range []struct{ name, baseline, want string }{
		{"an escaping path", `{"dirs":[],"files":{"../x":` + hash + `}}`, `file path "../x" is not canonical`},
		{"a short hash", `{"dirs":[],"files":{"a.md":"abc"}}`, `a.md: "abc" is not a SHA-256 in hex`},
		{"a bad directory", `{"dirs":[{"path":"/a/"}],"files":{}}`, `dirs[0]: path "/a/" is not canonical`},
		{"a bad glob", `{"dirs":[{"path":"","exclude":["a[["]}],"files":{}}`, `dirs[0]:`},
		{"an unknown member", `{"dirs":[],"files":{},"extra":1}`, `unknown field "extra"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			crafted := replaceSlice(t, data, "offshoot.vfs.Baseline", `[`+tc.baseline+`]`)
			_, err := session.UnmarshalSnapshot(crafted, reg)
			require.ErrorContains(t, err, tc.want)
		})
	}
}

// replaceSlice returns snapshot JSON with the items of the slice of type
// name replaced by items.
func replaceSlice(t *testing.T, data []byte, name, items string) []byte {
	t.Helper()
	var doc map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(data, &doc))
	var slices []map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(doc["slices"], &slices))
	found := false
	for _, sl := range slices {
		if string(sl["slice_type"]) == `"`+name+`"` {
			sl["items"], found = json.RawMessage(items), true
		}
	}
	require.True(t, found, "no slice %s", name)
	var err error
	doc["slices"], err = json.Marshal(slices)
	require.NoError(t, err)
	out, err := json.Marshal(doc)
	require.NoError(t, err)
	return out
}

// A change added by hand to a planned write-back is held to the same
// rules when applied: an excluded path, a path outside, an unknown op.
func TestWriteBackHoldsChangesAddedByHand(t *testing.T) {
	base := t.TempDir()
	materialize(t, base, host)
	repo := filepath.Join(base, "repo")
	s := mounted(t, base, "")
	w, err := vfs.PlanWriteBack(s.Snapshot(), repo)
	require.NoError(t, err)
	before := hostFiles(t, base)
	w.Changes = append(w.Changes,
		vfs.Change{Path: ".git/config", Op: "created", Content: "x"},
		vfs.Change{Path: "../outside/secret.txt", Op: "created", Content: "x"},
		vfs.Change{Path: "fine.txt", Op: "replaced", Content: "x"},
	)
	err = w.Apply()
	require.Error(t, err)
	assert.Len(t, w.Left(), 3)
	assert.Contains(t, err.Error(), `fine.txt (not a change a write-back makes ("replaced"))`)
	assert.Equal(t, before, hostFiles(t, base))
}
