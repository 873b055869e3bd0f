package vfs_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/tools/vfs"
)

// hostilePattern is a .gitignore line that matches nothing in the trees
// below but costs the matcher many wildcards over several segments.
const hostilePattern = "**/a*b*c*d*e*f*g*h*/**/x*y*z*"

// gitignoreTree makes a directory of files spread over directories of
// 30, under a .gitignore of the given lines, and returns it.
func gitignoreTree(tb testing.TB, files int, lines []string) string {
	tb.Helper()
	dir := tb.TempDir()
	require.NoError(tb, os.WriteFile(filepath.Join(dir, ".gitignore"), []byte(strings.Join(lines, "\n")+"\n"), 0o644))
	for i := range files {
		p := filepath.Join(dir, fmt.Sprintf("src/pkg%02d/sub/file%04d.go", i/30, i))
		require.NoError(tb, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(tb, os.WriteFile(p, []byte("package x\n"), 0o644))
	}
	return dir
}

// The copy-in of 300 files under a hostile .gitignore: 29,000 patterns,
// the same one or all different, of many wildcards each or of one, just
// under the 1 MiB read. The matching work is bounded (a pattern repeated
// counts once, at most 1,000 patterns of at most 8 wildcards are used).
func BenchmarkMountHostileGitignore(b *testing.B) {
	for _, tc := range []struct {
		name    string
		pattern string // with %d, each line differs
	}{
		{"hostile-repeated", hostilePattern},
		{"hostile-distinct", "**/a*b*c*d*e*f*g*h*/**/x*y*z%d*"},
		{"plain-distinct", "*.log%d"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			lines := make([]string, 29000)
			for i := range lines {
				lines[i] = tc.pattern
				if strings.Contains(tc.pattern, "%d") {
					lines[i] = fmt.Sprintf(tc.pattern, i)
				}
			}
			dir := gitignoreTree(b, 300, lines)
			for b.Loop() {
				report := &vfs.MountReport{}
				_, err := vfs.LoadMounts([]string{dir}, vfs.Mount{HostPath: dir, GitIgnore: true, Report: report})
				require.NoError(b, err)
				require.Equal(b, 300, report.Copied) // the .gitignore is too long to be copied
			}
		})
	}
}
