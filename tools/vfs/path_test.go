package vfs_test

import (
	"errors"
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
		{"dot dot", "..", `".." is not allowed anywhere`},
		{"dot dot segment", "docs/../../etc/passwd", `".." is not allowed anywhere`},
		{"leading dot dot", "/../a", `".." is not allowed anywhere`},
		{"dot dot inside a name", "notes..md", `".." is not allowed anywhere`},
		{"three dots", "a/...", `".." is not allowed anywhere`},
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
		{"dot dot", "../ok.md", `".." is not allowed`},
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
