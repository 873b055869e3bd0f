package vfs_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/tools/vfs"
)

// snapshotWithFiles returns the snapshot JSON of a session with one file,
// its file table's JSON replaced by {"files":[files]}, and the index of
// the table's slice.
func snapshotWithFiles(t *testing.T, files ...string) ([]byte, int) {
	t.Helper()
	h := newHarness(t)
	h.write(map[string]string{"docs/a.md": "a"})
	data, err := session.MarshalSnapshot(h.s.Snapshot(), nil)
	require.NoError(t, err)
	var doc map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(data, &doc))
	var slices []map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(doc["slices"], &slices))
	at := -1
	for i, sl := range slices {
		if string(sl["slice_type"]) == `"offshoot.vfs.Table"` {
			at = i
			sl["items"] = json.RawMessage(`[{"files":[` + strings.Join(files, ",") + `]}]`)
		}
	}
	require.GreaterOrEqual(t, at, 0, "no file table in %s", data)
	doc["slices"], err = json.Marshal(slices)
	require.NoError(t, err)
	data, err = json.Marshal(doc)
	require.NoError(t, err)
	return data, at
}

// fileJSON is the JSON of a file.
func fileJSON(path, content string, version int) string {
	return fmt.Sprintf(`{"path":%q,"content":%q,"version":%d,"created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z"}`, path, content, version)
}

// A file table restored from snapshot JSON is checked like one built by the
// tools; a crafted one is a *session.RestoreError naming the item.
func TestRestoredFileTablesAreValidated(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files []string
		want  string
	}{
		{"an escaping path", []string{fileJSON("../escape.md", "x", 1)}, `files[0]: invalid path "../escape.md": must not have ".." segments`},
		{"a non-canonical path", []string{fileJSON("docs//a.md", "x", 1)}, `files[0]: path "docs//a.md" is not canonical`},
		{"a 1 MB path", []string{fileJSON(strings.Repeat("a", 1<<20), "x", 1)}, "must have segments of at most 80 characters"},
		{"a 1 MB non-canonical path", []string{fileJSON("/"+strings.Repeat("a/", 1<<19), "x", 1)}, "must have at most 16 segments"},
		{"a 1 MB path of slashes", []string{fileJSON(strings.Repeat("/", 1<<20)+"a", "x", 1)}, "is not canonical"},
		{"oversized content", []string{fileJSON("big.txt", strings.Repeat("x", vfs.MaxContentChars+1), 1)}, "the content is 48001 characters long; a file holds at most 48000"},
		{"a path twice", []string{fileJSON("a.md", "x", 1), fileJSON("a.md", "y", 1)}, "files[1]: a.md appears twice"},
		{"version 0", []string{fileJSON("a.md", "x", 0)}, "files[0] (a.md): version 0; versions start at 1"},
		{"a file below a file", []string{fileJSON("a", "x", 1), fileJSON("a/b", "y", 1)}, "files[1]: load a/b: not a directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data, at := snapshotWithFiles(t, tc.files...)
			snap, err := session.UnmarshalSnapshot(data, nil)
			var re *session.RestoreError
			require.ErrorAs(t, err, &re)
			assert.Equal(t, fmt.Sprintf("slices[%d].items[0]", at), re.Path)
			assert.Contains(t, re.Error(), tc.want)
			assert.Less(t, len(re.Error()), 1000, "the error repeats at most a clipped path")
			assert.Equal(t, session.Snapshot{}, snap, "nothing partial")
		})
	}
	data, _ := snapshotWithFiles(t, fileJSON("a.md", "x", 3), fileJSON("notes...md", "y", 1))
	snap, err := session.UnmarshalSnapshot(data, nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"a.md", "notes...md"}, paths(vfs.FilesOf(snap)))
}
