package shell_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/tools/shell"
	"github.com/offshoot-dev/offshoot/tools/vfs"
)

// TestIncrementalSync: a session's scratch directory is written whole
// once, then only for what changed in the session's files; what a command
// changed is not written back.
func TestIncrementalSync(t *testing.T) {
	ctx := watchdog(t)
	tool := unconfined(t)
	start := map[string]string{}
	for i := range 50 {
		start[fmt.Sprintf("src/f%02d.txt", i)] = fmt.Sprintf("file %d\n", i)
	}
	s := newSession(t, tool, start)
	writes := func() int { n, _ := shell.Writes(tool, s.ID()); return n }

	run(t, ctx, tool, s, "true", 0)
	require.Equal(t, 50, writes(), "the first command writes every file")
	run(t, ctx, tool, s, "cat src/f00.txt", 0)
	assert.Equal(t, 50, writes(), "a second command writes nothing")

	run(t, ctx, tool, s, "echo more >> src/f01.txt && echo new > new.txt && rm src/f02.txt", 0)
	run(t, ctx, tool, s, "true", 0)
	assert.Equal(t, 50, writes(), "the command's own changes are not written back")

	f, _ := vfs.Files(s).Get("src/f03.txt")
	require.NoError(t, s.Dispatch(ctx, vfs.FileWritten{Path: "src/f03.txt", Content: "edited\n", Version: f.Version + 1}))
	require.NoError(t, s.Dispatch(ctx, vfs.FileDeleted{Path: "src/f04.txt"}))
	out := run(t, ctx, tool, s, "cat src/f03.txt; ls src | wc -l", 0)
	assert.Equal(t, 51, writes(), "only the file edited in the session is written")
	assert.Contains(t, out.Text, "edited\n")
	assert.Contains(t, out.Text, "48\n", "f02 and f04 are gone from the directory")

	// An edit of the same size within the same second still shows.
	run(t, ctx, tool, s, "printf 'file 5!\\n' > src/f05.txt", 0)
	assert.Equal(t, "file 5!\n", files(s)["src/f05.txt"])
}

// TestRollback: rolling a session back brings its directory back too.
func TestRollback(t *testing.T) {
	ctx := watchdog(t)
	tool := unconfined(t)
	s := newSession(t, tool, map[string]string{"a.txt": "a\n"})
	snap := s.Snapshot()
	run(t, ctx, tool, s, "echo b > b.txt && rm a.txt", 0)
	require.Equal(t, map[string]string{"b.txt": "b\n"}, files(s))
	require.NoError(t, s.Rollback(snap))
	out := run(t, ctx, tool, s, "ls", 0)
	assert.Contains(t, out.Text, "a.txt")
	assert.NotContains(t, out.Text, "b.txt")
	assert.Equal(t, map[string]string{"a.txt": "a\n"}, files(s))
}

// TestForksIsolated: two children forked from one session, running
// commands that write the same path, see only their own files; the parent
// is unchanged until a child's artifacts come back.
func TestForksIsolated(t *testing.T) {
	ctx := watchdog(t)
	tool := unconfined(t)
	parent := newSession(t, tool, map[string]string{"shared.txt": "from the parent\n"})
	base := parent.Snapshot()
	children := make([]*session.Session, 2)
	for i := range children {
		c, err := parent.Fork()
		require.NoError(t, err)
		t.Cleanup(func() { _ = c.Close() })
		children[i] = c
	}
	for i, c := range children {
		run(t, ctx, tool, c, fmt.Sprintf("echo child %d > out.txt && echo child %d >> shared.txt", i, i), 0)
	}
	for i, c := range children {
		out := run(t, ctx, tool, c, "cat out.txt shared.txt", 0)
		assert.Equal(t, fmt.Sprintf("Exit code 0.\nFiles changed: none.\nOutput:\nchild %d\nfrom the parent\nchild %d\n", i, i), out.Text)
		assert.Equal(t, map[string]string{
			"out.txt":    fmt.Sprintf("child %d\n", i),
			"shared.txt": fmt.Sprintf("from the parent\nchild %d\n", i),
		}, files(c))
	}
	assert.Equal(t, map[string]string{"shared.txt": "from the parent\n"}, files(parent), "the parent is unchanged")
	parentOut := run(t, ctx, tool, parent, "ls", 0)
	assert.NotContains(t, parentOut.Text, "out.txt")

	// The second child's work comes back as artifacts, as a delegating
	// tool hands them back.
	state := tool.Spec().State
	require.NotNil(t, state)
	names, events := state.Artifacts(base, children[1].Snapshot())
	assert.Equal(t, []string{"out.txt", "shared.txt"}, names)
	require.NoError(t, parent.Dispatch(ctx, events...))
	assert.Equal(t, map[string]string{"out.txt": "child 1\n", "shared.txt": "from the parent\nchild 1\n"}, files(parent))
	out := run(t, ctx, tool, parent, "cat out.txt", 0)
	assert.Contains(t, out.Text, "child 1\n")
}
