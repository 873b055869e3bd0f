package shell_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/tools"
	"github.com/offshoot-dev/offshoot/tools/shell"
	"github.com/offshoot-dev/offshoot/tools/vfs"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// watchdog is the context of a test that runs commands: generous, so
// that only a hang fails it.
func watchdog(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// newTool returns a bash tool closed at the end of the test.
func newTool(t *testing.T, opts shell.Options) *shell.Tool {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the bash tool needs a Unix system")
	}
	if opts.Dir == "" {
		opts.Dir = t.TempDir()
	}
	tool, err := shell.New(opts)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, tool.Close()) })
	return tool
}

// unconfined returns a bash tool that runs commands without bubblewrap.
func unconfined(t *testing.T) *shell.Tool {
	return newTool(t, shell.Options{Unconfined: true})
}

// newSession returns a session holding files, with the VFS tools and
// tool installed, as the runner installs them.
func newSession(t *testing.T, tool tools.Tool, files map[string]string) *session.Session {
	t.Helper()
	s, err := session.New()
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	set, err := vfs.Tools(vfs.Options{})
	require.NoError(t, err)
	set, err = set.With(tool)
	require.NoError(t, err)
	require.NoError(t, set.Install(context.Background(), s))
	for p, content := range files {
		require.NoError(t, s.Dispatch(context.Background(), vfs.FileWritten{Path: p, Content: content, Version: 1}))
	}
	return s
}

// run calls tool on s with the command, as the runner does (the events
// dispatched to s), and returns the outcome.
func run(t *testing.T, ctx context.Context, tool tools.Tool, s *session.Session, command string, timeoutMS int) tools.Outcome {
	t.Helper()
	args, err := json.Marshal(shell.Params{Command: command, Timeout: timeoutMS})
	require.NoError(t, err)
	out := tool.Call(ctx, &tools.Invocation{Session: s, Bus: s.Bus()}, args)
	require.NoError(t, out.Err, out.Text)
	require.NoError(t, s.Dispatch(ctx, out.Events...), "the events of %q", command)
	return out
}

// files returns the session's files by path.
func files(s *session.Session) map[string]string {
	out := map[string]string{}
	for f := range vfs.Files(s).All() {
		out[f.Path] = f.Content
	}
	return out
}

// resultOf returns the outcome's result value.
func resultOf(t *testing.T, out tools.Outcome) shell.Result {
	t.Helper()
	r, ok := out.Value.(shell.Result)
	require.True(t, ok, "the value is a %T", out.Value)
	return r
}

// liveInGroup returns the processes of group pgid that are not zombies,
// read from /proc (Linux).
func liveInGroup(t *testing.T, pgid int) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	require.NoError(t, err)
	var live []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue // gone meanwhile
		}
		// pid (comm) state ppid pgrp …; comm may hold spaces and parentheses.
		rest := string(data[strings.LastIndexByte(string(data), ')')+2:])
		fields := strings.Fields(rest)
		if len(fields) < 3 || fields[0] == "Z" || fields[0] == "X" {
			continue
		}
		if g, _ := strconv.Atoi(fields[2]); g == pgid {
			live = append(live, pid)
		}
	}
	return live
}

// requireGroupGone waits (up to the watchdog) for the kernel to finish
// killing the group pgid: SIGKILL is delivered, not awaited, by kill.
func requireGroupGone(t *testing.T, ctx context.Context, pgid int) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("reading processes needs Linux's /proc")
	}
	for len(liveInGroup(t, pgid)) > 0 {
		select {
		case <-ctx.Done():
			t.Fatalf("processes of the command's group %d are still running: %v", pgid, liveInGroup(t, pgid))
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// vfsTools returns the VFS tools.
func vfsTools() (tools.Toolset, error) { return vfs.Tools(vfs.Options{}) }

// vfsWrite is the event that creates a file.
func vfsWrite(p, content string) vfs.FileWritten {
	return vfs.FileWritten{Path: p, Content: content, Version: 0}
}
