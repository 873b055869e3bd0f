package vfs_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/sessiontest"
	"github.com/offshoot-dev/offshoot/tools/vfs"
)

func TestForkedChildWritesLeaveParentUnchanged(t *testing.T) {
	h := newHarness(t)
	h.write(map[string]string{"shared.md": "parent", "docs/a.md": "a"})
	before := sessiontest.Capture(h.s)

	child, err := h.s.Fork()
	require.NoError(t, err)
	defer child.Close()
	sessiontest.AssertParity(t, before.Snapshot(), child)

	callOn(t, h.set, child, "write_file", `{"file_path": "child.md", "content": "mine"}`)
	callOn(t, h.set, child, "edit_file", `{"file_path": "shared.md", "old_string": "parent", "new_string": "child"}`)
	callOn(t, h.set, child, "rm", `{"path": "docs"}`)

	sessiontest.AssertUnchanged(t, before, h.s)
	assert.Equal(t, []string{"child.md", "shared.md"}, paths(vfs.Files(child)))
	assert.Equal(t, []string{"docs/a.md", "shared.md"}, paths(vfs.Files(h.s)))
	f, _ := vfs.Files(h.s).Get("shared.md")
	assert.Equal(t, "parent", f.Content)

	// And the other way: the parent's writes do not reach the child.
	h.write(map[string]string{"later.md": "parent only"})
	_, found := vfs.Files(child).Get("later.md")
	assert.False(t, found)
}

func TestRollbackRestoresFiles(t *testing.T) {
	h := newHarness(t)
	h.write(map[string]string{"a.md": "v1"})
	snap := h.s.Snapshot()
	ok[vfs.WriteResult](h, "edit_file", `{"file_path": "a.md", "old_string": "v1", "new_string": "v2"}`)
	h.write(map[string]string{"b.md": "new"})
	ok[vfs.RemoveResult](h, "rm", `{"path": "a.md"}`)

	require.NoError(t, h.s.Rollback(snap))
	sessiontest.AssertUnchanged(t, sessiontest.CaptureSnapshot(snap), h.s)
	f, found := vfs.Files(h.s).Get("a.md")
	require.True(t, found)
	assert.Equal(t, vfs.File{Path: "a.md", Content: "v1", Version: 1, CreatedAt: stamp(t0), UpdatedAt: stamp(t0)}, f)
	assert.Equal(t, 1, vfs.Files(h.s).Len())
	assert.Equal(t, 1, vfs.FilesOf(snap).Len())
}

func TestSameToolsOnTwoSessions(t *testing.T) {
	h := newHarness(t)
	other, err := session.New()
	require.NoError(t, err)
	defer other.Close()
	require.NoError(t, h.set.Install(context.Background(), other))
	require.NoError(t, h.set.Install(context.Background(), other), "installing twice is harmless")

	callOn(t, h.set, h.s, "write_file", `{"file_path": "a.md", "content": "first"}`)
	callOn(t, h.set, other, "write_file", `{"file_path": "a.md", "content": "second"}`)
	callOn(t, h.set, other, "write_file", `{"file_path": "b.md", "content": "only here"}`)

	a1, _ := vfs.Files(h.s).Get("a.md")
	a2, _ := vfs.Files(other).Get("a.md")
	assert.Equal(t, "first", a1.Content)
	assert.Equal(t, "second", a2.Content)
	assert.Equal(t, 1, vfs.Files(h.s).Len())
	assert.Equal(t, 2, vfs.Files(other).Len())
}

func TestToolsNeedASessionWithTheReducers(t *testing.T) {
	set, err := vfs.Tools(vfs.Options{})
	require.NoError(t, err)
	write, _ := set.Lookup("write_file")

	out := write.Call(context.Background(), nil, json.RawMessage(`{"file_path": "a", "content": "b"}`))
	assert.False(t, out.Success)
	assert.Contains(t, out.Text, "Tool 'write_file' execution failed: the call has no session")

	bare, err := session.New()
	require.NoError(t, err)
	defer bare.Close()
	out = write.Call(context.Background(), nil, json.RawMessage(`{"file_path": "a", "content": "b"}`))
	assert.False(t, out.Success)
	out = callOn(t, set, bare, "write_file", `{"file_path": "a", "content": "b"}`)
	assert.Contains(t, out.Text, "the VFS tools are not installed on session")
	ls := callOn(t, set, bare, "ls", `{}`)
	assert.True(t, ls.Success, "reading needs no reducers: %s", ls.Text)
}

// The reducers check events as the tools do, so events dispatched by other
// code, or based on a stale read, cannot corrupt the table.
func TestReducersRejectBadEvents(t *testing.T) {
	h := newHarness(t)
	h.write(map[string]string{"a.md": "v1", "dir/x.md": "x"})
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		event any
		want  error
	}{
		{"create over an existing file", vfs.FileWritten{Path: "a.md", Content: "x", Version: 1}, vfs.ErrExists},
		{"stale version", vfs.FileWritten{Path: "a.md", Content: "x", Version: 3}, vfs.ErrStale},
		{"negative version", vfs.FileWritten{Path: "a.md", Content: "x", Version: -1}, vfs.ErrStale},
		{"later version of a missing file", vfs.FileWritten{Path: "b.md", Content: "x", Version: 2}, vfs.ErrNotFound},
		{"file at a directory", vfs.FileWritten{Path: "dir", Content: "x"}, vfs.ErrIsDirectory},
		{"file below a file", vfs.FileWritten{Path: "a.md/b", Content: "x"}, vfs.ErrNotDirectory},
		{"invalid UTF-8", vfs.FileWritten{Path: "c.md", Content: "\xff"}, vfs.ErrContent},
		{"non-canonical path", vfs.FileWritten{Path: "/c.md", Content: "x"}, vfs.ErrInvalidPath},
		{"invalid path", vfs.FileWritten{Path: "../c.md", Content: "x"}, vfs.ErrInvalidPath},
		{"delete nothing", vfs.FileDeleted{Path: "nothing"}, vfs.ErrNotFound},
		{"delete the root", vfs.FileDeleted{Path: ""}, vfs.ErrInvalidPath},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := sessiontest.Capture(h.s)
			err := h.s.Dispatch(ctx, tc.event)
			var re *session.ReducerError
			require.True(t, errors.As(err, &re), "got %v", err)
			assert.ErrorIs(t, err, tc.want)
			sessiontest.AssertUnchanged(t, before, h.s)
		})
	}
}

// Other code may dispatch the events directly; version 0 takes the next.
func TestDispatchEventsDirectly(t *testing.T) {
	s, err := session.New()
	require.NoError(t, err)
	defer s.Close()
	require.NoError(t, s.Install(context.Background(), vfs.Reducers(vfs.Table{})))
	ctx := context.Background()
	require.NoError(t, s.Dispatch(ctx, vfs.FileWritten{Path: "a.md", Content: "1"}, vfs.FileWritten{Path: "a.md", Content: "2"}, vfs.FileWritten{Path: "a.md", Content: "3", Version: 3}))
	f, _ := vfs.Files(s).Get("a.md")
	assert.Equal(t, 3, f.Version)
	assert.Equal(t, "3", f.Content)
	require.NoError(t, s.Dispatch(ctx, vfs.FileDeleted{Path: "a.md"}))
	assert.Equal(t, 0, vfs.Files(s).Len())
}

func TestSnapshotJSONRoundTrip(t *testing.T) {
	h := newHarness(t)
	h.write(tree)
	back := sessiontest.RoundTrip(t, h.s, h.s.Registry())
	assert.True(t, vfs.FilesOf(back).Equal(vfs.Files(h.s)))
	assert.Equal(t, len(tree), vfs.FilesOf(back).Len())
}

// Readers never block on writers and never see half a write.
func TestConcurrentReadsAndWrites(t *testing.T) {
	h := newHarness(t)
	h.write(map[string]string{"counter.txt": "0"})
	var wg sync.WaitGroup
	for r := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				out := callOn(t, h.set, h.s, []string{"ls", "read_file", "glob", "grep"}[r], []string{`{}`, `{"file_path": "counter.txt"}`, `{"pattern": "**"}`, `{"pattern": "."}`}[r])
				assert.True(t, out.Success, out.Text)
			}
		}()
	}
	for i := range 50 {
		callOn(t, h.set, h.s, "write_file", jsonArgs(t, vfs.WriteParams{FilePath: "f/" + string(rune('a'+i%26)) + string(rune('a'+i/26)), Content: "x"}))
	}
	wg.Wait()
	assert.Equal(t, 51, vfs.Files(h.s).Len())
}

// paths lists the paths of a table in order.
func paths(t vfs.Table) []string {
	out := []string{}
	for f := range t.All() {
		out = append(out, f.Path)
	}
	return out
}
