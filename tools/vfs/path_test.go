package vfs_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/serde"
	"github.com/offshoot-dev/offshoot/tools"
	"github.com/offshoot-dev/offshoot/tools/vfs"
)

func TestNormalizePathAccepts(t *testing.T) {
	sixteen := strings.Repeat("d/", 15) + "f"
	eighty := strings.Repeat("x", 80)
	for _, tc := range []struct{ in, want string }{
		{"notes.md", "notes.md"},
		{"/notes.md", "notes.md"},
		{"///docs//a.md", "docs/a.md"},
		{"docs/a.md/", "docs/a.md"},
		{"docs//guide///", "docs/guide"},
		{"a/.hidden/.b/.c.", "a/.hidden/.b/.c."},
		{"with space/and-dash_und.md", "with space/and-dash_und.md"},
		{sixteen, sixteen},
		{"/" + sixteen + "/", sixteen},
		{eighty, eighty},
		{"a\\b:c", "a\\b:c"},
		{"notes..md", "notes..md"},
		{"a/.../b", "a/.../b"},
		{"..hidden/x..", "..hidden/x.."},
		{"docs/notes...md", "docs/notes...md"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := vfs.NormalizePath(tc.in)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
			again, err := vfs.NormalizePath(got)
			require.NoError(t, err)
			assert.Equal(t, got, again, "normalization is idempotent")
		})
	}
}

func TestNormalizePathRejects(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"empty", "", "must not be empty; give a path from the root"},
		{"root", "/", "must name a file, not the root"},
		{"only slashes", "///", "must name a file, not the root"},
		{"dot", ".", `must not have "." segments`},
		{"dot segment", "docs/./a.md", `must not have "." segments`},
		{"dot dot", "..", `must not have ".." segments`},
		{"dot dot segment", "docs/../../etc/passwd", `must not have ".." segments`},
		{"leading dot dot", "/../a", `must not have ".." segments`},
		{"trailing dot dot", "a/..", `must not have ".." segments`},
		{"dot dot between slashes", "a//..//b", `must not have ".." segments`},
		{"17 segments", strings.Repeat("d/", 16) + "f", "must have at most 16 segments; use a shallower path"},
		{"81-character segment", "docs/" + strings.Repeat("x", 81), `must have segments of at most 80 characters; the segment "xxxxxxxxxxxxxxxxxxxx"… has 81`},
		{"non-ASCII", "docs/résumé.md", `invalid path "docs/résumé.md": must be ASCII`},
		{"emoji", "🙂.md", "must be ASCII"},
		{"NUL", "docs/a\x00.md", "must not contain a NUL byte"},
		{"newline", "docs/a\n.md", "must be printable ASCII; it contains the control character 0x0a"},
		{"DEL", "a\x7f", "control character 0x7f"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := vfs.NormalizePath(tc.in)
			require.Error(t, err)
			assert.Empty(t, got)
			assert.Contains(t, err.Error(), tc.want)
			assert.True(t, errors.Is(err, vfs.ErrInvalidPath))
			var pe *vfs.PathError
			require.True(t, errors.As(err, &pe))
			assert.Equal(t, tc.in, pe.Path)
		})
	}
}

// Every rejected path form reaches the model as the call's validation
// failure, in the one format of invalid arguments — the tool, the field,
// what the path must be — whichever tool gets it.
func TestToolsRejectPaths(t *testing.T) {
	h := newHarness(t)
	h.write(map[string]string{"ok.md": "fine"})
	for _, tc := range []struct{ name, path, reason string }{
		{"empty", "", "must not be empty; give a path from the root such as docs/notes.md"},
		{"dot", "./ok.md", `must not have "." segments; give the path from the root such as docs/notes.md`},
		{"dot dot", "../ok.md", `must not have ".." segments; give the path from the root such as docs/notes.md`},
		{"too deep", strings.Repeat("d/", 16) + "f", "must have at most 16 segments; use a shallower path"},
		{"long segment", strings.Repeat("s", 81), `must have segments of at most 80 characters; the segment "ssssssssssssssssssss"… has 81`},
		{"non-ASCII", "ø.md", "must be ASCII"},
		{"NUL", "a\x00b", "must not contain a NUL byte; paths are plain ASCII text"},
		{"control character", "a\tb", "must be printable ASCII; it contains the control character 0x09"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, call := range []struct{ tool, field, args string }{
				{"write_file", "file_path", jsonArgs(t, map[string]any{"file_path": tc.path, "content": "x"})},
				{"read_file", "file_path", jsonArgs(t, map[string]any{"file_path": tc.path})},
				{"edit_file", "file_path", jsonArgs(t, map[string]any{"file_path": tc.path, "old_string": "a", "new_string": "b"})},
				{"rm", "path", jsonArgs(t, map[string]any{"path": tc.path})},
			} {
				assert.Equal(t, "Tool validation failed: "+call.tool+": "+call.field+": "+tc.reason, fail(h, call.tool, call.args))
			}
			if tc.path != "" { // "" is the root for ls, glob and grep
				for _, call := range []struct{ tool, args string }{
					{"ls", jsonArgs(t, map[string]any{"path": tc.path})},
					{"glob", jsonArgs(t, map[string]any{"pattern": "*", "path": tc.path})},
					{"grep", jsonArgs(t, map[string]any{"pattern": "x", "path": tc.path})},
				} {
					assert.Equal(t, "Tool validation failed: "+call.tool+": path: "+tc.reason, fail(h, call.tool, call.args))
				}
			}
		})
	}
	assert.Equal(t, 1, vfs.Files(h.s).Len(), "nothing was written")
}

// The one example the tools' documentation gives, exactly; and a
// validation failure is a *tools.ValidationError holding the field.
func TestInvalidPathIsAValidationError(t *testing.T) {
	h := newHarness(t)
	out := h.call("ls", `{"path":"é"}`)
	assert.False(t, out.Success)
	assert.Equal(t, "Tool validation failed: ls: path: must be ASCII", out.Text)
	var ve *tools.ValidationError
	require.ErrorAs(t, out.Err, &ve)
	assert.Equal(t, "ls", ve.Tool)
	var se *serde.ValidationError
	require.ErrorAs(t, out.Err, &se)
	assert.Equal(t, "path", se.Path)
}

// Dots inside a name make an ordinary name for every tool, and for Export.
func TestDotsInsideANameAreOrdinary(t *testing.T) {
	h := newHarness(t)
	h.write(map[string]string{"docs/notes...md": "dots\n", "..hidden": "x"})
	got := ok[vfs.ReadResult](h, "read_file", `{"file_path": "docs/notes...md"}`)
	assert.Equal(t, "   1 | dots", got.Content)
	globbed := ok[vfs.GlobResult](h, "glob", `{"pattern": "**/*..*"}`)
	assert.Equal(t, []string{"..hidden", "docs/notes...md"}, globbed.Matches)
	dir := t.TempDir()
	require.NoError(t, vfs.Export(h.s.Snapshot(), dir))
	data, err := os.ReadFile(filepath.Join(dir, "docs", "notes...md"))
	require.NoError(t, err)
	assert.Equal(t, "dots\n", string(data))
	assert.Contains(t, fail(h, "read_file", `{"file_path": "docs/../..hidden"}`), `must not have ".." segments`)
}
