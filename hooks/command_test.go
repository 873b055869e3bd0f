package hooks_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/offshoot-dev/offshoot/hooks"
)

// logs is a logger that keeps what it is told.
type logs struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logs) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logs) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// run runs one command hook for in under a watchdog, returning its
// answer and what was logged.
func run(t *testing.T, h *hooks.Hooks, in hooks.Input) (hooks.Output, string) {
	t.Helper()
	var l logs
	h.Logger = slog.New(slog.NewTextHandler(&l, nil))
	if h.Dir == "" {
		h.Dir = t.TempDir()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a watchdog, never reached
	defer cancel()
	out, err := h.Run(ctx, in)
	require.NoError(t, err)
	return out, l.String()
}

func one(ev hooks.Event, command string) *hooks.Hooks {
	return &hooks.Hooks{List: []hooks.Hook{{Event: ev, Command: command}}}
}

func TestCommandExitCodesAndAnswers(t *testing.T) {
	defer goleak.VerifyNone(t)
	for _, tt := range []struct {
		name    string
		event   hooks.Event
		command string
		want    hooks.Output
		logged  string // in the log when the hook failed without blocking
	}{
		{"exit 0, nothing", hooks.PreToolUse, "exit 0", hooks.Output{}, ""},
		{"plain stdout is context for a prompt", hooks.UserPromptSubmit, "echo 'branch: main'", hooks.Output{AdditionalContext: "branch: main"}, ""},
		{"plain stdout is context at a start", hooks.SessionStart, "printf 'today is Friday\n\n'", hooks.Output{AdditionalContext: "today is Friday"}, ""},
		{"plain stdout is not read after a tool", hooks.PostToolUse, "echo formatted", hooks.Output{}, ""},
		{"plain stdout is not read at a stop", hooks.Stop, "echo done", hooks.Output{}, ""},
		{"deny as JSON", hooks.PreToolUse,
			`echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "not on main"}}'`,
			hooks.Output{PermissionDecision: hooks.Deny, PermissionDecisionReason: "not on main"}, ""},
		{"allow with a changed input", hooks.PreToolUse,
			`echo '{"hookSpecificOutput": {"permissionDecision": "allow", "updatedInput": {"command": "go test ./..."}}}'`,
			hooks.Output{PermissionDecision: hooks.Allow, UpdatedInput: json.RawMessage(`{"command": "go test ./..."}`)}, ""},
		{"ask as JSON", hooks.PreToolUse, `echo '{"hookSpecificOutput": {"permissionDecision": "ask", "permissionDecisionReason": "sure?"}}'`,
			hooks.Output{PermissionDecision: hooks.Ask, PermissionDecisionReason: "sure?"}, ""},
		{"the older approve", hooks.PreToolUse, `echo '{"decision": "approve", "reason": "fine"}'`,
			hooks.Output{PermissionDecision: hooks.Allow, PermissionDecisionReason: "fine"}, ""},
		{"the older block denies a call", hooks.PreToolUse, `echo '{"decision": "block", "reason": "no"}'`,
			hooks.Output{PermissionDecision: hooks.Deny, PermissionDecisionReason: "no"}, ""},
		{"a stop blocked as JSON", hooks.Stop, `echo '{"decision": "block", "reason": "run the tests first"}'`,
			hooks.Output{Block: true, Reason: "run the tests first"}, ""},
		{"a tool's result blocked, with context", hooks.PostToolUse,
			`echo '{"decision": "block", "reason": "lint failed", "hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "3 warnings"}}'`,
			hooks.Output{Block: true, Reason: "lint failed", AdditionalContext: "3 warnings"}, ""},
		{"context as JSON for a prompt", hooks.UserPromptSubmit,
			`echo '{"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "ticket 42"}}'`,
			hooks.Output{AdditionalContext: "ticket 42"}, ""},
		{"a prompt blocked as JSON", hooks.UserPromptSubmit, `echo '{"decision": "block", "reason": "a key is in it"}'`,
			hooks.Output{Block: true, Reason: "a key is in it"}, ""},
		{"continue false stops", hooks.PostToolUse, `echo '{"continue": false, "stopReason": "build broken", "systemMessage": "careful"}'`,
			hooks.Output{Stop: true, StopReason: "build broken", SystemMessage: "careful"}, ""},
		{"exit 2 denies a call with stderr", hooks.PreToolUse, "echo 'rm is not allowed' >&2; exit 2",
			hooks.Output{PermissionDecision: hooks.Deny, PermissionDecisionReason: "rm is not allowed"}, ""},
		{"exit 2 ignores stdout's JSON", hooks.PreToolUse, `echo '{"hookSpecificOutput": {"permissionDecision": "allow"}}'; echo no >&2; exit 2`,
			hooks.Output{PermissionDecision: hooks.Deny, PermissionDecisionReason: "no"}, ""},
		{"exit 2 blocks a stop", hooks.Stop, "echo 'tests fail' >&2; exit 2", hooks.Output{Block: true, Reason: "tests fail"}, ""},
		{"exit 2 blocks a prompt", hooks.UserPromptSubmit, "echo 'no secrets' >&2; exit 2", hooks.Output{Block: true, Reason: "no secrets"}, ""},
		{"exit 2 blocks a subagent's stop", hooks.SubagentStop, "echo 'more' >&2; exit 2", hooks.Output{Block: true, Reason: "more"}, ""},
		{"exit 2 without stderr says so", hooks.Stop, "exit 2", hooks.Output{Block: true, Reason: `the Stop hook "exit 2" refused without saying why`}, ""},
		{"exit 2 at a start is shown", hooks.SessionStart, "echo 'cannot block' >&2; exit 2", hooks.Output{SystemMessage: "cannot block"}, ""},
		{"exit 1 goes on", hooks.PreToolUse, "echo 'oops' >&2; exit 1", hooks.Output{}, "exited with status 1: oops"},
		{"exit 127 goes on", hooks.Stop, "./no-such-script.sh", hooks.Output{}, "exited with status 127"},
		{"bad JSON goes on", hooks.PreToolUse, `echo '{"hookSpecificOutput": '`, hooks.Output{}, "not a JSON answer"},
		{"a decision of another event goes on", hooks.Stop, `echo '{"hookSpecificOutput": {"permissionDecision": "allow"}}'`,
			hooks.Output{}, "for PreToolUse hooks only"},
		{"an unknown decision goes on", hooks.PreToolUse, `echo '{"hookSpecificOutput": {"permissionDecision": "maybe"}}'`,
			hooks.Output{}, "not allow, deny or ask"},
		{"an input that is no object goes on", hooks.PreToolUse, `echo '{"hookSpecificOutput": {"updatedInput": "rm -rf /"}}'`,
			hooks.Output{}, "not a JSON object"},
		{"JSON for another event goes on", hooks.PreToolUse, `echo '{"hookSpecificOutput": {"hookEventName": "Stop"}}'`,
			hooks.Output{}, "not PreToolUse"},
		{"bad JSON for a prompt is context", hooks.UserPromptSubmit, `echo '{not json'`, hooks.Output{AdditionalContext: "{not json"}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, logged := run(t, one(tt.event, tt.command), hooks.Input{Event: tt.event, ToolName: "bash"})
			require.Equal(t, tt.want, out)
			if tt.logged == "" {
				require.Empty(t, logged)
			} else {
				require.Contains(t, logged, tt.logged)
				require.Contains(t, logged, "a hook failed; going on")
			}
		})
	}
}

// The hook reads Claude Code's JSON on stdin, runs in the project's
// directory, and is given offshoot's tool under Claude Code's name.
func TestCommandInput(t *testing.T) {
	dir := t.TempDir()
	h := &hooks.Hooks{Dir: dir, List: []hooks.Hook{
		{Event: hooks.PreToolUse, Matcher: "Bash", Command: `cat > "$CLAUDE_PROJECT_DIR/in.json"; pwd > pwd.txt`},
	}}
	out, logged := run(t, h, hooks.Input{SessionID: "s1", Event: hooks.PreToolUse, ToolName: "bash", ToolInput: json.RawMessage(`{"command":"ls"}`), ToolUseID: "call_1"})
	require.Equal(t, hooks.Output{}, out)
	require.Empty(t, logged)
	data, err := os.ReadFile(filepath.Join(dir, "in.json"))
	require.NoError(t, err)
	require.JSONEq(t, `{"session_id": "s1", "cwd": "`+dir+`", "hook_event_name": "PreToolUse", "tool_name": "Bash",
		"tool_input": {"command": "ls"}, "tool_use_id": "call_1"}`, string(data))
	pwd, err := os.ReadFile(filepath.Join(dir, "pwd.txt"))
	require.NoError(t, err)
	real, err := filepath.EvalSymlinks(dir)
	require.NoError(t, err)
	require.Equal(t, real, strings.TrimSpace(string(pwd)))
}

// A hook gets a reduced environment: no model key of this process's, nor
// of the settings' env.
func TestCommandEnvironment(t *testing.T) {
	for _, k := range []string{"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "LLM_API_KEY", "LIGHT_LLM_API_KEY", "LLM_BASE_URL", "MY_SERVICE_API_KEY", "UNRELATED_VAR"} {
		t.Setenv(k, "sekrit-"+k)
	}
	dir := t.TempDir()
	h := &hooks.Hooks{Dir: dir, Env: map[string]string{"GOFLAGS": "-mod=mod", "ANTHROPIC_AUTH_TOKEN": "sekrit", "X_API_KEY": "sekrit"},
		List: []hooks.Hook{{Event: hooks.UserPromptSubmit, Command: "env"}}}
	out, _ := run(t, h, hooks.Input{Event: hooks.UserPromptSubmit})
	env := out.AdditionalContext
	require.NotContains(t, env, "sekrit")
	require.NotContains(t, env, "UNRELATED_VAR")
	require.Contains(t, env, "GOFLAGS=-mod=mod")
	require.Contains(t, env, "CLAUDE_PROJECT_DIR="+dir)
	require.Contains(t, env, "OFFSHOOT_PROJECT_DIR="+dir)
	require.Contains(t, env, "PATH=")
}

// A hook that does not end is killed, with everything it started, when
// its timeout is up; the agent goes on.
func TestCommandTimeoutKillsTheGroup(t *testing.T) {
	defer goleak.VerifyNone(t)
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	// The hook's child blocks reading the FIFO, which no one writes, and
	// holds the hook's stdout: the hook returns only once it is dead.
	h := &hooks.Hooks{Dir: dir, List: []hooks.Hook{
		{Event: hooks.Stop, Command: `cat fifo & wait`, Timeout: 300 * time.Millisecond},
		{Event: hooks.Stop, Command: `echo '{"decision": "block", "reason": "the other one"}'`},
	}}
	out, logged := run(t, h, hooks.Input{Event: hooks.Stop})
	require.Equal(t, hooks.Output{Block: true, Reason: "the other one"}, out)
	require.Contains(t, logged, "did not finish within its timeout")
	// No reader is left on the FIFO: opening it to write finds none.
	f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0)
	if err == nil {
		f.Close()
	}
	require.True(t, errors.Is(err, syscall.ENXIO), "a reader is still open on the FIFO: %v", err)
}

// A hook that ends leaving a process that holds its output open is read
// as it ended, and the process is killed.
func TestCommandLeavesAProcess(t *testing.T) {
	defer goleak.VerifyNone(t)
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	h := &hooks.Hooks{Dir: dir, List: []hooks.Hook{
		{Event: hooks.Stop, Command: `cat fifo & echo '{"decision": "block", "reason": "not yet"}'`},
	}}
	out, logged := run(t, h, hooks.Input{Event: hooks.Stop})
	require.Equal(t, hooks.Output{Block: true, Reason: "not yet"}, out)
	require.Empty(t, logged)
	f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0)
	if err == nil {
		f.Close()
	}
	require.True(t, errors.Is(err, syscall.ENXIO), "a reader is still open on the FIFO: %v", err)
}

// A hook that writes without end costs bounded memory, and the model
// reads a bounded part.
func TestCommandOutputIsBounded(t *testing.T) {
	out, _ := run(t, one(hooks.UserPromptSubmit, "head -c 5000000 /dev/zero | tr '\\0' a"), hooks.Input{Event: hooks.UserPromptSubmit})
	require.LessOrEqual(t, len(out.AdditionalContext), 10_010)
	require.True(t, strings.HasPrefix(out.AdditionalContext, "aaaa"))
	out, _ = run(t, one(hooks.Stop, "head -c 5000000 /dev/zero | tr '\\0' b >&2; exit 2"), hooks.Input{Event: hooks.Stop})
	require.True(t, out.Block)
	require.LessOrEqual(t, len(out.Reason), 10_010)
}

// The same command listed twice runs once; hooks of one event run at the
// same time and their answers merge in the order they are listed.
func TestRunParallelDeduplicatedOrdered(t *testing.T) {
	defer goleak.VerifyNone(t)
	dir := t.TempDir()
	a, b := make(chan struct{}), make(chan struct{})
	// Each Go hook waits for the other to have started: they can only
	// both finish if they run together.
	meet := func(mine, theirs chan struct{}, text string) hooks.Func {
		return func(ctx context.Context, _ hooks.Input) (hooks.Output, error) {
			close(mine)
			select {
			case <-theirs:
			case <-ctx.Done():
				return hooks.Output{}, ctx.Err()
			}
			return hooks.Output{AdditionalContext: text}, nil
		}
	}
	h := &hooks.Hooks{Dir: dir, List: []hooks.Hook{
		{Event: hooks.UserPromptSubmit, Func: meet(a, b, "first")},
		{Event: hooks.UserPromptSubmit, Command: "echo x >> count.txt"},
		{Event: hooks.UserPromptSubmit, Func: meet(b, a, "second")},
		{Event: hooks.UserPromptSubmit, Command: "echo x >> count.txt"},
	}}
	out, logged := run(t, h, hooks.Input{Event: hooks.UserPromptSubmit})
	require.Empty(t, logged)
	require.Equal(t, "first\nsecond", out.AdditionalContext)
	data, err := os.ReadFile(filepath.Join(dir, "count.txt"))
	require.NoError(t, err)
	require.Equal(t, "x\n", string(data))
}

// A cancelled context ends Run with its error, the hooks stopped.
func TestRunCancelled(t *testing.T) {
	defer goleak.VerifyNone(t)
	ctx, cancel := context.WithCancel(context.Background())
	h := &hooks.Hooks{Dir: t.TempDir(), List: []hooks.Hook{{Event: hooks.Stop, Func: func(ctx context.Context, _ hooks.Input) (hooks.Output, error) {
		cancel()
		<-ctx.Done()
		return hooks.Output{}, ctx.Err()
	}}, {Event: hooks.Stop, Command: "cat fifo-that-does-not-exist-but-sleeps; sleep 1000"}}}
	_, err := h.Run(ctx, hooks.Input{Event: hooks.Stop})
	require.ErrorIs(t, err, context.Canceled)
}
