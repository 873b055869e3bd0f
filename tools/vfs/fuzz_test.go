package vfs_test

import (
	"strings"
	"testing"

	"github.com/offshoot-dev/offshoot/tools/vfs"
)

// FuzzNormalizePath checks, for any input, that normalization never
// panics, that an accepted path is canonical (relative, no empty, "." or
// ".." segment, ASCII without control characters, within the limits), that
// it cannot escape the root, and that normalizing it again changes nothing.
func FuzzNormalizePath(f *testing.F) {
	for _, seed := range []string{"", "/", "a", "/a//b/", "../x", "a/./b", "a/../../b", "notes..md", "a/.../b", "é", "a\x00b", strings.Repeat("a/", 17)} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got, err := vfs.NormalizePath(in)
		if err != nil {
			if got != "" {
				t.Fatalf("NormalizePath(%q) returned %q with an error", in, got)
			}
			return
		}
		if got == "" || strings.HasPrefix(got, "/") || strings.HasSuffix(got, "/") || strings.Contains(got, "//") {
			t.Fatalf("NormalizePath(%q) = %q: not relative and clean", in, got)
		}
		segs := strings.Split(got, "/")
		if len(segs) > vfs.MaxPathSegments {
			t.Fatalf("NormalizePath(%q) = %q: %d segments", in, got, len(segs))
		}
		depth := 0
		for _, s := range segs {
			if s == "" || s == "." || s == ".." {
				t.Fatalf("NormalizePath(%q) = %q: segment %q", in, got, s)
			}
			if len(s) > vfs.MaxSegmentLength {
				t.Fatalf("NormalizePath(%q) = %q: segment of %d bytes", in, got, len(s))
			}
			depth++
		}
		if depth < 1 {
			t.Fatalf("NormalizePath(%q) = %q escapes the root", in, got)
		}
		for i := 0; i < len(got); i++ {
			if c := got[i]; c < 0x20 || c >= 0x7f {
				t.Fatalf("NormalizePath(%q) = %q: byte %#x", in, got, c)
			}
		}
		again, err := vfs.NormalizePath(got)
		if err != nil || again != got {
			t.Fatalf("NormalizePath is not idempotent: %q -> %q -> %q, %v", in, got, again, err)
		}
	})
}
