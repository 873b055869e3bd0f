package vfs_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"

	"github.com/offshoot-dev/offshoot/tools/vfs"
)

// A path or pattern a failed call repeats is clipped to 200 characters,
// however long the model made it; a path refused as invalid arguments is
// not repeated, only the start of its overlong segment.
func TestErrorsClipEchoedPathsAndPatterns(t *testing.T) {
	huge := strings.Repeat("a", 1<<20)
	long := strings.TrimSuffix(strings.Repeat(strings.Repeat("d", vfs.MaxSegmentLength)+"/", vfs.MaxPathSegments), "/")
	h := newHarness(t)
	h.write(map[string]string{"a.txt": "alpha\n"})
	for _, tc := range []struct {
		name, tool string
		args       any
		want       string
	}{
		{"read_file, a 1 MB path", "read_file", vfs.ReadParams{FilePath: "x" + huge}, "Tool validation failed: read_file: file_path: must have segments of at most 80 characters"},
		{"read_file, a 1 MB path with a NUL", "read_file", vfs.ReadParams{FilePath: huge + "/b/\x00"}, "Tool validation failed: read_file: file_path: must not contain a NUL byte"},
		{"write_file, a 1 MB path", "write_file", vfs.WriteParams{FilePath: huge, Content: "x"}, "Tool validation failed: write_file: file_path: must have segments"},
		{"edit_file, a 1 MB path", "edit_file", vfs.EditParams{FilePath: huge, OldString: "a"}, "Tool validation failed: edit_file: file_path: must have segments"},
		{"rm, a 1 MB path", "rm", vfs.RemoveParams{Path: huge}, "Tool validation failed: rm: path: must have segments"},
		{"ls, a 1 MB path", "ls", vfs.ListParams{Path: huge}, "Tool validation failed: ls: path: must have segments"},
		{"read_file, a missing 1,295-character path", "read_file", vfs.ReadParams{FilePath: long}, "no such file"},
		{"rm, a missing 1,295-character path", "rm", vfs.RemoveParams{Path: long}, "no such file"},
		{"glob, a 1 MB path", "glob", vfs.GlobParams{Pattern: "*", Path: huge}, "Tool validation failed: glob: path: must have segments"},
		{"glob, a malformed pattern", "glob", vfs.GlobParams{Pattern: "[" + huge[:900]}, "Tool validation failed: glob: pattern: must be a valid glob; it is malformed"},
		{"grep, a malformed regexp", "grep", vfs.GrepParams{Pattern: "(" + huge[:900]}, "missing closing )"},
		{"grep, a malformed glob", "grep", vfs.GrepParams{Pattern: "a", Glob: "[" + huge[:900]}, "Tool validation failed: grep: glob: must be a valid glob; it is malformed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := fail(h, tc.tool, jsonArgs(t, tc.args))
			assert.Contains(t, text, tc.want)
			if !strings.Contains(tc.want, "NUL") {
				assert.Contains(t, text, "…", "the echo is marked as clipped")
			}
			assert.Less(t, utf8.RuneCountInString(text), 600, "the whole message: %.300s", text)
			assert.NotContains(t, text, strings.Repeat("a", 201))
			assert.NotContains(t, text, strings.Repeat("d", 201))
		})
	}
}

// PathError keeps the path as given; only its message clips it.
func TestPathErrorKeepsThePath(t *testing.T) {
	huge := strings.Repeat("é", 300)
	_, err := vfs.NormalizePath(huge)
	var pe *vfs.PathError
	assert.ErrorAs(t, err, &pe)
	assert.Equal(t, huge, pe.Path)
	assert.Contains(t, err.Error(), `"`+strings.Repeat("é", 200)+`…"`)
}

// A pattern over the size limit is refused without being repeated.
func TestOversizedPatternsAreNotRepeated(t *testing.T) {
	huge := strings.Repeat("a", 1<<20)
	h := newHarness(t)
	for _, tc := range []struct {
		tool string
		args any
	}{
		{"glob", vfs.GlobParams{Pattern: "[" + huge}},
		{"grep", vfs.GrepParams{Pattern: "(" + huge}},
		{"grep", vfs.GrepParams{Pattern: "a", Glob: "[" + huge}},
	} {
		text := fail(h, tc.tool, jsonArgs(t, tc.args))
		assert.Contains(t, text, "must be at most 1000 characters")
		assert.Less(t, len(text), 100)
	}
}
