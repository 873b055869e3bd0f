package vfs_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
		{"empty", "", "the path is empty"},
		{"root", "/", "names the root"},
		{"only slashes", "///", "names the root"},
		{"dot", ".", `"." segments are not allowed`},
		{"dot segment", "docs/./a.md", `"." segments are not allowed`},
		{"dot dot", "..", `".." segments are not allowed`},
		{"dot dot segment", "docs/../../etc/passwd", `".." segments are not allowed`},
		{"leading dot dot", "/../a", `".." segments are not allowed`},
		{"trailing dot dot", "a/..", `".." segments are not allowed`},
		{"dot dot between slashes", "a//..//b", `".." segments are not allowed`},
		{"17 segments", strings.Repeat("d/", 16) + "f", "more than 16 segments"},
		{"81-character segment", "docs/" + strings.Repeat("x", 81), "is 81 characters long; segments may have at most 80"},
		{"non-ASCII", "docs/résumé.md", "non-ASCII"},
		{"emoji", "🙂.md", "non-ASCII"},
		{"NUL", "docs/a\x00.md", "NUL byte"},
		{"newline", "docs/a\n.md", "control character 0x0a"},
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

// Every rejected path form reaches the model as a failed call with the
// same clear error, whichever tool gets it.
func TestToolsRejectPaths(t *testing.T) {
	h := newHarness(t)
	h.write(map[string]string{"ok.md": "fine"})
	for _, tc := range []struct{ name, path, want string }{
		{"empty", "", "the path is empty"},
		{"dot", "./ok.md", `"." segments`},
		{"dot dot", "../ok.md", `".." segments are not allowed`},
		{"too deep", strings.Repeat("d/", 16) + "f", "more than 16 segments"},
		{"long segment", strings.Repeat("s", 81), "at most 80"},
		{"non-ASCII", "ø.md", "non-ASCII"},
		{"NUL", "a\x00b", "NUL byte"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, call := range []struct{ tool, args string }{
				{"write_file", jsonArgs(t, map[string]any{"file_path": tc.path, "content": "x"})},
				{"read_file", jsonArgs(t, map[string]any{"file_path": tc.path})},
				{"edit_file", jsonArgs(t, map[string]any{"file_path": tc.path, "old_string": "a", "new_string": "b"})},
				{"rm", jsonArgs(t, map[string]any{"path": tc.path})},
			} {
				text := fail(h, call.tool, call.args)
				assert.Contains(t, text, "invalid path", call.tool)
				assert.Contains(t, text, tc.want, call.tool)
			}
			if tc.path != "" { // "" is the root for ls, glob and grep
				for _, call := range []struct{ tool, args string }{
					{"ls", jsonArgs(t, map[string]any{"path": tc.path})},
					{"glob", jsonArgs(t, map[string]any{"pattern": "*", "path": tc.path})},
					{"grep", jsonArgs(t, map[string]any{"pattern": "x", "path": tc.path})},
				} {
					assert.Contains(t, fail(h, call.tool, call.args), tc.want, call.tool)
				}
			}
		})
	}
	assert.Equal(t, 1, vfs.Files(h.s).Len(), "nothing was written")
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
	assert.Contains(t, fail(h, "read_file", `{"file_path": "docs/../..hidden"}`), `".." segments are not allowed`)
}
