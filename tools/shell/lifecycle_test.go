package shell_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/tools"
	"github.com/offshoot-dev/offshoot/tools/shell"
)

// TestKeptInDirectory: what the files do not take (a binary, a link)
// stays in the session's directory for its next commands, and is told
// of once.
func TestKeptInDirectory(t *testing.T) {
	ctx := watchdog(t)
	tool := unconfined(t)
	s := newSession(t, tool, map[string]string{"a.txt": "a\n"})
	out := run(t, ctx, tool, s, "printf '\\000' > prog && ln -s a.txt link", 0)
	assert.Contains(t, out.Text, "Not copied into your files: link (a symbolic link, which is not followed); prog (binary, 1 bytes")
	out = run(t, ctx, tool, s, "test -f prog && test -L link && echo kept", 0)
	assert.Equal(t, "Exit code 0.\nFiles changed: none.\nOutput:\nkept\n", out.Text)
	assert.Equal(t, map[string]string{"a.txt": "a\n"}, files(s))

	// A file the session writes over one of them replaces it.
	tf, ok := toolNamed(t, s, "write_file")
	require.True(t, ok)
	w := tf.Call(ctx, &tools.Invocation{Session: s, Bus: s.Bus()}, json.RawMessage(`{"file_path": "link", "content": "text\n"}`))
	require.True(t, w.Success, w.Text)
	require.NoError(t, s.Dispatch(ctx, w.Events...))
	out = run(t, ctx, tool, s, "test -L link || cat link", 0)
	assert.Contains(t, out.Text, "Output:\ntext\n")
}

// toolNamed returns the VFS tool of that name.
func toolNamed(t *testing.T, _ *session.Session, name string) (tools.Tool, bool) {
	t.Helper()
	set, err := vfsTools()
	require.NoError(t, err)
	return set.Lookup(name)
}

// TestEviction: beyond 64 sessions, the directory used least recently is
// removed, and made again, whole, when its session runs a command.
func TestEviction(t *testing.T) {
	ctx := watchdog(t)
	tool := unconfined(t)
	shell.Fake(tool, func(context.Context, []string, time.Duration) shell.Ran { return shell.Ran{} })
	sessions := make([]*session.Session, 65)
	for i := range sessions {
		sessions[i] = newSession(t, tool, map[string]string{"a.txt": fmt.Sprint(i), "b.txt": "b"})
		run(t, ctx, tool, sessions[i], "true", 0)
	}
	n, dir := shell.Writes(tool, sessions[0].ID())
	assert.Equal(t, 0, n, "the first session's directory was removed")
	assert.Empty(t, dir)
	n, dir = shell.Writes(tool, sessions[64].ID())
	assert.Equal(t, 2, n)
	require.DirExists(t, dir)

	run(t, ctx, tool, sessions[0], "true", 0)
	n, _ = shell.Writes(tool, sessions[0].ID())
	assert.Equal(t, 2, n, "made again, whole")
}

// TestClose: Close removes the scratch directories; later calls fail
// with words for the model.
func TestClose(t *testing.T) {
	ctx := watchdog(t)
	tool, err := shell.New(shell.Options{Unconfined: true, Dir: t.TempDir()})
	require.NoError(t, err)
	s := newSession(t, tool, map[string]string{"a.txt": "a"})
	run(t, ctx, tool, s, "true", 0)
	_, dir := shell.Writes(tool, s.ID())
	require.DirExists(t, dir)
	require.NoError(t, tool.Close())
	require.NoError(t, tool.Close(), "twice")
	_, err = os.Stat(dir)
	assert.True(t, os.IsNotExist(err), "the directory is removed")
	out := tool.Call(ctx, &tools.Invocation{Session: s, Bus: s.Bus()}, json.RawMessage(`{"command": "true"}`))
	assert.False(t, out.Success)
	assert.Contains(t, out.Text, "the bash tool was closed")
}

// TestOptions: what New refuses, in words that say what to do.
func TestOptions(t *testing.T) {
	tests := []struct {
		opts shell.Options
		err  string
	}{
		{shell.Options{Timeout: -time.Second}, "Options.Timeout is -1s"},
		{shell.Options{Env: []string{"NOEQUALS"}}, `Options.Env entry "NOEQUALS" is not NAME=value`},
		{shell.Options{Env: []string{"=x"}}, "is not NAME=value"},
		{shell.Options{Env: []string{"HOME=/root"}}, "Options.Env sets HOME"},
	}
	for _, tt := range tests {
		_, err := shell.New(tt.opts)
		require.Error(t, err)
		assert.Contains(t, err.Error(), tt.err)
	}
}

// TestEnv: the program's variables reach the commands.
func TestEnv(t *testing.T) {
	ctx := watchdog(t)
	tool := newTool(t, shell.Options{Unconfined: true, Env: []string{"GOFLAGS=-mod=mod"}})
	s := newSession(t, tool, nil)
	out := run(t, ctx, tool, s, "echo $GOFLAGS", 0)
	assert.Contains(t, out.Text, "-mod=mod\n")
}

// TestNoSession: a call without a session, or whose session lacks the
// file reducers, fails with words for the model.
func TestNoSession(t *testing.T) {
	ctx := watchdog(t)
	tool := unconfined(t)
	out := tool.Call(ctx, nil, json.RawMessage(`{"command": "true"}`))
	assert.False(t, out.Success)
	assert.Contains(t, out.Text, "the call has no session")
	s, err := session.New()
	require.NoError(t, err)
	defer s.Close()
	out = tool.Call(ctx, &tools.Invocation{Session: s}, json.RawMessage(`{"command": "true"}`))
	assert.False(t, out.Success)
	assert.Contains(t, out.Text, "the file reducers are not installed")
}

// TestUnusableDirectory: a command that takes the permissions of a
// directory away does not stop the session's later commands, nor Close.
func TestUnusableDirectory(t *testing.T) {
	ctx := watchdog(t)
	tool := unconfined(t)
	s := newSession(t, tool, map[string]string{"d/a.txt": "a\n"})
	out := run(t, ctx, tool, s, "mkdir -p locked/deep && echo x > locked/deep/f && chmod 000 locked/deep locked", 0)
	assert.Contains(t, out.Text, "Exit code 0.")
	// The session writes a file into the locked directory.
	require.NoError(t, s.Dispatch(ctx, vfsWrite("locked/deep/g.txt", "g\n")))
	out = run(t, ctx, tool, s, "cat locked/deep/g.txt d/a.txt", 0)
	assert.Contains(t, out.Text, "Output:\ng\na\n")
}
