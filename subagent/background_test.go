package subagent_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/offshoot-dev/offshoot/bus"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/subagent"
	"github.com/offshoot-dev/offshoot/subagent/transcript"
	"github.com/offshoot-dev/offshoot/tools"
)

// watchdog bounds every wait of these tests.
const watchdog = 5 * time.Second

func within(t testing.TB) context.Context {
	t.Helper()
	c, cancel := context.WithTimeout(ctx, watchdog)
	t.Cleanup(cancel)
	return c
}

// blockingModel answers "partial findings" with a call of slow, whose
// handler waits for its ctx to end; entered is closed when it does.
func slowTool(t testing.TB, entered chan struct{}) tools.Tool {
	t.Helper()
	var once sync.Once
	tool, err := tools.New("slow", "Work slowly.", func(ctx context.Context, _ *tools.Invocation, _ struct{}) (tools.Result[string], error) {
		once.Do(func() { close(entered) })
		<-ctx.Done()
		return tools.Result[string]{}, ctx.Err()
	})
	require.NoError(t, err)
	return tool
}

type LaunchParams struct {
	Task string `json:"task"`
}

// launchTool starts a background child, as the Task tool does with
// run_in_background, and hands its task out through tasks.
func launchTool(t testing.TB, e *subagent.Engine, m model.Model, tasks chan<- *subagent.Task, childTools ...tools.Tool) tools.Tool {
	t.Helper()
	tool, err := tools.New("launch", "Start a background task.", func(ctx context.Context, inv *tools.Invocation, p LaunchParams) (tools.Result[string], error) {
		// The call returns at once; the task goes on.
		task, err := e.Start(ctx, subagent.Spec{Name: "background-worker", Description: "Collect findings", Parent: inv.Session, Caller: inv, Mode: subagent.Fresh, Request: runner.Request{Prompt: childPrompt(t, "worker"), UserMessage: p.Task, Model: m, ModelName: "scripted", Tools: toolset(t, childTools...)}})
		if err != nil {
			return tools.Failed[string](err.Error()), nil
		}
		tasks <- task
		return tools.OK("launched "+task.ID(), task.OutputFile()), nil
	})
	require.NoError(t, err)
	return tool
}

func rootPrompt(t testing.TB, ts ...tools.Tool) *prompt.Prompt {
	t.Helper()
	p, err := prompt.New("root", "agent", prompt.Markdown[prompt.NoParams]("Role", "You are the main agent.", prompt.WithTools(ts...)))
	require.NoError(t, err)
	return p
}

func bgSpec(t testing.TB, parent *session.Session, m model.Model, ts ...tools.Tool) subagent.Spec {
	sp := freshSpec(t, parent, m, ts...)
	sp.Description = "Collect findings"
	return sp
}

func TestBackgroundStartReturnsAtOnce(t *testing.T) {
	defer goleak.VerifyNone(t)
	parent := newParent(t)
	release := make(chan struct{})
	m := scripted.New(scripted.Func(func(ctx context.Context, _ *model.Request) (*model.Response, error) {
		select {
		case <-release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return &model.Response{Message: model.AssistantMessage("all found"), Usage: model.Usage{InputTokens: 3, OutputTokens: 2, TotalTokens: 5}}, nil
	}))
	e := subagent.New(subagent.Options{NewID: ids("bg")})
	task, err := e.Start(ctx, bgSpec(t, parent, m))
	require.NoError(t, err, "Start returns while the child's model is still thinking")
	assert.Equal(t, "bg-1", task.ID())
	assert.Equal(t, parent.ID(), task.ParentID())
	assert.Empty(t, task.OutputFile(), "no transcripts, no output file")
	assert.Equal(t, subagent.TaskStatusRunning, task.Status())
	assert.Empty(t, task.Summary())
	got, err := e.Tasks().Get("bg-1")
	require.NoError(t, err)
	assert.Same(t, task, got)

	close(release)
	n, err := task.Wait(within(t))
	require.NoError(t, err)
	assert.True(t, n.IsSuccess())
	assert.Equal(t, subagent.TaskStatusCompleted, task.Status())
	assert.Equal(t, "all found", task.Summary())
	out, err := task.ReadOutput(ctx)
	require.NoError(t, err)
	assert.Equal(t, "all found", out)
	assert.Equal(t, subagent.TaskNotification{
		Type: "system", Subtype: "task_notification", UUID: "bg-2", SessionID: parent.ID(), TaskID: "bg-1",
		Status: subagent.TaskStatusCompleted, Summary: "all found", Duration: n.Duration,
		Usage: subagent.Usage{Own: model.Usage{InputTokens: 3, OutputTokens: 2, TotalTokens: 5}, Total: model.Usage{InputTokens: 3, OutputTokens: 2, TotalTokens: 5},
			ModelCalls: 1, ToolCalls: map[string]int{}},
	}, n)
	// With its notification, the parent session keeps one record of what
	// the task spent, marked as charged live.
	assert.Equal(t, []runner.Spent{{Source: "bg-1", Usage: model.Usage{InputTokens: 3, OutputTokens: 2, TotalTokens: 5}, Counted: true}},
		slices.Collect(session.All[runner.Spent](parent)))
	e.Tasks().StopAll()
}

// retrieve is what the TaskOutput tool does with a task: not_ready when
// asked not to block and it runs, timeout when a blocking wait ends
// first, success otherwise — with the task's status and output.
func retrieve(t testing.TB, task *subagent.Task, block bool, timeout time.Duration) (string, subagent.TaskStatus, string) {
	t.Helper()
	retrieval := "success"
	if !block {
		if task.Status() == subagent.TaskStatusRunning {
			retrieval = "not_ready"
		}
	} else {
		wctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		if _, err := task.Wait(wctx); err != nil {
			require.ErrorIs(t, err, subagent.ErrTaskTimeout)
			require.ErrorIs(t, err, context.DeadlineExceeded)
			retrieval = "timeout"
		}
	}
	out, err := task.ReadOutput(ctx)
	require.NoError(t, err)
	return retrieval, task.Status(), out
}

func TestTaskOutputNotReadyTimeoutSuccess(t *testing.T) {
	defer goleak.VerifyNone(t)
	parent := newParent(t)
	release := make(chan struct{})
	m := scripted.New(
		scripted.Reply(&model.Response{Message: model.AssistantMessage("first look: two suspects", model.ToolCall{ID: "c1", Name: "write", Arguments: `{"text":"noted"}`})}),
		scripted.Func(func(ctx context.Context, _ *model.Request) (*model.Response, error) {
			select {
			case <-release:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			return &model.Response{Message: model.AssistantMessage("the culprit is parse.go")}, nil
		}),
	)
	e := subagent.New(subagent.Options{})
	task, err := e.Start(ctx, bgSpec(t, parent, m, writeTool(t)))
	require.NoError(t, err)
	require.Eventually(t, func() bool { out, _ := task.ReadOutput(ctx); return out != "" }, watchdog, time.Millisecond)

	r, status, out := retrieve(t, task, false, 0)
	assert.Equal(t, []any{"not_ready", subagent.TaskStatusRunning, "first look: two suspects"}, []any{r, status, out}, "the output so far")
	r, status, _ = retrieve(t, task, true, 20*time.Millisecond)
	assert.Equal(t, []any{"timeout", subagent.TaskStatusRunning}, []any{r, status})

	close(release)
	r, status, out = retrieve(t, task, true, watchdog)
	assert.Equal(t, []any{"success", subagent.TaskStatusCompleted, "the culprit is parse.go"}, []any{r, status, out})
	r, status, out = retrieve(t, task, false, 0)
	assert.Equal(t, []any{"success", subagent.TaskStatusCompleted, "the culprit is parse.go"}, []any{r, status, out})

	// A cancelled wait is the caller's cancellation, not a timeout.
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	_, err = task.ReadOutput(cancelled)
	assert.ErrorIs(t, err, context.Canceled)
}

func TestUnknownTask(t *testing.T) {
	_, err := subagent.New(subagent.Options{}).Tasks().Get("nope")
	require.ErrorIs(t, err, subagent.ErrTaskNotFound)
	assert.EqualError(t, err, "No task found with ID: nope")
}

func TestStopEndsTheTaskWithItsPartialOutput(t *testing.T) {
	defer goleak.VerifyNone(t)
	dir := t.TempDir()
	parent := newParent(t)
	entered := make(chan struct{})
	m := scripted.New(scripted.Reply(&model.Response{
		Message: model.AssistantMessage("partial findings: parse.go looks wrong", model.ToolCall{ID: "c1", Name: "slow", Arguments: `{}`}),
		Usage:   model.Usage{InputTokens: 8, OutputTokens: 4, TotalTokens: 12},
	}))
	var handled []subagent.TaskNotification
	var mu sync.Mutex
	e := subagent.New(subagent.Options{Transcripts: transcript.Dir(dir), OnTaskNotification: []func(context.Context, subagent.TaskNotification){func(_ context.Context, n subagent.TaskNotification) {
		mu.Lock()
		defer mu.Unlock()
		handled = append(handled, n)
	}}})
	task, err := e.Start(ctx, bgSpec(t, parent, m, slowTool(t, entered)))
	require.NoError(t, err)
	select {
	case <-entered:
	case <-time.After(watchdog):
		t.Fatal("the child never reached its tool")
	}
	task.Stop()
	assert.Equal(t, subagent.TaskStatusStopped, task.Status())
	assert.Equal(t, "partial findings: parse.go looks wrong", task.Summary())
	n, err := task.Wait(within(t))
	require.NoError(t, err)
	assert.False(t, n.IsSuccess())
	assert.Equal(t, subagent.TaskStatusStopped, n.Status)
	assert.Empty(t, n.Error)
	assert.Equal(t, 12, n.Usage.Total.TotalTokens, "what it spent is kept")
	task.Stop() // stopping again changes nothing
	assert.Equal(t, subagent.TaskStatusStopped, task.Status())

	file, err := os.ReadFile(task.OutputFile())
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(file), "partial findings: parse.go looks wrong\n\n(It was stopped before it finished. It used 12 tokens, 1 model call and 0 tool calls in "), string(file))

	in, ok := session.Latest[runner.Inbound](parent)
	require.True(t, ok, "the parent was told")
	assert.Contains(t, in.Text, "was stopped before it finished.")
	assert.Contains(t, in.Text, "What it wrote before it ended:\npartial findings: parse.go looks wrong")
	mu.Lock()
	assert.Equal(t, []subagent.TaskNotification{n}, handled)
	mu.Unlock()

	meta, err := transcript.Dir(dir).Read(task.ID())
	require.NoError(t, err)
	assert.Equal(t, string(subagent.TaskStatusStopped), meta.Meta.Status)
	assert.True(t, meta.Meta.Background)
}

// The notification reaches the parent's next model call as a
// <task-notification> block, with the child's text and what it spent,
// and nothing of its tool calls.
func TestTheNotificationReachesTheParentsNextModelCall(t *testing.T) {
	defer goleak.VerifyNone(t)
	dir := t.TempDir()
	parent := newParent(t)
	settled := make(chan subagent.TaskNotification, 1)
	var published []subagent.TaskNotification
	_, err := bus.Subscribe(parent.Bus(), "watch", func(_ context.Context, env bus.Envelope, n subagent.TaskNotification) error {
		assert.Empty(t, env.SessionID, "addressed to no session")
		published = append(published, n)
		return nil
	})
	require.NoError(t, err)
	e := subagent.New(subagent.Options{Transcripts: transcript.Dir(dir), NewID: ids("t"), OnTaskNotification: []func(context.Context, subagent.TaskNotification){func(_ context.Context, n subagent.TaskNotification) { settled <- n }}})
	working := make(chan struct{}) // closed when the main agent's second call has begun
	child := scripted.New(
		scripted.ToolCall("write", `{"text":"SECRET-TOOL-OUTPUT"}`).WithUsage(model.Usage{InputTokens: 5, OutputTokens: 5, TotalTokens: 10}),
		scripted.Func(func(context.Context, *model.Request) (*model.Response, error) {
			select { // the child answers only once the main agent works on
			case <-working:
			case <-time.After(watchdog):
				return nil, errors.New("the main agent never made its second call")
			}
			return &model.Response{Message: model.AssistantMessage("Two findings: parse.go and lex.go."), Usage: model.Usage{InputTokens: 20, OutputTokens: 10, TotalTokens: 30}}, nil
		}),
	)
	tasks := make(chan *subagent.Task, 1)
	main := scripted.New(
		scripted.ToolCall("launch", `{"task":"find the bugs"}`),
		scripted.Func(func(context.Context, *model.Request) (*model.Response, error) {
			close(working)
			select { // the task ends while the main agent works on
			case <-settled:
			case <-time.After(watchdog):
				return nil, errors.New("the task never ended")
			}
			return &model.Response{Message: model.AssistantMessage("", model.ToolCall{ID: "w", Name: "write", Arguments: `{"text":"main work"}`})}, nil
		}),
		scripted.Text("Both bugs are known now."),
	)
	resp, err := runner.Evaluate(ctx, runner.Request{
		Prompt: rootPrompt(t, launchTool(t, e, child, tasks, writeTool(t)), writeTool(t)), Session: parent, Model: main, UserMessage: "find and report bugs",
	})
	require.NoError(t, err)
	assert.Equal(t, "Both bugs are known now.", resp.Text)
	task := <-tasks

	req := main.Calls()[2].Request
	last := req.Messages[len(req.Messages)-1]
	assert.Equal(t, model.RoleUser, last.Role)
	want := "<task-notification>\nThe background task t-1 (Collect findings, by the background-worker agent) has completed.\n\n" +
		"Its result:\nTwo findings: parse.go and lex.go.\n\n" +
		"It used 40 tokens, 2 model calls and 1 tool call in "
	assert.True(t, strings.HasPrefix(last.Content, want), last.Content)
	assert.True(t, strings.HasSuffix(last.Content, ". The same result is in the file "+task.OutputFile()+".\n</task-notification>"), last.Content)
	for _, c := range main.Calls() {
		for _, m := range c.Request.Messages {
			assert.NotContains(t, m.Content, "SECRET-TOOL-OUTPUT", "the child's tool results never reach the parent")
		}
	}

	require.Len(t, published, 1)
	n := published[0]
	assert.Equal(t, "t-1", n.TaskID)
	assert.Equal(t, parent.ID(), n.SessionID)
	assert.Equal(t, "Two findings: parse.go and lex.go.", n.Summary)
	assert.Equal(t, task.OutputFile(), n.OutputFile)
	encoded, err := json.Marshal(n)
	require.NoError(t, err)
	assert.NotContains(t, string(encoded), "SECRET-TOOL-OUTPUT")
	file, err := os.ReadFile(n.OutputFile)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(file), "Two findings: parse.go and lex.go.\n\n(It has completed."), string(file))
	assert.NotContains(t, string(file), "SECRET-TOOL-OUTPUT")
	// The transcript keeps everything.
	tr, err := transcript.Dir(dir).Read("t-1")
	require.NoError(t, err)
	assert.Contains(t, tr.Messages[2].Content, "SECRET-TOOL-OUTPUT")
	e.Tasks().StopAll()
}

// A background child outlives the tool call and the evaluation that
// started it, and ends with its run's context: the evaluation's, or under
// WithRun the run's — not the turn's, which may end first (a chat stops a
// turn when its reader goes away).
func TestABackgroundChildEndsWithItsRun(t *testing.T) {
	tests := []struct {
		name string
		turn func(run context.Context) (context.Context, context.CancelFunc)
	}{
		{"the evaluation's context", func(run context.Context) (context.Context, context.CancelFunc) { return run, func() {} }},
		{"a turn under WithRun", func(run context.Context) (context.Context, context.CancelFunc) {
			return context.WithCancel(subagent.WithRun(run))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer goleak.VerifyNone(t)
			parent := newParent(t)
			entered := make(chan struct{})
			child := scripted.New(scripted.Reply(&model.Response{Message: model.AssistantMessage("half done", model.ToolCall{ID: "c1", Name: "slow", Arguments: `{}`})}))
			e := subagent.New(subagent.Options{})
			tasks := make(chan *subagent.Task, 1)
			main := scripted.New(scripted.ToolCall("launch", `{"task":"work long"}`), scripted.Text("launched"))
			run, cancel := context.WithCancel(ctx)
			defer cancel()
			turn, stopTurn := tt.turn(run)
			_, err := runner.Evaluate(turn, runner.Request{Prompt: rootPrompt(t, launchTool(t, e, child, tasks, slowTool(t, entered))), Session: parent, Model: main})
			require.NoError(t, err)
			task := <-tasks
			select {
			case <-entered:
			case <-time.After(watchdog):
				t.Fatal("the child never reached its tool")
			}
			stopTurn()
			assert.Equal(t, subagent.TaskStatusRunning, task.Status(), "it outlived the call, the evaluation and the turn")

			cancel()
			n, err := task.Wait(within(t))
			require.NoError(t, err)
			assert.Equal(t, subagent.TaskStatusStopped, n.Status)
			assert.Equal(t, "half done", n.Summary)
		})
	}
}

// Background children count against their run's spawn budget and token
// budget like any child.
func TestBackgroundChildrenCountAgainstTheRunsLimits(t *testing.T) {
	defer goleak.VerifyNone(t)
	parent := newParent(t)
	spend := model.Usage{InputTokens: 9, OutputTokens: 1, TotalTokens: 10}
	e := subagent.New(subagent.Options{MaxSpawns: 2})
	run, budget := inRun(25)
	m := scripted.New(scripted.Repeat(scripted.ToolCall("write", `{"text":"more"}`).WithUsage(spend)))
	first, err := e.Start(run, bgSpec(t, parent, m, writeTool(t)))
	require.NoError(t, err)
	second, err := e.Start(run, bgSpec(t, parent, m, writeTool(t)))
	require.NoError(t, err)
	_, err = e.Start(run, bgSpec(t, parent, m, writeTool(t)))
	require.ErrorIs(t, err, subagent.ErrBudget, "refused at once")

	for _, task := range []*subagent.Task{first, second} {
		n, err := task.Wait(within(t))
		require.NoError(t, err)
		assert.Equal(t, subagent.TaskStatusFailed, n.Status)
		assert.Contains(t, n.Error, "token budget exceeded")
	}
	assert.LessOrEqual(t, budget.Spent().TotalTokens, 25+2*10)
}

func TestStopAllEndsEveryTask(t *testing.T) {
	defer goleak.VerifyNone(t)
	parent := newParent(t)
	hang := scripted.New(scripted.Repeat(scripted.Func(func(ctx context.Context, _ *model.Request) (*model.Response, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	})))
	e := subagent.New(subagent.Options{MaxConcurrent: 1}) // the second waits for a slot
	var tasks []*subagent.Task
	for range 3 {
		task, err := e.Start(ctx, bgSpec(t, parent, hang))
		require.NoError(t, err)
		tasks = append(tasks, task)
	}
	done := make(chan struct{})
	go func() { e.Tasks().StopAll(); close(done) }()
	select {
	case <-done:
	case <-time.After(watchdog):
		t.Fatal("StopAll did not return")
	}
	for _, task := range tasks {
		assert.Equal(t, subagent.TaskStatusStopped, task.Status())
	}
	assert.Empty(t, parent.ChildIDs())
}

// A child's tool call that the approver denies is a failed result the
// child reads; the same approver rules the main agent.
func TestApprovalDenialIsAFailedResult(t *testing.T) {
	parent := newParent(t)
	var mu sync.Mutex
	var asked []string
	approve := func(ctx context.Context, _ *tools.Invocation, c model.ToolCall) error {
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, strings.Join(subagent.Chain(ctx), ">")+":"+c.Name)
		if c.Name == "write" {
			return errors.New("writing needs the user's consent")
		}
		return nil
	}
	e := subagent.New(subagent.Options{Approve: approve})
	m := scripted.New(
		scripted.When(scripted.SystemContains("You are worker."), scripted.ToolCall("write", `{"text":"x"}`), scripted.Text("could not write; reporting instead")),
		scripted.When(scripted.SystemContains("You are the main agent."),
			scripted.ToolCall("delegate", `{"name":"worker","task":"write x"}`), scripted.Text("done")),
	)
	resp, err := runner.Evaluate(ctx, runner.Request{
		Prompt: rootPrompt(t, delegateTool(t, e, m), writeTool(t)), Session: parent, Model: m, Approve: approve,
	})
	require.NoError(t, err)
	assert.Equal(t, "done", resp.Text)
	var childResult string
	for _, c := range m.Calls() {
		if c.Route == `when system prompt contains "You are worker."` && len(c.Request.Messages) > 3 {
			childResult = c.Request.Messages[len(c.Request.Messages)-1].Content
		}
	}
	assert.Equal(t, "Permission to use the tool 'write' was denied: writing needs the user's consent", childResult)
	assert.Equal(t, []string{":delegate", "root/agent>worker:write"}, asked)
	assert.Contains(t, lastTool(resp), "could not write; reporting instead", "the child carried on")
}

func lastTool(resp *runner.Response) string {
	for i := len(resp.Messages) - 1; i >= 0; i-- {
		if resp.Messages[i].Role == model.RoleTool {
			return resp.Messages[i].Content
		}
	}
	return ""
}

// A task whose model fails tells why in plain words: the cause, not the
// runner's account of where the evaluation stopped.
func TestAFailedTaskSaysWhyInPlainWords(t *testing.T) {
	defer goleak.VerifyNone(t)
	parent := newParent(t)
	e := subagent.New(subagent.Options{NewID: ids("f")})
	task, err := e.Start(ctx, bgSpec(t, parent, scripted.New(scripted.Fail(errors.New("the provider is down")))))
	require.NoError(t, err)
	n, err := task.Wait(within(t))
	require.NoError(t, err)
	assert.Equal(t, subagent.TaskStatusFailed, n.Status)
	assert.Equal(t, "the provider is down", n.Error)
	in, ok := session.Latest[runner.Inbound](parent)
	require.True(t, ok)
	assert.Contains(t, in.Text, ") failed: the provider is down.\n")
	assert.NotContains(t, in.Text, "runner:")
}

// Running lists the tasks still running, in the order they started; Wait
// returns once every task has ended and been told about, or with the
// error of a wait that ran out.
func TestManagerRunningAndWait(t *testing.T) {
	defer goleak.VerifyNone(t)
	parent := newParent(t)
	release := make(chan struct{})
	gated := func(text string) model.Model {
		return scripted.New(scripted.Func(func(ctx context.Context, _ *model.Request) (*model.Response, error) {
			select {
			case <-release:
				return &model.Response{Message: model.AssistantMessage(text)}, nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}))
	}
	var handled []string
	var mu sync.Mutex
	e := subagent.New(subagent.Options{NewID: ids("w"), OnTaskNotification: []func(context.Context, subagent.TaskNotification){func(_ context.Context, n subagent.TaskNotification) {
		mu.Lock()
		defer mu.Unlock()
		handled = append(handled, n.TaskID)
	}}})
	defer e.Tasks().StopAll()
	assert.NoError(t, e.Tasks().Wait(within(t)), "nothing to wait for")
	first, err := e.Start(ctx, bgSpec(t, parent, gated("one")))
	require.NoError(t, err)
	second, err := e.Start(ctx, bgSpec(t, parent, gated("two")))
	require.NoError(t, err)
	assert.Equal(t, []*subagent.Task{first, second}, e.Tasks().Running())

	short, cancel := context.WithTimeout(ctx, 10*time.Millisecond)
	defer cancel()
	require.ErrorIs(t, e.Tasks().Wait(short), subagent.ErrTaskTimeout)

	close(release)
	require.NoError(t, e.Tasks().Wait(within(t)))
	assert.Empty(t, e.Tasks().Running())
	mu.Lock()
	defer mu.Unlock()
	assert.ElementsMatch(t, []string{first.ID(), second.ID()}, handled, "both were told about before Wait returned")
}

// A task's status is final before its notification reaches the handlers:
// Running leaves it out then, and Unreported keeps it until the handlers
// have it — what a program that tells its user about the notifications
// waits for.
func TestManagerUnreported(t *testing.T) {
	defer goleak.VerifyNone(t)
	parent := newParent(t)
	entered, release := make(chan struct{}), make(chan struct{})
	e := subagent.New(subagent.Options{NewID: ids("u"), OnTaskNotification: []func(context.Context, subagent.TaskNotification){func(context.Context, subagent.TaskNotification) {
		close(entered)
		<-release
	}}})
	defer e.Tasks().StopAll()
	assert.Empty(t, e.Tasks().Unreported())
	task, err := e.Start(ctx, bgSpec(t, parent, scripted.New(scripted.Text("done"))))
	require.NoError(t, err)
	<-entered // ended, its handler not done
	assert.Equal(t, subagent.TaskStatusCompleted, task.Status())
	assert.Empty(t, e.Tasks().Running())
	assert.Equal(t, []*subagent.Task{task}, e.Tasks().Unreported())
	close(release)
	require.NoError(t, e.Tasks().Wait(within(t)))
	assert.Empty(t, e.Tasks().Unreported())
}
