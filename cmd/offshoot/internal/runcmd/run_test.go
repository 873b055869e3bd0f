package runcmd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot"
	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/cli"
	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/progress"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
)

// watchdog bounds every run of these tests.
const watchdog = time.Minute

// fixture is a project with a home, and the output of a run in it.
type fixture struct {
	env            *cli.Env
	vars           map[string]string
	stdout, stderr *bytes.Buffer
}

// newFixture returns a project holding files, and a home, with no model
// configured.
func newFixture(t *testing.T, files map[string]string) *fixture {
	t.Helper()
	dir, home := t.TempDir(), t.TempDir()
	for path, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(path))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	}
	f := &fixture{vars: map[string]string{"HOME": home}, stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}}
	f.env = &cli.Env{ProjectDir: dir, HomeDir: home, Stdin: strings.NewReader(""), Stdout: f.stdout, Stderr: f.stderr,
		Getenv: func(k string) string { return f.vars[k] }}
	return f
}

// script has the commands answer from a scripted model playing text, a
// script for scripted.LoadScript.
func (f *fixture) script(t *testing.T, text string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "script.json")
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	f.vars[cli.ScriptEnv] = path
}

// run runs r in the fixture under the watchdog.
func (f *fixture) run(t *testing.T, ctx context.Context, r *run) error {
	t.Helper()
	r.env = f.env
	// The runs here keep no session on disk (--no-store): the stored
	// sessions are the scripts' (testdata/script/sessions.txtar).
	r.flags.Store.Off = r.flags.Store.DSN == ""
	ctx, cancel := context.WithTimeout(ctx, watchdog)
	defer cancel()
	err := r.run(ctx)
	require.NotErrorIs(t, ctx.Err(), context.DeadlineExceeded, "the run did not end in %s", watchdog)
	return err
}

func code(err error) int { return cli.Code(err, true) }

// readSnapshot loads a saved snapshot as 'offshoot snapshot show' does.
func readSnapshot(t *testing.T, path string) session.Snapshot {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	reg, err := cli.SnapshotRegistry()
	require.NoError(t, err)
	snap, err := session.UnmarshalSnapshot(data, reg)
	require.NoError(t, err)
	return snap
}

// The story of a run: the main agent looks at the files, dispatches the
// worker and starts an agent in the background, answers; the run waits
// for the background agent and has the main agent read its report.
const story = `{"turns": [
  {"when": {"system_contains": "You carry out one block of work"}, "turns": [
    {"tool_calls": [{"name": "read_file", "arguments": {"file_path": "README.md"}}]},
    {"text": "The README says hello."}
  ]},
  {"when": {"system_contains": "# Task\nCount the files"}, "turns": [{"text": "There is 1 file."}]},
  {"when": {"last_user_contains": "task-notification"}, "turns": [{"text": "The count is in: 1 file.", "repeat": true}]},
  {"text": "Let me look.", "tool_calls": [{"name": "ls", "arguments": {"path": ""}}]},
  {"tool_calls": [
    {"name": "dispatch_subagent", "arguments": {"mode": "ad_hoc", "prompt_ns": "offshoot", "prompt_key": "worker", "instructions": "Say what README.md says."}},
    {"name": "Task", "arguments": {"subagent_type": "general-purpose", "description": "Count the files", "prompt": "Count the files.", "run_in_background": true}}
  ]},
  {"text": "The README says hello.", "repeat": true}
]}`

func TestRun(t *testing.T) {
	f := newFixture(t, map[string]string{"README.md": "hello\n"})
	f.script(t, story)
	save := filepath.Join(t.TempDir(), "run.json")
	err := f.run(t, context.Background(), &run{task: "What is in this project?", flags: cli.AgentFlags{Save: save}})
	require.NoError(t, err, f.stderr.String())
	out := f.stdout.String()
	for _, want := range []string{
		"offshoot run: the main agent, with 1 file of " + f.env.ProjectDir + " copied in\n\n",
		"▸ prompt offshoot/main rendered · ",
		"  ✎ Let me look.\n",
		"  ✓ ls {\"path\":\"\"} → /: 1 entry",
		" started · offshoot/worker · forked from ",
		"   ✓ read_file {\"file_path\":\"README.md\"} → README.md: lines 1-1 of 1",
		"  ✓ dispatch_subagent {\"mode\":\"ad_hoc\",",
		" started · general-purpose · forked from ",
		"  ✓ Task {\"subagent_type\":\"general-purpose\",",
		"▸ background task ",
		"  ✎ The count is in: 1 file.\n",
		"offshoot run: saved the session to " + save + "; read it with 'offshoot snapshot show " + save + "'\n",
	} {
		assert.Contains(t, out, want)
	}
	assert.Empty(t, f.stderr.String())

	// The session saved: the conversation, with the task's report read.
	snap := readSnapshot(t, save)
	evals := runner.Evaluations(snap)
	require.Len(t, evals, 1, "one conversation, carried on")
	var texts []string
	for _, m := range runner.Conversation(snap, evals[0]) {
		texts = append(texts, m.Content)
	}
	assert.Contains(t, strings.Join(texts, "\n"), "<task-notification>")
	assert.Equal(t, "The count is in: 1 file.", texts[len(texts)-1])

	// The transcripts of the agents are the project's.
	entries, err := os.ReadDir(f.env.TranscriptsDir())
	require.NoError(t, err)
	assert.NotEmpty(t, entries)
}

// withModel has the run's agents answer from m, whatever the
// configuration says.
func (f *fixture) withModel(t *testing.T, m model.Model) func(*offshoot.Options) {
	t.Helper()
	f.script(t, `{"turns": []}`) // a model configured, which m replaces
	r, err := model.NewStaticRouter(map[string]model.Model{model.Main: m}, nil)
	require.NoError(t, err)
	return func(o *offshoot.Options) { o.Router = r }
}

// gate is a model turn that answers text once release is closed, or fails
// when its context ends first.
func gate(release <-chan struct{}, text string) scripted.Turn {
	return scripted.Func(func(ctx context.Context, _ *model.Request) (*model.Response, error) {
		select {
		case <-release:
			return &model.Response{Message: model.AssistantMessage(text)}, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	})
}

// A background task that ends after the main agent's answer is waited
// for, and the main agent reads its report before the run ends.
func TestRunWaitsForBackgroundTasks(t *testing.T) {
	f := newFixture(t, nil)
	release := make(chan struct{})
	m := scripted.New(
		scripted.When(scripted.SystemContains("# Task\nWatch the build"), gate(release, "The build is green.")),
		scripted.When(scripted.LastUserContains("task-notification"), scripted.Text("The watcher says the build is green.")),
		scripted.ToolCall("Task", `{"subagent_type":"general-purpose","description":"Watch the build","prompt":"Watch it.","run_in_background":true}`),
		scripted.Func(func(context.Context, *model.Request) (*model.Response, error) {
			close(release) // the watcher ends once the main agent has answered
			return &model.Response{Message: model.AssistantMessage("The watcher is on it.")}, nil
		}),
	)
	err := f.run(t, context.Background(), &run{task: "Is the build green?", adjust: f.withModel(t, m)})
	require.NoError(t, err, f.stderr.String())
	out := f.stdout.String()
	// The watcher runs while the main agent answers: its lines may come
	// between the answer's (even between two of its words), never the
	// report before the answer has ended.
	turn, report := strings.Index(out, "▸ model turn 2\n"), strings.Index(out, "▸ background task ")
	require.True(t, turn >= 0 && report >= 0, out)
	ended := strings.Index(out[turn:], "\n  ↳ answers · scripted · ")
	require.True(t, ended >= 0, out)
	assert.Less(t, turn+ended, report, "the answer, before the task's report:\n%s", out)
	assert.Contains(t, out[turn:turn+ended], "watcher")
	assert.Contains(t, out, "  ✎ The watcher says the build is green.\n")
	calls := m.Calls()
	last := calls[len(calls)-1].Request.Messages
	assert.Contains(t, last[len(last)-1].Content, "The build is green.", "the main agent read the report")
}

// A model that keeps starting background tasks does not keep the run
// going: the main agent reads what they reported maxRounds times after
// its task, then the tasks still running are stopped.
func TestRunStopsAfterMaxRounds(t *testing.T) {
	f := newFixture(t, nil)
	release := make(chan struct{}, 2*maxRounds)
	var started atomic.Int64
	m := scripted.New(
		scripted.When(scripted.SystemContains("# Task\nWatch"), scripted.Repeat(gate(release, "Still watching."))),
		scripted.Repeat(scripted.Func(func(_ context.Context, req *model.Request) (*model.Response, error) {
			if req.Messages[len(req.Messages)-1].Role == model.RoleTool {
				release <- struct{}{} // the watcher started by this query may end now
				return &model.Response{Message: model.AssistantMessage("Another watcher is on it.")}, nil
			}
			started.Add(1)
			return &model.Response{Message: model.AssistantMessage("", model.ToolCall{ID: "c1", Name: "Task",
				Arguments: `{"subagent_type":"general-purpose","description":"Watch","prompt":"Watch it.","run_in_background":true}`})}, nil
		})),
	)
	err := f.run(t, context.Background(), &run{task: "Watch forever.", adjust: f.withModel(t, m)})
	require.NoError(t, err, f.stderr.String())
	assert.Equal(t, int64(1+maxRounds), started.Load(), "the task, then a read of the reports %d times", maxRounds)
}

func TestRunJSON(t *testing.T) {
	f := newFixture(t, map[string]string{"README.md": "hello\n"})
	f.script(t, story)
	save := filepath.Join(t.TempDir(), "run.json")
	err := f.run(t, context.Background(), &run{task: "What is in this project?", json: true, flags: cli.AgentFlags{Save: save}})
	require.NoError(t, err, f.stderr.String())
	types := map[string]int{}
	for _, l := range strings.Split(strings.TrimSuffix(f.stdout.String(), "\n"), "\n") {
		var line progress.Line
		require.NoError(t, json.Unmarshal([]byte(l), &line), "every line is an event: %s", l)
		require.Empty(t, line.Error)
		types[line.Type]++
	}
	for _, typ := range []string{"runner.PromptRendered", "runner.Delta", "runner.ToolInvoked", "subagent.Started", "subagent.Finished", "subagent.TaskNotification", "runner.Inbound"} {
		assert.Positive(t, types[typ], typ)
	}
	// With --json, what is not an event goes to standard error.
	assert.Contains(t, f.stderr.String(), "offshoot run: saved the session to "+save+"; read it with 'offshoot snapshot show "+save+"'\n")
	for _, l := range strings.Split(strings.TrimSuffix(f.stderr.String(), "\n"), "\n") {
		assert.True(t, strings.HasPrefix(l, "offshoot run: "), l)
	}
}

func TestRunFails(t *testing.T) {
	tests := []struct {
		name   string
		script string
		run    run
		code   int
		want   string
	}{
		{"empty task", `{"turns": [{"text": "Hi."}]}`, run{task: "  "}, cli.ExitUsage, "the task is empty; say what the agent should do"},
		{"unknown agent", `{"turns": [{"text": "Hi."}]}`, run{task: "Hi.", flags: cli.AgentFlags{Agent: "debugger"}}, cli.ExitUsage, "--agent debugger: no agent is called so"},
		{"the provider refuses the key", `{"turns": [{"error": {"kind": "auth", "message": "bad key"}}]}`, run{task: "Hi."}, cli.ExitFailed,
			"the run failed: the model's server refused the API key; check the key"},
		{"max turns", `{"turns": [{"tool_calls": [{"name": "ls", "arguments": {"path": ""}}], "repeat": true}]}`, run{task: "Hi.", flags: cli.AgentFlags{MaxTurns: 3}}, cli.ExitFailed,
			"the run failed: the main agent was still calling tools when it reached its limit of model calls; give it more model calls with --max-turns, or a narrower task"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, nil)
			f.script(t, tt.script)
			r := tt.run
			err := f.run(t, context.Background(), &r)
			require.Error(t, err)
			assert.Equal(t, tt.code, code(err), err.Error())
			assert.Contains(t, err.Error(), tt.want)
		})
	}
	t.Run("no model configured", func(t *testing.T) {
		f := newFixture(t, nil)
		err := f.run(t, context.Background(), &run{task: "Hi."})
		require.Error(t, err)
		assert.Equal(t, cli.ExitUsage, code(err))
		for _, v := range []string{"LLM_MODEL_ID", "LLM_API_KEY", "LLM_BASE_URL", ".offshoot/config.json"} {
			assert.Contains(t, err.Error(), v)
		}
	})
}

// Ctrl-C while agents run, in the foreground and in the background, and
// while an MCP server serves a call, stops them all: the run says so,
// the server's process is gone and no goroutine is left (TestMain).
func TestRunInterrupted(t *testing.T) {
	waiterDir := t.TempDir()
	servers, err := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"waiter": map[string]any{"command": os.Args[0], "env": map[string]string{waiterEnv: waiterDir}},
	}})
	require.NoError(t, err)
	f := newFixture(t, map[string]string{".mcp.json": string(servers)})
	f.script(t, `{"turns": [
	  {"when": {"system_contains": "# Task\nWait for the build"}, "turns": [{"tool_calls": [{"name": "mcp__waiter__wait", "arguments": {}}], "repeat": true}]},
	  {"tool_calls": [
	    {"name": "Task", "arguments": {"subagent_type": "general-purpose", "description": "Wait for the build", "prompt": "Wait.", "run_in_background": true}},
	    {"name": "Task", "arguments": {"subagent_type": "general-purpose", "description": "Wait for the build", "prompt": "Wait."}}
	  ]}
	]}`)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		for ctx.Err() == nil {
			if data, err := os.ReadFile(filepath.Join(waiterDir, "calls")); err == nil && strings.Count(string(data), "wait") == 2 {
				cancel() // both agents wait on the server
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	err = f.run(t, ctx, &run{task: "Wait for the build.", flags: cli.AgentFlags{ApproveMCP: true}})
	require.Error(t, err)
	assert.Equal(t, cli.ExitFailed, code(err))
	assert.Equal(t, "the run was interrupted: it stopped, with every agent it started; run it again to start over", err.Error())
	out := f.stdout.String()
	assert.Equal(t, 2, strings.Count(out, " started · general-purpose · "), out)
	assert.Equal(t, 2, strings.Count(out, " failed: "), out)
	assert.Contains(t, out, "▸ background task ")
	assert.Contains(t, out, " stopped · ")

	pidText, err := os.ReadFile(filepath.Join(waiterDir, "pid"))
	require.NoError(t, err)
	pid, err := strconv.Atoi(string(pidText))
	require.NoError(t, err)
	p, err := os.FindProcess(pid)
	if err == nil {
		assert.Error(t, p.Signal(syscall.Signal(0)), "the MCP server's process %d is left behind", pid)
	}
}

// A failure is said in two sentences: what happened, what to do; the
// library's chain is for --verbose.
func TestExplain(t *testing.T) {
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	tests := []struct {
		name       string
		err        error
		what, todo string
	}{
		{"max turns", fmt.Errorf("runner: x: %w: the model was still calling tools after 2 turns; raise MaxTurns", runner.ErrMaxTurns),
			"the main agent was still calling tools when it reached its limit of model calls", "give it more model calls with --max-turns, or a narrower task"},
		{"budget", runner.ErrBudgetExceeded, "the run spent its token budget", "give it a narrower task"},
		{"key", fmt.Errorf("x: %w", model.ErrAuth), "the model's server refused the API key", "check the key (LLM_API_KEY, or \"api_key\" in .offshoot/config.json)"},
		{"quota", fmt.Errorf("x: %w: %w", model.ErrQuota, &model.APIError{StatusCode: 429, Code: "insufficient_quota", Message: "You exceeded your current quota."}),
			"no quota or credit left: You exceeded your current quota.", "add credit"},
		{"rate limit", &model.RateLimitError{Err: errors.New("slow down")}, "limiting the rate", "wait a moment and run it again"},
		{"timeout", fmt.Errorf("runner: x: openai: %w", &model.TimeoutError{Limit: 3e9}), "no complete answer within 3s, the timeout of a whole call", "--timeout"},
		{"context length", model.ErrContextLength, "context window", "give it a narrower task or a smaller --dir"},
		{"server error", fmt.Errorf("runner: %w", &model.APIError{StatusCode: 503, Message: "overloaded"}),
			"the model's provider failed on its side (HTTP 503): overloaded", "wait a while and run it again"},
		{"a request the server refused", &model.APIError{StatusCode: 400, Message: "bad request"}, "answered with an error (HTTP 400): bad request", "fix the model's configuration"},
		{"connection refused", &url.Error{Op: "Post", URL: "http://localhost:1/v1", Err: refused},
			"the model's server could not be reached", "check LLM_BASE_URL (or \"base_url\" in .offshoot/config.json) and that the server is up"},
		{"no such host", fmt.Errorf("openai: %w", &net.DNSError{Err: "no such host", Name: "api.example", IsNotFound: true}), "could not be reached", "check LLM_BASE_URL"},
		{"anything else", fmt.Errorf("runner: evaluating x: %w", errors.New("boom")), "boom", "fix the cause above and run it again"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			what, todo := cli.Explain(tt.err)
			assert.Contains(t, what, tt.what)
			assert.Contains(t, todo, tt.todo)
			assert.NotContains(t, what+todo, "runner:", "no library chain in the explanation")
			assert.NotContains(t, what+todo, "MaxTurns", "no Go names for a command's user")
		})
	}
}
