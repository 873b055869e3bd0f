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

// sevenLines is a file of seven lines.
const sevenLines = "one\ntwo\nthree\nfour\nfive\nsix\nseven\n"

func TestReadFile(t *testing.T) {
	h := newHarness(t)
	h.write(map[string]string{"notes/seven.txt": sevenLines, "empty.txt": "", "no-newline.txt": "a\nb", "blank.txt": "\n\n"})
	for _, tc := range []struct {
		name, args string
		want       vfs.ReadResult
	}{
		{
			"offset 2 limit 3 gives lines 3 to 5",
			`{"file_path": "notes/seven.txt", "offset": 2, "limit": 3}`,
			vfs.ReadResult{Path: "notes/seven.txt", Content: "   3 | three\n   4 | four\n   5 | five", Offset: 2, Limit: 3, TotalLines: 7},
		},
		{
			"defaults read everything",
			`{"file_path": "/notes/seven.txt"}`,
			vfs.ReadResult{Path: "notes/seven.txt", Content: "   1 | one\n   2 | two\n   3 | three\n   4 | four\n   5 | five\n   6 | six\n   7 | seven", Limit: 2000, TotalLines: 7},
		},
		{
			"limit past the end stops at the end",
			`{"file_path": "notes/seven.txt", "offset": 6, "limit": 10}`,
			vfs.ReadResult{Path: "notes/seven.txt", Content: "   7 | seven", Offset: 6, Limit: 10, TotalLines: 7},
		},
		{
			"empty file",
			`{"file_path": "empty.txt"}`,
			vfs.ReadResult{Path: "empty.txt", Limit: 2000},
		},
		{
			"last line without newline",
			`{"file_path": "no-newline.txt"}`,
			vfs.ReadResult{Path: "no-newline.txt", Content: "   1 | a\n   2 | b", Limit: 2000, TotalLines: 2},
		},
		{
			"blank lines",
			`{"file_path": "blank.txt"}`,
			vfs.ReadResult{Path: "blank.txt", Content: "   1 | \n   2 | ", Limit: 2000, TotalLines: 2},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, ok[vfs.ReadResult](h, "read_file", tc.args))
		})
	}
}

func TestReadFileNumbersWideLines(t *testing.T) {
	h := newHarness(t)
	var b strings.Builder
	for i := 1; i <= 10_001; i++ {
		fmt.Fprintf(&b, "l%d\n", i)
	}
	h.write(map[string]string{"big.txt": b.String()[:vfs.MaxContentChars-10]})
	got := ok[vfs.ReadResult](h, "read_file", `{"file_path": "big.txt", "offset": 998, "limit": 3}`)
	assert.Equal(t, " 999 | l999\n1000 | l1000\n1001 | l1001", got.Content)
}

func TestReadFileFailures(t *testing.T) {
	h := newHarness(t)
	h.write(map[string]string{"docs/seven.txt": sevenLines})
	for _, tc := range []struct{ name, args, want string }{
		{"missing file", `{"file_path": "docs/nine.txt"}`, "read docs/nine.txt: no such file or directory; list the directory with ls"},
		{"directory", `{"file_path": "docs"}`, "read docs: is a directory; list it with ls"},
		{"offset past the end", `{"file_path": "docs/seven.txt", "offset": 7}`, "offset 7 is past the end of the file, which has 7 lines; use an offset below 7"},
		{"negative offset", `{"file_path": "docs/seven.txt", "offset": -1}`, "Tool validation failed: read_file: offset: must be at least 0"},
		{"zero limit", `{"file_path": "docs/seven.txt", "limit": 0}`, "Tool validation failed: read_file: limit: must be at least 1"},
		{"limit over 2000", `{"file_path": "docs/seven.txt", "limit": 2001}`, "Tool validation failed: read_file: limit: must be at most 2000"},
		{"unknown field", `{"file_path": "docs/seven.txt", "lines": 3}`, "Tool validation failed: read_file: lines: unknown field"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Contains(t, fail(h, "read_file", tc.args), tc.want)
		})
	}
}

func TestWriteFile(t *testing.T) {
	h := newHarness(t)
	got := ok[vfs.WriteResult](h, "write_file", `{"file_path": "/docs//plan.md", "content": "# Plan\n"}`)
	assert.Equal(t, vfs.WriteResult{Path: "docs/plan.md", Version: 1, SizeBytes: 7}, got)
	f, found := vfs.Files(h.s).Get("docs/plan.md")
	require.True(t, found)
	want := stamp(t0)
	assert.Equal(t, vfs.File{Path: "docs/plan.md", Content: "# Plan\n", Version: 1, CreatedAt: want, UpdatedAt: want}, f)
	assert.Equal(t, time.UTC, f.CreatedAt.Location(), "times are UTC")
	assert.Zero(t, f.UpdatedAt.Nanosecond()%int(time.Millisecond), "times have millisecond precision")
}

func TestWriteFileFailures(t *testing.T) {
	h := newHarness(t)
	h.write(map[string]string{"docs/plan.md": "x", "file": "y"})
	for _, tc := range []struct{ name, args, want string }{
		{"existing file", `{"file_path": "docs/plan.md", "content": "again"}`, "write docs/plan.md: file already exists; use edit_file to change it"},
		{"at a directory", `{"file_path": "docs", "content": "z"}`, "write docs: is a directory"},
		{"below a file", `{"file_path": "file/inner.md", "content": "z"}`, "write file/inner.md: not a directory; file is a file"},
		{"content over 48,000 characters", jsonArgs(t, vfs.WriteParams{FilePath: "big.md", Content: strings.Repeat("a", 48_001)}), "the content is 48001 characters long; a file holds at most 48000"},
		{"missing content is rejected only by size", `{"file_path": "docs/plan.md"}`, "already exists"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Contains(t, fail(h, "write_file", tc.args), tc.want)
		})
	}
	assert.Equal(t, 2, vfs.Files(h.s).Len())
}

// The limit counts characters, not bytes.
func TestWriteFileContentLimitCountsCharacters(t *testing.T) {
	h := newHarness(t)
	ok[vfs.WriteResult](h, "write_file", jsonArgs(t, vfs.WriteParams{FilePath: "max.md", Content: strings.Repeat("a", 48_000)}))
	got := ok[vfs.WriteResult](h, "write_file", jsonArgs(t, vfs.WriteParams{FilePath: "accents.md", Content: strings.Repeat("é", 48_000)}))
	assert.Equal(t, 96_000, got.SizeBytes)
	assert.Contains(t, fail(h, "write_file", jsonArgs(t, vfs.WriteParams{FilePath: "over.md", Content: strings.Repeat("é", 48_001)})), "48001 characters")
}

func TestEditFile(t *testing.T) {
	h := newHarness(t)
	h.write(map[string]string{"a.txt": "red green red blue red"})
	created := stamp(t0)

	h.clock.Advance(1500 * time.Millisecond)
	got := ok[vfs.WriteResult](h, "edit_file", `{"file_path": "a.txt", "old_string": "green", "new_string": "GREEN"}`)
	assert.Equal(t, vfs.WriteResult{Path: "a.txt", Version: 2, SizeBytes: 22, Replacements: 1}, got)
	f, _ := vfs.Files(h.s).Get("a.txt")
	assert.Equal(t, "red GREEN red blue red", f.Content)
	assert.Equal(t, created, f.CreatedAt, "created_at stays")
	assert.Equal(t, stamp(t0.Add(1500*time.Millisecond)), f.UpdatedAt)

	h.clock.Advance(time.Second)
	got = ok[vfs.WriteResult](h, "edit_file", `{"file_path": "a.txt", "old_string": "red", "new_string": "r", "replace_all": true}`)
	assert.Equal(t, vfs.WriteResult{Path: "a.txt", Version: 3, SizeBytes: 16, Replacements: 3}, got)
	f, _ = vfs.Files(h.s).Get("a.txt")
	assert.Equal(t, "r GREEN r blue r", f.Content)
	assert.Equal(t, 3, f.Version, "replace_all bumps the version")
	assert.Equal(t, stamp(t0.Add(2500*time.Millisecond)), f.UpdatedAt)
}

func TestEditFileFailures(t *testing.T) {
	h := newHarness(t)
	h.write(map[string]string{"a.txt": "red green red blue red", "dir/b.txt": "b"})
	for _, tc := range []struct{ name, args, want string }{
		{"no match", `{"file_path": "a.txt", "old_string": "purple", "new_string": "x"}`, "old_string was not found (0 matches)"},
		{"several matches", `{"file_path": "a.txt", "old_string": "red", "new_string": "x"}`, "old_string occurs 3 times; include more of the surrounding text so that it matches once, or set replace_all"},
		{"empty old_string", `{"file_path": "a.txt", "old_string": "", "new_string": "x"}`, "Tool validation failed: edit_file: old_string: is required"},
		{"missing file", `{"file_path": "b.txt", "old_string": "a", "new_string": "x"}`, "edit b.txt: no such file or directory; create it with write_file"},
		{"directory", `{"file_path": "dir", "old_string": "a", "new_string": "x"}`, "edit dir: is a directory"},
		{"result too long", jsonArgs(t, vfs.EditParams{FilePath: "a.txt", OldString: "blue", NewString: strings.Repeat("b", 48_000)}), "a file holds at most 48000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Contains(t, fail(h, "edit_file", tc.args), tc.want)
		})
	}
	f, _ := vfs.Files(h.s).Get("a.txt")
	assert.Equal(t, 1, f.Version, "no failed edit changed the file")
}
