package shell_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/tools"
	"github.com/offshoot-dev/offshoot/tools/shell"
	"github.com/offshoot-dev/offshoot/tools/toolstest"
)

func TestCheck(t *testing.T) {
	toolstest.Check(t, unconfined(t))
}

// TestCommands runs real commands on a session's files and checks what
// the model reads and what the files become.
func TestCommands(t *testing.T) {
	t.Setenv("LLM_API_KEY", "sk-secret")
	t.Setenv("OPENAI_API_KEY", "sk-secret")
	start := map[string]string{"a.txt": "alpha\n", "docs/b.md": "beta\n", "old.txt": "old\n"}
	tests := []struct {
		name    string
		command string
		exit    int
		output  []string // the output holds each
		message []string // the message holds each
		files   map[string]string
	}{
		{name: "echo", command: "echo hello", output: []string{"hello\n"}, message: []string{"Exit code 0.", "Files changed: none."}, files: start},
		{name: "ls sees the files", command: "ls -R", output: []string{"a.txt", "docs", "b.md", "old.txt"}, files: start},
		{name: "exit code", command: "echo oops >&2; exit 3", exit: 3, output: []string{"oops\n"}, message: []string{"Exit code 3."}, files: start},
		{name: "sed -i edits", command: "sed -i 's/alpha/ALPHA/' a.txt", message: []string{"edited a.txt"},
			files: map[string]string{"a.txt": "ALPHA\n", "docs/b.md": "beta\n", "old.txt": "old\n"}},
		{name: "create and delete", command: "mkdir -p d/e && echo new > d/e/f.txt && rm old.txt", message: []string{"created d/e/f.txt", "deleted old.txt"},
			files: map[string]string{"a.txt": "alpha\n", "docs/b.md": "beta\n", "d/e/f.txt": "new\n"}},
		{name: "delete a directory", command: "rm -r docs", message: []string{"deleted docs/b.md"},
			files: map[string]string{"a.txt": "alpha\n", "old.txt": "old\n"}},
		{name: "file replaces directory", command: "rm -r docs && echo flat > docs", message: []string{"deleted docs/b.md", "created docs"},
			files: map[string]string{"a.txt": "alpha\n", "docs": "flat\n", "old.txt": "old\n"}},
		{name: "binary not copied", command: "printf 'a\\000b' > bin.dat", message: []string{"Not copied into your files: bin.dat (binary, 3 bytes"}, files: start},
		{name: "over the cap not copied", command: "head -c 60000 /dev/zero | tr '\\0' x > big.txt", message: []string{"big.txt (60000 characters, more than a file may hold"}, files: start},
		{name: "symlink not followed", command: "ln -s /etc/passwd link", message: []string{"link (a symbolic link, which is not followed)"}, files: start},
		{name: "binary replacing a file keeps the text", command: "printf '\\000' > a.txt", message: []string{"a.txt (binary"}, files: start},
		{name: "a NUL after the first 8 KiB is text, as a mount takes it", command: "head -c 9000 /dev/zero | tr '\\0' a > late.txt; printf '\\000' >> late.txt", message: []string{"created late.txt"},
			files: map[string]string{"a.txt": "alpha\n", "docs/b.md": "beta\n", "old.txt": "old\n", "late.txt": strings.Repeat("a", 9000) + "\x00"}},
		{name: "no input", command: "cat; echo done", output: []string{"done\n"}, files: start},
		{name: "environment", command: `echo "key=$LLM_API_KEY$OPENAI_API_KEY"; test "$HOME" = "$(pwd)" && echo home-is-scratch; echo "lang=$LANG"`,
			output: []string{"key=\n", "home-is-scratch", "lang="}, files: start},
		{name: "unicode name not copied", command: "echo x > é.txt", message: []string{"é.txt (its path is not printable ASCII"}, files: start},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := watchdog(t)
			tool := unconfined(t)
			s := newSession(t, tool, start)
			out := run(t, ctx, tool, s, tt.command, 0)
			require.True(t, out.Success, out.Text)
			r := resultOf(t, out)
			assert.Equal(t, tt.exit, r.ExitCode, out.Text)
			for _, want := range tt.output {
				assert.Contains(t, r.Output, want)
				assert.Contains(t, out.Text, want)
			}
			for _, want := range tt.message {
				assert.Contains(t, out.Text, want)
			}
			assert.NotContains(t, out.Text, "sk-secret")
			assert.Equal(t, tt.files, files(s))
		})
	}
}

// TestTimeout: a command that sleeps past its timeout is killed, with its
// process group.
func TestTimeout(t *testing.T) {
	ctx := watchdog(t)
	tool := unconfined(t)
	s := newSession(t, tool, nil)
	out := run(t, ctx, tool, s, "echo $$ > pid; echo started; sleep 60; echo never", 1000)
	r := resultOf(t, out)
	assert.True(t, r.TimedOut)
	assert.Equal(t, -1, r.ExitCode)
	assert.Contains(t, out.Text, "ran out of time after 1s and was killed")
	assert.Contains(t, r.Output, "started")
	assert.NotContains(t, r.Output, "never")
	pid, err := strconv.Atoi(strings.TrimSpace(files(s)["pid"]))
	require.NoError(t, err, "the command wrote its pid: %q", files(s)["pid"])
	requireGroupGone(t, ctx, pid)
}

// TestTimeoutClamped: a timeout over 10 minutes is cut to 10 minutes,
// and the model is told.
func TestTimeoutClamped(t *testing.T) {
	tests := []struct {
		name string
		ms   int
		want string
	}{
		{"default", 0, shell.DefaultTimeout.String()},
		{"given", 5000, "5s"},
		{"clamped", 24 * 3600 * 1000, shell.MaxTimeout.String()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := watchdog(t)
			tool := unconfined(t)
			var got string
			shell.Fake(tool, func(_ context.Context, _ []string, timeout time.Duration) shell.Ran {
				got = timeout.String()
				return shell.Ran{}
			})
			s := newSession(t, tool, nil)
			out := run(t, ctx, tool, s, "true", tt.ms)
			assert.Equal(t, tt.want, got)
			if tt.name == "clamped" {
				assert.Contains(t, out.Text, "cut to 10m0s")
			}
		})
	}
}

// TestCancel: cancelling the call kills the command.
func TestCancel(t *testing.T) {
	ctx := watchdog(t)
	tool := unconfined(t)
	s := newSession(t, tool, nil)
	// The command tells it started through a FIFO the test reads, then
	// sleeps; the test cancels the call then.
	dir := t.TempDir()
	fifo := filepath.Join(dir, "started")
	require.NoError(t, mkfifo(fifo))
	cctx, cancel := context.WithCancel(ctx)
	done := make(chan tools.Outcome, 1)
	go func() {
		args, _ := json.Marshal(shell.Params{Command: "echo $$ > " + fifo + "; sleep 60"})
		done <- tool.Call(cctx, &tools.Invocation{Session: s, Bus: s.Bus()}, args)
	}()
	pidText, err := os.ReadFile(fifo) // blocks until the command wrote
	require.NoError(t, err)
	cancel()
	var out tools.Outcome
	select {
	case out = <-done:
	case <-ctx.Done():
		t.Fatal("the call did not return after its context was cancelled")
	}
	assert.Contains(t, out.Text, "was stopped (the call was cancelled)")
	pid, err := strconv.Atoi(strings.TrimSpace(string(pidText)))
	require.NoError(t, err)
	requireGroupGone(t, ctx, pid)
}

// TestBigOutput: 10 MB of output reaches the model as its first and last
// 15,000 characters.
func TestBigOutput(t *testing.T) {
	ctx := watchdog(t)
	tool := unconfined(t)
	s := newSession(t, tool, nil)
	out := run(t, ctx, tool, s, "echo START; head -c 10000000 /dev/zero | tr '\\0' x; echo; echo END", 0)
	r := resultOf(t, out)
	assert.Equal(t, 0, r.ExitCode)
	assert.True(t, strings.HasPrefix(r.Output, "START\n"))
	assert.True(t, strings.HasSuffix(r.Output, "\nEND\n"))
	assert.Contains(t, r.Output, "characters of output left out")
	assert.LessOrEqual(t, len([]rune(r.Output)), shell.MaxOutputChars+100)
}

// TestBackgroundChild: a child the command leaves running in the
// background is killed when the command exits.
func TestBackgroundChild(t *testing.T) {
	ctx := watchdog(t)
	tool := unconfined(t)
	s := newSession(t, tool, nil)
	out := run(t, ctx, tool, s, "sleep 60 & echo $! > child; echo $$ > pid; (sleep 60 > /dev/null 2>&1 &); echo left", 0)
	r := resultOf(t, out)
	assert.Equal(t, 0, r.ExitCode)
	assert.Contains(t, r.Output, "left")
	pid, err := strconv.Atoi(strings.TrimSpace(files(s)["pid"]))
	require.NoError(t, err)
	requireGroupGone(t, ctx, pid)
}
