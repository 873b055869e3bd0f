package vfs_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/tools/vfs"
)

// FuzzWriteBackPath checks, for any path, that the write-back's path
// check accepts only paths local to the directory (relative, no ".."
// segment, no backslash), and that applying a file at it — through a
// symlink to outside the directory if the path says so — writes nothing
// outside the directory, nothing in .git, and nothing through a link.
func FuzzWriteBackPath(f *testing.F) {
	for _, seed := range []string{"a.txt", "../x", "/etc/passwd", "link/x", "link", ".git/config", "a/../../x", `a\..\x`, "dir/.env", "C:/x", "a//b", ".", "..."} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, p string) {
		if rel, ok := vfs.HostPath(p); ok {
			if filepath.IsAbs(rel) || !filepath.IsLocal(rel) || strings.Contains(p, `\`) {
				t.Fatalf("HostPath(%q) = %q: not local", p, rel)
			}
			for _, seg := range strings.Split(p, "/") {
				if seg == ".." || seg == "." || seg == "" {
					t.Fatalf("HostPath(%q) accepted the segment %q", p, seg)
				}
			}
		}
		canon, err := vfs.NormalizePath(p)
		if err != nil {
			return
		}
		base := t.TempDir()
		dir, outside := filepath.Join(base, "dir"), filepath.Join(base, "outside")
		for _, d := range []string{filepath.Join(dir, ".git"), outside} {
			if err := os.MkdirAll(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Symlink("../outside", filepath.Join(dir, "link")); err != nil {
			t.Fatal(err)
		}
		s, err := session.New()
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if err := s.Install(context.Background(), vfs.Reducers(vfs.Table{})); err != nil {
			t.Fatal(err)
		}
		if err := s.Dispatch(context.Background(), vfs.FileWritten{Path: canon, Content: "x"}); err != nil {
			return
		}
		w, err := vfs.PlanWriteBack(s.Snapshot(), dir)
		if err != nil {
			t.Fatal(err)
		}
		_ = w.Apply()
		for _, d := range []string{outside, filepath.Join(dir, ".git")} {
			entries, err := os.ReadDir(d)
			if err != nil || len(entries) > 0 {
				t.Fatalf("writing %q reached %s: %v %v", canon, d, entries, err)
			}
		}
		if target, err := os.Readlink(filepath.Join(dir, "link")); err != nil || target != "../outside" {
			t.Fatalf("writing %q replaced the link: %q %v", canon, target, err)
		}
	})
}

// FuzzBaselineJSON checks that decoding a mount baseline from (untrusted)
// snapshot JSON never panics, and that what it accepts holds canonical
// paths and SHA-256 hashes only.
func FuzzBaselineJSON(f *testing.F) {
	h := strings.Repeat("ab", 32)
	for _, seed := range []string{
		`{"dirs":[{"path":"","exclude":[".git","**/.git"]}],"files":{"a.md":"` + h + `"}}`,
		`{"dirs":[],"files":{"../x":"` + h + `"}}`,
		`{"dirs":[{"path":"a/"}],"files":{}}`,
		`{"dirs":[{"path":"","exclude":["[["]}],"files":null}`,
		`{"files":{"a":"x"}}`, `null`, `[]`, `{"dirs":[{}]}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		files, err := vfs.DecodeBaseline(data)
		if err != nil {
			return
		}
		for p, hash := range files {
			if n, err := vfs.NormalizePath(p); err != nil || n != p {
				t.Fatalf("accepted the path %q", p)
			}
			if len(hash) != 64 || strings.Trim(hash, "0123456789abcdef") != "" {
				t.Fatalf("accepted the hash %q", hash)
			}
		}
	})
}
