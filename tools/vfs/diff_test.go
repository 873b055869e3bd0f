package vfs_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/tools/vfs"
)

func TestUnifiedDiff(t *testing.T) {
	for _, tc := range []struct {
		name, old, new, want string
	}{
		{"equal", "a\n", "a\n", ""},
		{"created", "", "a\nb\n", "--- from\n+++ to\n@@ -0,0 +1,2 @@\n+a\n+b\n"},
		{"emptied", "a\n", "", "--- from\n+++ to\n@@ -1 +0,0 @@\n-a\n"},
		{"a last line without a newline", "a\nb", "a\nc", "--- from\n+++ to\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n"},
		{"a newline added at the end", "a", "a\n", "--- from\n+++ to\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+a\n"},
		{"context of three lines", "1\n2\n3\n4\n5\n6\n7\n8\n9\n", "1\n2\n3\n4\nfive\n6\n7\n8\n9\n",
			"--- from\n+++ to\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, vfsUnifiedDiff(tc.old, tc.new))
		})
	}
}

func vfsUnifiedDiff(old, new string) string { return vfs.UnifiedDiff(old, new, "from", "to") }

// A diff whose differing part is too large to match line by line shows it
// removed and added whole, in one hunk with its context, at once.
func TestUnifiedDiffIsBounded(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var a, b strings.Builder
	a.WriteString("head\n")
	b.WriteString("head\n")
	for i := 0; i < 9000; i++ { // every other line changed: the matcher's worst shape
		fmt.Fprintf(&a, "%04d\n", i)
		if i%2 == 0 {
			fmt.Fprintf(&b, "%04d\n", i)
		} else {
			fmt.Fprintf(&b, "x%03d\n", i%1000)
		}
	}
	a.WriteString("tail\n")
	b.WriteString("tail\n")
	done := make(chan string, 1)
	go func() { done <- vfsUnifiedDiff(a.String(), b.String()) }()
	select {
	case out := <-done:
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		require.Greater(t, len(lines), 6)
		// The first two lines and the last are the same: the 8,999 between
		// go out and in whole.
		assert.Equal(t, []string{"--- from", "+++ to", "@@ -1,9002 +1,9002 @@", " head", " 0000", "-0001"}, lines[:6])
		assert.Equal(t, " tail", lines[len(lines)-1])
		assert.Equal(t, 3+2+2*8999+1, len(lines))
	case <-ctx.Done():
		t.Fatal("the diff took longer than a minute")
	}
	// A small edit in a large file is matched line by line.
	big := strings.Repeat("line\n", 20000)
	out := vfsUnifiedDiff(big+"old\n"+big, big+"new\n"+big)
	assert.Equal(t, "--- from\n+++ to\n@@ -19998,7 +19998,7 @@\n line\n line\n line\n-old\n+new\n line\n line\n line\n", out)
	assert.Greater(t, 9000*9000, vfs.MaxDiffWork)
}
