package vfs_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/tools/vfs"
)

// tree is a small project: nested directories, a file and a directory
// whose names share a prefix ("a" and "a.txt"), and a deep file.
var tree = map[string]string{
	"a.txt":             "alpha\n",
	"a/one.md":          "one\n",
	"a/two/deep.md":     "deep\nTODO: deeper\n",
	"b.md":              "TODO: write b\nmore\nTODO again\n",
	"docs/guide.md":     "# Guide\nTODO first\n",
	"docs/guide/ch1.md": "chapter one\n",
	"docs/zeta.md":      "zeta\n",
	"src/main.go":       "package main\n// TODO: main\n",
	"src/lib/lib.go":    "package lib\n",
}

func TestLs(t *testing.T) {
	h := newHarness(t)
	h.write(tree)
	at := stamp(t0)
	for _, tc := range []struct {
		name, args string
		want       []vfs.Entry
	}{
		{"root by default", `{}`, []vfs.Entry{
			{Path: "a", Kind: vfs.KindDirectory, SizeBytes: 4 + 18, UpdatedAt: at},
			{Path: "a.txt", Kind: vfs.KindFile, SizeBytes: 6, Version: 1, UpdatedAt: at},
			{Path: "b.md", Kind: vfs.KindFile, SizeBytes: 30, Version: 1, UpdatedAt: at},
			{Path: "docs", Kind: vfs.KindDirectory, SizeBytes: 19 + 12 + 5, UpdatedAt: at},
			{Path: "src", Kind: vfs.KindDirectory, SizeBytes: 27 + 12, UpdatedAt: at},
		}},
		{"root as /", `{"path": "/"}`, nil},
		{"a directory lists a subdirectory and a file in order", `{"path": "a"}`, []vfs.Entry{
			{Path: "a/one.md", Kind: vfs.KindFile, SizeBytes: 4, Version: 1, UpdatedAt: at},
			{Path: "a/two", Kind: vfs.KindDirectory, SizeBytes: 18, UpdatedAt: at},
		}},
		{"a file and a directory of one name", `{"path": "/docs/"}`, []vfs.Entry{
			{Path: "docs/guide", Kind: vfs.KindDirectory, SizeBytes: 12, UpdatedAt: at},
			{Path: "docs/guide.md", Kind: vfs.KindFile, SizeBytes: 19, Version: 1, UpdatedAt: at},
			{Path: "docs/zeta.md", Kind: vfs.KindFile, SizeBytes: 5, Version: 1, UpdatedAt: at},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ok[vfs.ListResult](h, "ls", tc.args)
			if tc.want == nil { // same as the root
				tc.want = ok[vfs.ListResult](h, "ls", `{}`).Entries
			}
			assert.Equal(t, tc.want, got.Entries)
		})
	}
}

// ls of a path that does not exist fails, as ls does, instead of
// listing nothing as a success.
func TestLsOfAMissingDirectory(t *testing.T) {
	h := newHarness(t)
	h.write(map[string]string{"docs/guide.md": "# Guide"})
	assert.Equal(t, "ls nowhere: no such file or directory; list its parent with ls, or find files with glob", fail(h, "ls", `{"path": "nowhere"}`))
	assert.Contains(t, fail(h, "ls", `{"path": "docs/guide"}`), "no such file or directory")
	got := ok[vfs.ListResult](h, "ls", `{}`)
	assert.Len(t, got.Entries, 1, "the root of an empty or full table is a directory")
	empty := newHarness(t)
	assert.Empty(t, ok[vfs.ListResult](empty, "ls", `{}`).Entries)
}

func TestLsDirectoryTotals(t *testing.T) {
	h := newHarness(t)
	h.write(map[string]string{"d/x.md": "12345"})
	h.clock.Advance(2 * time.Second)
	h.write(map[string]string{"d/sub/y.md": "123"})
	got := ok[vfs.ListResult](h, "ls", `{}`)
	require.Len(t, got.Entries, 1)
	assert.Equal(t, vfs.Entry{Path: "d", Kind: vfs.KindDirectory, SizeBytes: 8, UpdatedAt: stamp(t0.Add(2 * time.Second))}, got.Entries[0])
}

func TestLsOfAFileFails(t *testing.T) {
	h := newHarness(t)
	h.write(tree)
	assert.Equal(t, "ls a.txt: not a directory; it is a file; read it with read_file", fail(h, "ls", `{"path": "a.txt"}`))
}

// What the model reads: the message, a blank line, then the JSON value.
func TestLsText(t *testing.T) {
	h := newHarness(t)
	h.write(map[string]string{"a/b.md": "hi"})
	out := h.call("ls", `{"path": "a"}`)
	assert.Equal(t, `a: 1 entry`+"\n\n"+`{"path":"a","entries":[{"path":"a/b.md","kind":"file","size_bytes":2,"version":1,"updated_at":"2026-11-22T09:00:00.123Z"}]}`, out.Text)
}

func TestGlob(t *testing.T) {
	h := newHarness(t)
	h.write(tree)
	for _, tc := range []struct {
		name, args string
		want       []string
	}{
		{"star stays in a segment", `{"pattern": "*.md"}`, []string{"b.md"}},
		{"double star crosses segments", `{"pattern": "**/*.md"}`, []string{"a/one.md", "a/two/deep.md", "b.md", "docs/guide/ch1.md", "docs/guide.md", "docs/zeta.md"}},
		{"double star in the middle", `{"pattern": "a/**/deep.md"}`, []string{"a/two/deep.md"}},
		{"double star matches no segment too", `{"pattern": "docs/**/guide.md"}`, []string{"docs/guide.md"}},
		{"question mark", `{"pattern": "?.txt"}`, []string{"a.txt"}},
		{"class", `{"pattern": "src/**/[lm]*.go"}`, []string{"src/lib/lib.go", "src/main.go"}},
		{"relative to path", `{"pattern": "*.md", "path": "docs"}`, []string{"docs/guide.md", "docs/zeta.md"}},
		{"everything below a path", `{"pattern": "**", "path": "/a/"}`, []string{"a/one.md", "a/two/deep.md"}},
		{"leading slash is relative too", `{"pattern": "/src/*.go"}`, []string{"src/main.go"}},
		{"no match", `{"pattern": "**/*.rs"}`, []string{}},
		{"missing path", `{"pattern": "*", "path": "nope"}`, []string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ok[vfs.GlobResult](h, "glob", tc.args)
			assert.Equal(t, tc.want, got.Matches)
			assert.False(t, got.Truncated)
		})
	}
	assert.Contains(t, fail(h, "glob", `{"pattern": "[a-"}`), "is malformed")
	assert.Equal(t, "Tool validation failed: glob: pattern: must not be empty; use a pattern such as **/*.md", fail(h, "glob", `{"pattern": "/"}`))
	assert.Contains(t, fail(h, "glob", `{"pattern": ""}`), "Tool validation failed: glob: pattern: is required")
}

func TestGrep(t *testing.T) {
	h := newHarness(t)
	h.write(tree)
	for _, tc := range []struct {
		name, args string
		want       []vfs.GrepMatch
	}{
		{"everywhere, sorted by path and line", `{"pattern": "TODO"}`, []vfs.GrepMatch{
			{Path: "a/two/deep.md", LineNumber: 2, Line: "TODO: deeper"},
			{Path: "b.md", LineNumber: 1, Line: "TODO: write b"},
			{Path: "b.md", LineNumber: 3, Line: "TODO again"},
			{Path: "docs/guide.md", LineNumber: 2, Line: "TODO first"},
			{Path: "src/main.go", LineNumber: 2, Line: "// TODO: main"},
		}},
		{"below a path", `{"pattern": "TODO", "path": "a"}`, []vfs.GrepMatch{
			{Path: "a/two/deep.md", LineNumber: 2, Line: "TODO: deeper"},
		}},
		{"in one file", `{"pattern": "^TODO", "path": "b.md"}`, []vfs.GrepMatch{
			{Path: "b.md", LineNumber: 1, Line: "TODO: write b"},
			{Path: "b.md", LineNumber: 3, Line: "TODO again"},
		}},
		{"files matching a glob", `{"pattern": "TODO", "glob": "**/*.go"}`, []vfs.GrepMatch{
			{Path: "src/main.go", LineNumber: 2, Line: "// TODO: main"},
		}},
		{"anchors match at each line", `{"pattern": "^package (main|lib)$"}`, []vfs.GrepMatch{
			{Path: "src/lib/lib.go", LineNumber: 1, Line: "package lib"},
			{Path: "src/main.go", LineNumber: 1, Line: "package main"},
		}},
		{"text anchors mean the line too", `{"pattern": "\\Amore\\z"}`, []vfs.GrepMatch{
			{Path: "b.md", LineNumber: 2, Line: "more"},
		}},
		{"a pattern spanning lines matches no line", `{"pattern": "write b\\nmore"}`, []vfs.GrepMatch{}},
		{"no match", `{"pattern": "FIXME"}`, []vfs.GrepMatch{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ok[vfs.GrepResult](h, "grep", tc.args)
			assert.Equal(t, tc.want, got.Matches)
		})
	}
}

func TestGrepBadRegexp(t *testing.T) {
	h := newHarness(t)
	h.write(tree)
	out := h.call("grep", `{"pattern": "a(b"}`)
	require.False(t, out.Success)
	assert.Nil(t, out.Err, "a failed result, not a tool error")
	assert.Equal(t, "grep: the pattern is not a valid regular expression: error parsing regexp: missing closing ): `a(b`", out.Text)
	assert.Contains(t, fail(h, "grep", `{"pattern": "a", "glob": "[x"}`), "malformed")
}

func TestSearchCaps(t *testing.T) {
	h := newHarness(t)
	files := map[string]string{}
	for i := range vfs.MaxGlobMatches + 5 {
		files[fmt.Sprintf("f/%04d.txt", i)] = "x\n"
	}
	h.write(files)
	g := ok[vfs.GlobResult](h, "glob", `{"pattern": "**"}`)
	assert.Len(t, g.Matches, vfs.MaxGlobMatches)
	assert.True(t, g.Truncated)
	assert.Equal(t, "f/0999.txt", g.Matches[vfs.MaxGlobMatches-1])
	r := ok[vfs.GrepResult](h, "grep", `{"pattern": "x"}`)
	assert.Len(t, r.Matches, vfs.MaxGrepMatches)
	assert.True(t, r.Truncated)
	assert.True(t, strings.HasPrefix(h.call("grep", `{"pattern": "x"}`).Text, "the first 500 matching lines"))
}

func TestRm(t *testing.T) {
	h := newHarness(t)
	h.write(tree)
	assert.Equal(t, vfs.RemoveResult{Path: "a.txt", FilesRemoved: 1}, ok[vfs.RemoveResult](h, "rm", `{"path": "a.txt"}`))
	assert.Equal(t, vfs.RemoveResult{Path: "docs", FilesRemoved: 3}, ok[vfs.RemoveResult](h, "rm", `{"path": "/docs/"}`), "a directory goes with its subtree")
	var left []string
	for f := range vfs.Files(h.s).All() {
		left = append(left, f.Path)
	}
	assert.Equal(t, []string{"a/one.md", "a/two/deep.md", "b.md", "src/lib/lib.go", "src/main.go"}, left, "a, a/… and other paths stay")

	assert.Equal(t, "rm docs: no such file or directory; nothing is there; list the directory with ls", fail(h, "rm", `{"path": "docs"}`))
	assert.Equal(t, "Tool validation failed: rm: path: must name a file, not the root; give a path such as docs/notes.md", fail(h, "rm", `{"path": "/"}`))
	assert.Equal(t, vfs.RemoveResult{Path: "a", FilesRemoved: 2}, ok[vfs.RemoveResult](h, "rm", `{"path": "a"}`))
}

func TestLsCap(t *testing.T) {
	h := newHarness(t)
	h.fill(vfs.MaxListEntries+5, func(i int) string { return fmt.Sprintf("d/%04d.txt", i) }, func(int) string { return "x" })
	out := h.call("ls", `{"path": "d"}`)
	require.True(t, out.Success, out.Text)
	got := out.Value.(vfs.ListResult)
	assert.True(t, got.Truncated)
	require.Len(t, got.Entries, vfs.MaxListEntries)
	assert.Equal(t, "d/0999.txt", got.Entries[vfs.MaxListEntries-1].Path)
	assert.True(t, strings.HasPrefix(out.Text, "d: the first 1000 of 1005 entries; list a subdirectory, or find files with glob\n\n"))
	assert.False(t, ok[vfs.ListResult](h, "ls", `{}`).Truncated)
}
