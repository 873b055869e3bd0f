package vfs_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/tools/vfs"
)

// replaceHost is the directory of the cases where a file becomes a
// directory, or a directory a file: conf is a file, lib a directory.
var replaceHost = fstest.MapFS{
	"repo/conf":         {Data: []byte("old conf\n")},
	"repo/lib/a.go":     {Data: []byte("package lib\n")},
	"repo/lib/sub/b.go": {Data: []byte("package sub\n")},
	"repo/keep.md":      {Data: []byte("keep\n")},
}

// A file that becomes a directory, or a directory that becomes a file, is
// written whole — the old path removed and the new content written, both
// in the diff and the summary — or left whole, the disk untouched.
func TestWriteBackReplacesFilesAndDirectories(t *testing.T) {
	toDir := []edit{{Path: "conf", Delete: true}, {Path: "conf/app.yaml", Content: "app: 1\n"}, {Path: "conf/db/x.yaml", Content: "x: 1\n"}}
	toFile := []edit{{Path: "lib", Delete: true}, {Path: "lib", Content: "now a file\n"}}
	for _, tc := range []struct {
		name      string
		edits     []edit
		onHost    func(t *testing.T, repo string) // after the mount, before the plan
		afterPlan func(t *testing.T, repo string) // between the plan and Apply
		want      map[string]string               // the repo's files after Apply; nil: unchanged
		left      map[string]string               // path → what its Left says
		summary   string                          // after Apply
		diff      []string                        // in the plan's diff
	}{
		{
			name:    "a file becomes a directory",
			edits:   toDir,
			want:    map[string]string{"conf/app.yaml": "app: 1\n", "conf/db/x.yaml": "x: 1\n", "lib/a.go": "package lib\n", "lib/sub/b.go": "package sub\n", "keep.md": "keep\n"},
			summary: "2 created, 0 edited, 1 deleted; conf becomes a directory",
			diff:    []string{"--- a/conf\n+++ /dev/null\n@@ -1 +0,0 @@\n-old conf\n", "--- /dev/null\n+++ b/conf/app.yaml\n", "+++ b/conf/db/x.yaml\n"},
		},
		{
			name:    "a directory becomes a file",
			edits:   toFile,
			want:    map[string]string{"conf": "old conf\n", "lib": "now a file\n", "keep.md": "keep\n"},
			summary: "1 created, 0 edited, 2 deleted; lib becomes a file",
			diff:    []string{"--- /dev/null\n+++ b/lib\n@@ -0,0 +1 @@\n+now a file\n", "--- a/lib/a.go\n+++ /dev/null\n", "--- a/lib/sub/b.go\n+++ /dev/null\n"},
		},
		{
			name:   "a file becomes a directory, but the file changed on disk",
			edits:  toDir,
			onHost: func(t *testing.T, repo string) { writeHost(t, repo, "conf", "theirs\n") },
			left: map[string]string{
				"conf":           "changed on disk since it was mounted",
				"conf/app.yaml":  "left with the rest of conf, a file that becomes a directory",
				"conf/db/x.yaml": "left with the rest of conf, a file that becomes a directory",
			},
		},
		{
			name:  "a file becomes a directory, but a file in it is never written",
			edits: append(toDir, edit{Path: "conf/.env", Content: "TOKEN=1\n"}),
			left: map[string]string{
				"conf":          "left with the rest of conf, a file that becomes a directory",
				"conf/.env":     "excluded",
				"conf/app.yaml": "left with the rest of conf, a file that becomes a directory",
			},
		},
		{
			name:   "a directory becomes a file, but a file in it changed on disk",
			edits:  toFile,
			onHost: func(t *testing.T, repo string) { writeHost(t, repo, "lib/sub/b.go", "theirs\n") },
			left: map[string]string{
				"lib":          "left with the rest of lib, a directory that becomes a file",
				"lib/a.go":     "left with the rest of lib, a directory that becomes a file",
				"lib/sub/b.go": "changed on disk since it was mounted",
			},
		},
		{
			name:   "a directory becomes a file, but it holds a file that was not mounted",
			edits:  toFile,
			onHost: func(t *testing.T, repo string) { writeHost(t, repo, "lib/sub/new.txt", "new\n") },
			left: map[string]string{
				"lib":      "lib is a directory on disk that holds lib/sub/new.txt, which the session did not delete",
				"lib/a.go": "left with the rest of lib, a directory that becomes a file",
			},
		},
		{
			name:  "a directory becomes a file, but it holds a link",
			edits: toFile,
			onHost: func(t *testing.T, repo string) {
				require.NoError(t, os.Symlink("../keep.md", filepath.Join(repo, "lib", "link.md")))
			},
			left: map[string]string{"lib": "lib is a directory on disk that holds lib/link.md, which the session did not delete"},
		},
		{
			name:      "a file becomes a directory, and the file changes on disk after the plan",
			edits:     toDir,
			afterPlan: func(t *testing.T, repo string) { writeHost(t, repo, "conf", "theirs\n") },
			left: map[string]string{
				"conf":          "changed on disk since it was mounted",
				"conf/app.yaml": "left with the rest of conf, a file that becomes a directory",
			},
		},
		{
			name:      "a directory becomes a file, and a file appears in it after the plan",
			edits:     toFile,
			afterPlan: func(t *testing.T, repo string) { writeHost(t, repo, "lib/new.txt", "new\n") },
			left: map[string]string{
				"lib":          "lib is a directory on disk that holds lib/new.txt, which the session did not delete",
				"lib/sub/b.go": "left with the rest of lib, a directory that becomes a file",
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := t.TempDir()
			materialize(t, base, replaceHost)
			repo := filepath.Join(base, "repo")
			s := mounted(t, base, "")
			for _, e := range tc.edits {
				require.NoError(t, s.Dispatch(context.Background(), e.event()), "%+v", e)
			}
			if tc.onHost != nil {
				tc.onHost(t, repo)
			}
			w, err := vfs.PlanWriteBack(s.Snapshot(), repo)
			require.NoError(t, err)
			diff := w.Diff()
			for _, d := range tc.diff {
				assert.Contains(t, diff, d)
			}
			if tc.afterPlan != nil {
				tc.afterPlan(t, repo)
			}
			before := hostFiles(t, repo)
			err = w.Apply()
			for p, reason := range tc.left {
				assert.Contains(t, change(t, w, p).Left, reason, p)
			}
			if tc.want == nil {
				require.Error(t, err)
				assert.Len(t, w.Left(), len(w.Changes), "left whole")
				assert.Equal(t, before, hostFiles(t, repo), "the disk is untouched")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.summary, w.Summary())
			assert.Equal(t, tc.want, hostFiles(t, repo))
		})
	}
}

// A replacement applied once is on disk the second time: nothing is left,
// nothing written again.
func TestWriteBackReplacementTwice(t *testing.T) {
	base := t.TempDir()
	materialize(t, base, replaceHost)
	repo := filepath.Join(base, "repo")
	s := mounted(t, base, "")
	for _, e := range []edit{{Path: "conf", Delete: true}, {Path: "conf/app.yaml", Content: "app: 1\n"}, {Path: "lib", Delete: true}, {Path: "lib", Content: "now a file\n"}} {
		require.NoError(t, s.Dispatch(context.Background(), e.event()))
	}
	first, err := vfs.PlanWriteBack(s.Snapshot(), repo)
	require.NoError(t, err)
	require.NoError(t, first.Apply())
	assert.Equal(t, "2 created, 0 edited, 3 deleted; conf becomes a directory, lib becomes a file", first.Summary())
	second, err := vfs.PlanWriteBack(s.Snapshot(), repo)
	require.NoError(t, err)
	assert.Empty(t, second.Left())
	assert.Equal(t, "0 created, 0 edited, 0 deleted, 5 already on disk", second.Summary())
	require.NoError(t, second.Apply())
	assert.Equal(t, map[string]string{"conf/app.yaml": "app: 1\n", "lib": "now a file\n", "keep.md": "keep\n"}, hostFiles(t, repo))
}

// Replacements are independent: one left leaves the other to be written,
// and one nested in a directory is its own.
func TestWriteBackReplacementsAreIndependent(t *testing.T) {
	base := t.TempDir()
	materialize(t, base, replaceHost)
	repo := filepath.Join(base, "repo")
	s := mounted(t, base, "")
	for _, e := range []edit{
		{Path: "conf", Delete: true}, {Path: "conf/app.yaml", Content: "app: 1\n"},
		{Path: "lib/sub", Delete: true}, {Path: "lib/sub", Content: "now a file\n"},
		{Path: "keep.md", Delete: true}, {Path: "keep.md/x", Content: "x\n"},
	} {
		require.NoError(t, s.Dispatch(context.Background(), e.event()))
	}
	writeHost(t, repo, "keep.md", "theirs\n")
	w, err := vfs.PlanWriteBack(s.Snapshot(), repo)
	require.NoError(t, err)
	require.Error(t, w.Apply())
	assert.Equal(t, "2 created, 0 edited, 2 deleted; conf becomes a directory, lib/sub becomes a file; 2 left: keep.md (changed on disk since it was mounted), keep.md/x (left with the rest of keep.md, a file that becomes a directory)", w.Summary())
	assert.Equal(t, map[string]string{"conf/app.yaml": "app: 1\n", "lib/a.go": "package lib\n", "lib/sub": "now a file\n", "keep.md": "theirs\n"}, hostFiles(t, repo))
}

// A write-back killed midway through a replacement leaves part of the old
// removed and the new not written; the next one writes the rest.
func TestWriteBackReplacementAfterAKill(t *testing.T) {
	for _, tc := range []struct {
		name    string
		edits   []edit
		killed  func(t *testing.T, repo string) // what the killed write-back did
		want    map[string]string
		summary string
	}{
		{
			name:    "the file removed, the directory not written",
			edits:   []edit{{Path: "conf", Delete: true}, {Path: "conf/app.yaml", Content: "app: 1\n"}},
			killed:  func(t *testing.T, repo string) { require.NoError(t, os.Remove(filepath.Join(repo, "conf"))) },
			want:    map[string]string{"conf/app.yaml": "app: 1\n", "lib/a.go": "package lib\n", "lib/sub/b.go": "package sub\n", "keep.md": "keep\n"},
			summary: "1 created, 0 edited, 0 deleted, 1 already on disk; conf becomes a directory",
		},
		{
			name:  "one file of the directory removed",
			edits: []edit{{Path: "lib", Delete: true}, {Path: "lib", Content: "now a file\n"}},
			killed: func(t *testing.T, repo string) {
				require.NoError(t, os.Remove(filepath.Join(repo, "lib", "a.go")))
			},
			want:    map[string]string{"conf": "old conf\n", "lib": "now a file\n", "keep.md": "keep\n"},
			summary: "1 created, 0 edited, 1 deleted, 1 already on disk; lib becomes a file",
		},
		{
			name:  "its files removed, its directories not",
			edits: []edit{{Path: "lib", Delete: true}, {Path: "lib", Content: "now a file\n"}},
			killed: func(t *testing.T, repo string) {
				require.NoError(t, os.Remove(filepath.Join(repo, "lib", "a.go")))
				require.NoError(t, os.Remove(filepath.Join(repo, "lib", "sub", "b.go")))
			},
			want:    map[string]string{"conf": "old conf\n", "lib": "now a file\n", "keep.md": "keep\n"},
			summary: "1 created, 0 edited, 0 deleted, 2 already on disk; lib becomes a file",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := t.TempDir()
			materialize(t, base, replaceHost)
			repo := filepath.Join(base, "repo")
			s := mounted(t, base, "")
			for _, e := range tc.edits {
				require.NoError(t, s.Dispatch(context.Background(), e.event()))
			}
			tc.killed(t, repo)
			w, err := vfs.PlanWriteBack(s.Snapshot(), repo)
			require.NoError(t, err)
			require.NoError(t, w.Apply())
			assert.Equal(t, tc.summary, w.Summary())
			assert.Equal(t, tc.want, hostFiles(t, repo))
		})
	}
}

// A replacement with a file that configures what runs next waits whole
// for it to be named; once named, the replacement is written whole.
func TestWriteBackReplacementWaitsForItsConfiguration(t *testing.T) {
	for _, named := range []bool{false, true} {
		base := t.TempDir()
		materialize(t, base, fstest.MapFS{"repo/.vscode": {Data: []byte("old\n")}, "repo/keep.md": {Data: []byte("keep\n")}})
		repo := filepath.Join(base, "repo")
		s := mounted(t, base, "")
		for _, e := range []edit{
			{Path: ".vscode", Delete: true},
			{Path: ".vscode/notes.md", Content: "notes\n"},
			{Path: ".vscode/tasks.json", Content: "{}\n"},
		} {
			require.NoError(t, s.Dispatch(context.Background(), e.event()))
		}
		w, err := vfs.PlanWriteBack(s.Snapshot(), repo)
		require.NoError(t, err)
		require.Len(t, w.Configuration(), 1)
		if !named {
			require.Error(t, w.Apply())
			assert.Equal(t, map[string]string{".vscode": "old\n", "keep.md": "keep\n"}, hostFiles(t, repo))
			continue
		}
		require.NoError(t, w.Allow(".vscode/tasks.json"))
		require.NoError(t, w.Apply())
		assert.Equal(t, map[string]string{".vscode/notes.md": "notes\n", ".vscode/tasks.json": "{}\n", "keep.md": "keep\n"}, hostFiles(t, repo))
	}
}
