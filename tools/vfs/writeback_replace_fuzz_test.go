package vfs_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/offshoot-dev/offshoot/tools/vfs"
)

// FuzzWriteBackReplacement writes and deletes, in a session, files over
// a few nested paths — so that files become directories and directories
// files — changes the disk, then applies the write-back, and checks that
// a change is on disk unless it is left, and that a change at a path is
// never left while a change at a directory of it, or below it, is written:
// a path's kind changes whole or not at all.
func FuzzWriteBackReplacement(f *testing.F) {
	f.Add([]byte{0, 1, 4, 0, 0})                // a file becomes a directory
	f.Add([]byte{1, 1, 0, 0, 0})                // a directory becomes a file
	f.Add([]byte{1, 1, 0, 0, 0, 1})             // ... with a file changed on disk
	f.Add([]byte{2, 1, 1, 0, 1, 4, 2})          // nested, a file added on disk
	f.Add([]byte{0, 1, 4, 0, 0, 0, 2, 3, 1, 5}) // more
	paths := []string{"a", "a/b", "a/b/c", "a/d", "e"}
	hosts := []fstest.MapFS{
		{"repo/a": {Data: []byte("a\n")}, "repo/e": {Data: []byte("e\n")}},
		{"repo/a/b": {Data: []byte("b\n")}, "repo/a/d": {Data: []byte("d\n")}, "repo/e": {Data: []byte("e\n")}},
		{"repo/a/b/c": {Data: []byte("c\n")}, "repo/a/d": {Data: []byte("d\n")}},
	}
	f.Fuzz(func(t *testing.T, ops []byte) {
		if len(ops) < 2 || len(ops) > 40 {
			return
		}
		base := t.TempDir()
		materialize(t, base, hosts[int(ops[0])%len(hosts)])
		repo := filepath.Join(base, "repo")
		s := mounted(t, base, "")
		n := int(ops[1]) % 8 // how many edits
		ops = ops[2:]
		for i := 0; i+1 < len(ops) && i/2 < n; i += 2 {
			e := edit{Path: paths[int(ops[i+1])%len(paths)], Delete: ops[i]%2 == 1, Content: "v" + string(rune('0'+ops[i]%5)) + "\n"}
			_ = s.Dispatch(context.Background(), e.event()) // a file where a directory is: refused
		}
		if len(ops) > 2*n {
			// The disk changes since the mount: a file edited, or one added.
			p := filepath.Join(repo, filepath.FromSlash(paths[int(ops[2*n])%len(paths)]))
			if info, err := os.Stat(filepath.Dir(p)); err == nil && info.IsDir() {
				if info, err := os.Stat(p); err != nil || !info.IsDir() {
					_ = os.WriteFile(p, []byte("theirs\n"), 0o644)
				}
			}
		}
		w, err := vfs.PlanWriteBack(s.Snapshot(), repo)
		if err != nil {
			t.Fatal(err)
		}
		_ = w.Apply()
		written := map[string]bool{}
		for _, c := range w.Changes {
			if c.Left != "" {
				continue
			}
			written[c.Path] = true
			data, err := os.ReadFile(filepath.Join(repo, filepath.FromSlash(c.Path)))
			switch {
			case c.Op == "deleted" && err == nil:
				t.Fatalf("%s: deleted, not left, but on disk: %+v", c.Path, w.Changes)
			case c.Op != "deleted" && (err != nil || string(data) != c.Content):
				t.Fatalf("%s: %s, not left, but not on disk (%v): %+v", c.Path, c.Op, err, w.Changes)
			}
		}
		for _, c := range w.Changes {
			if c.Left == "" {
				continue
			}
			for p := range written {
				if strings.HasPrefix(p, c.Path+"/") || strings.HasPrefix(c.Path, p+"/") {
					t.Fatalf("%s is left (%s) but %s is written: %+v", c.Path, c.Left, p, w.Changes)
				}
			}
		}
	})
}
