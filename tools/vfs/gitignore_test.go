package vfs_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/tools/vfs"
)

// A .gitignore's matching work is bounded: the patterns past the bounds
// are not used, and the report's warning says which and what it means.
func TestGitignoreBounds(t *testing.T) {
	many := make([]string, vfs.MaxGitignorePatterns+1)
	for i := range many {
		many[i] = fmt.Sprintf("ign%04d.txt", i)
	}
	repeated := slices.Repeat([]string{"*.log"}, 29000)
	hostile := slices.Repeat([]string{hostilePattern}, 29000)
	wild := "a*b*c*d*e*f*g*h*.txt" // at the bound
	tooWild := "a*b*c*d*e*f*g*h*i*.txt"
	// The file of each has one part less (**/): a VFS path has at most 16.
	deep := "**/" + strings.Repeat("d/", vfs.MaxIgnoreSegments-2) + "f.txt" // at the bound
	tooDeep := "**/" + strings.Repeat("d/", vfs.MaxIgnoreSegments-1) + "f.txt"
	large := slices.Repeat([]string{"large-gitignore-pattern-that-repeats"}, 30000)
	for _, tc := range []struct {
		name    string
		lines   []string
		setup   func(t *testing.T, dir string) // after the files are written
		files   []string
		copied  []string // of files
		warning string   // "" for none
	}{
		{
			name: "more patterns than the bound: the first ones are used", lines: many,
			files: []string{"ign0000.txt", "ign0999.txt", "ign1000.txt"}, copied: []string{"ign1000.txt"},
			warning: ".gitignore: 1 pattern was not used, on 1 line (the first is line 1001: ign1000.txt)",
		},
		{
			name: "a pattern repeated counts once", lines: append(repeated, "!keep.log"),
			files: []string{"a.log", "keep.log", "b.txt"}, copied: []string{"b.txt", "keep.log"},
		},
		{
			name: "the hostile .gitignore", lines: hostile,
			files: []string{"x.go"}, copied: []string{"x.go"},
			warning: ".gitignore: 1 pattern was not used, on 29000 lines (the first is line 1: **/a*b*c*d*e*f*g*h*/**/x*y*z*)",
		},
		{
			name: "wildcards at the bound", lines: []string{wild},
			files: []string{"abcdefgh.txt"},
		},
		{
			name: "more wildcards than the bound", lines: []string{"*.tmp", tooWild},
			files: []string{"abcdefghi.txt", "x.tmp"}, copied: []string{"abcdefghi.txt"},
			warning: ".gitignore: 1 pattern was not used, on 1 line (the first is line 2: " + tooWild + ")",
		},
		{
			name: "parts at the bound", lines: []string{deep},
			files: []string{deep[len("**/"):]},
		},
		{
			name: "more parts than the bound", lines: []string{tooDeep},
			files: []string{tooDeep[len("**/"):]}, copied: []string{tooDeep[len("**/"):]},
			warning: ".gitignore: 1 pattern was not used, on 1 line (the first is line 1: " + tooDeep + ")",
		},
		{
			name: "larger than the bound", lines: append(large, "*.log"),
			files: []string{"x.log"}, copied: []string{"x.log"},
			warning: ".gitignore: not used, as it is larger than 1 MiB: files it would ignore may have been copied in. Make it smaller",
		},
		{
			name: "not a regular file", lines: []string{"*.log"},
			setup: func(t *testing.T, dir string) {
				p := filepath.Join(dir, ".gitignore")
				require.NoError(t, os.Remove(p))
				require.NoError(t, os.Mkdir(p, 0o755))
			},
			files: []string{"x.log"}, copied: []string{"x.log"},
			warning: ".gitignore: not used, as it is not a regular file: files it would ignore may have been copied in. Make it one",
		},
		{
			name: "none", lines: []string{"*.log"},
			setup: func(t *testing.T, dir string) { require.NoError(t, os.Remove(filepath.Join(dir, ".gitignore"))) },
			files: []string{"x.log"}, copied: []string{"x.log"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := gitignoreTree(t, 0, tc.lines)
			if tc.setup != nil {
				tc.setup(t, dir)
			}
			for _, f := range tc.files {
				p := filepath.Join(dir, filepath.FromSlash(f))
				require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
				require.NoError(t, os.WriteFile(p, []byte("x\n"), 0o644))
			}
			report := &vfs.MountReport{}
			table, err := vfs.LoadMounts([]string{dir}, vfs.Mount{HostPath: dir, GitIgnore: true, Exclude: []string{".gitignore"}, Report: report})
			require.NoError(t, err)
			var got []string
			for f := range table.All() {
				got = append(got, f.Path)
			}
			assert.ElementsMatch(t, tc.copied, got)
			if tc.warning == "" {
				assert.Empty(t, report.Warnings)
				return
			}
			require.Len(t, report.Warnings, 1)
			assert.True(t, strings.HasPrefix(report.Warnings[0], tc.warning), report.Warnings[0])
			assert.Contains(t, report.Warnings[0], "may have been copied in")
		})
	}
}

// A mount stops as soon as its context is cancelled: before it starts,
// or at any file of the walk.
func TestMountCancelled(t *testing.T) {
	dir := gitignoreTree(t, 600, []string{"*.log", "build/"})
	for _, tc := range []struct {
		name     string
		cancelAt int // the walk's path at which the context is cancelled; 0 before the mount
	}{
		{"before the mount", 0},
		{"at the first path", 1},
		{"at the 300th path", 300},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			if tc.cancelAt == 0 {
				cancel()
			}
			visited := 0
			report := &vfs.MountReport{}
			m := vfs.WithVisitHook(vfs.Mount{HostPath: dir, GitIgnore: true, Report: report, Context: ctx}, func(string) {
				visited++
				if visited == tc.cancelAt {
					cancel()
				}
			})
			_, err := vfs.LoadMounts([]string{dir}, m)
			require.ErrorIs(t, err, context.Canceled)
			assert.Contains(t, err.Error(), "the copy was stopped")
			assert.Equal(t, tc.cancelAt, visited, "the walk went on after the cancel")
			assert.Less(t, report.Copied, max(tc.cancelAt, 1))
		})
	}
}
