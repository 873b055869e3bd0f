package runner_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/tools"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestEvaluateRecordsTheWholeLoop(t *testing.T) {
	s := newSession(t)
	m := scripted.New(
		scripted.ToolCall("echo", `{"text":"hello"}`),
		scripted.Text("all done"),
	)
	resp, err := runner.Evaluate(ctx, request(newPrompt(t, echoTool(t)), s, m))
	require.NoError(t, err)
	assert.Equal(t, "all done", resp.Text)
	assert.Equal(t, 2, resp.Turns)
	assert.Equal(t, 1, resp.ToolCalls)
	assert.Equal(t, []string{"echo"}, resp.ToolsUsed)
	assert.Equal(t, []string{"echoed\n\n{\"echo\":\"hello\"}"}, toolMessages(resp))

	// The conversation: system, user, assistant (call), tool, assistant.
	roles := []model.Role{}
	for _, msg := range resp.Messages {
		roles = append(roles, msg.Role)
	}
	assert.Equal(t, []model.Role{model.RoleSystem, model.RoleUser, model.RoleAssistant, model.RoleTool, model.RoleAssistant}, roles)
	assert.Equal(t, "## 1. Task\n\nWork on: testing", resp.Messages[0].Content)

	// The model saw the tool's spec.
	calls := m.Calls()
	require.Len(t, calls, 2)
	require.Len(t, calls[0].Request.Tools, 1)
	assert.Equal(t, "echo", calls[0].Request.Tools[0].Name)
	assert.JSONEq(t, `{"type":"object","properties":{"text":{"type":"string","minLength":1,"maxLength":20}},"required":["text"],"additionalProperties":false}`,
		string(calls[0].Request.Tools[0].Parameters))

	// Events: rendered, two model calls, the tool call with its event, executed.
	rendered, ok := session.Latest[runner.PromptRendered](s)
	require.True(t, ok)
	assert.Equal(t, []string{"echo"}, rendered.Tools)
	assert.Equal(t, "test", rendered.NS)
	mc := session.Get[runner.ModelCalled](s).Values()
	require.Len(t, mc, 2)
	assert.Equal(t, "scripted", mc[0].Model)
	assert.Equal(t, 2, mc[1].Turn)
	ti := session.Get[runner.ToolInvoked](s).Values()
	require.Len(t, ti, 1)
	assert.True(t, ti[0].Success)
	assert.JSONEq(t, `{"text":"hello"}`, string(ti[0].Arguments))
	assert.JSONEq(t, `{"echo":"hello"}`, string(ti[0].Value))
	assert.Equal(t, []Echoed{{"hello"}}, session.Get[Echoed](s).Values(), "the tool's events were applied")
	pe, ok := session.Latest[runner.PromptExecuted](s)
	require.True(t, ok)
	assert.Empty(t, pe.Text, "the final text is the last assistant message, not stored twice")
	last, _ := session.Latest[runner.ConversationMessage](s)
	assert.Equal(t, "all done", last.Content)
	assert.Equal(t, 2, pe.Turns)
	assert.Equal(t, resp.Usage, pe.Usage)
	assert.Positive(t, resp.Usage.TotalTokens)
}

func TestToolFailuresAreReportedToTheModel(t *testing.T) {
	tests := []struct {
		name, tool, args, want string
	}{
		{"unknown tool", "ehco", `{}`, "Unknown tool 'ehco'. Available tools: echo"},
		{"malformed arguments", "echo", `{"text":`, "Tool validation failed: echo: "},
		{"non-object arguments", "echo", `["hello"]`, "Tool validation failed: echo: "},
		{"null arguments", "echo", `null`, "Tool validation failed: echo: "},
		{"validation failure", "echo", `{"text":"this text is far too long for echo"}`, "Tool validation failed: echo: text: "},
		{"unknown field", "echo", `{"text":"a","loud":true}`, "Tool validation failed: echo: loud: "},
		{"handler error", "echo", `{"text":"fail"}`, "Tool 'echo' execution failed: echo refused"},
		{"handler panic", "echo", `{"text":"panic"}`, "Tool 'echo' execution failed: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSession(t)
			m := scripted.New(scripted.ToolCall(tt.tool, tt.args), scripted.Text("recovered"))
			resp, err := runner.Evaluate(ctx, request(newPrompt(t, echoTool(t)), s, m))
			require.NoError(t, err, "a failing tool is the model's business, not the loop's")
			assert.Equal(t, "recovered", resp.Text)
			got := lastToolMessage(t, resp)
			assert.Contains(t, got, tt.want)
			ti, ok := session.Latest[runner.ToolInvoked](s)
			require.True(t, ok)
			assert.False(t, ti.Success)
			assert.Equal(t, got, ti.Result)
			assert.Zero(t, session.Len[Echoed](s))
		})
	}
}

func TestReducerFailureAppliesNothingOfTheCall(t *testing.T) {
	s := newSession(t)
	require.NoError(t, session.Register(s, func(_ session.ReducerContext, sl session.Slice[Echoed], e Echoed) (session.Slice[Echoed], error) {
		if e.Text == "bad" {
			return sl, errors.New("bad echoes are not allowed")
		}
		return sl.Append(e), nil
	}))
	m := scripted.New(scripted.ToolCall("echo", `{"text":"bad"}`), scripted.ToolCall("echo", `{"text":"good"}`), scripted.Text("done"))
	resp, err := runner.Evaluate(ctx, request(newPrompt(t, echoTool(t)), s, m))
	require.NoError(t, err)
	msgs := toolMessages(resp)
	require.Len(t, msgs, 2)
	assert.Equal(t, "Reducer errors prevented applying tool result: bad echoes are not allowed", msgs[0])
	assert.Equal(t, []Echoed{{"good"}}, session.Get[Echoed](s).Values())
	ti := session.Get[runner.ToolInvoked](s).Values()
	require.Len(t, ti, 1, "the failed call's record was not applied either")
	assert.JSONEq(t, `{"text":"good"}`, string(ti[0].Arguments))
}

func TestConcurrentSafeToolsRunInParallelWithDeterministicEvents(t *testing.T) {
	s := newSession(t)
	// The three consecutive concurrent-safe calls meet before they sleep:
	// none of them can go on until all three run at once. They then end
	// in another order than they were called.
	meet := meetingTool(t, 3)
	m := scripted.New(
		scripted.ToolCalls(
			model.ToolCall{Name: "meet", Arguments: `{"ms":60}`},
			model.ToolCall{Name: "meet", Arguments: `{"ms":1}`},
			model.ToolCall{Name: "meet", Arguments: `{"ms":30}`},
			model.ToolCall{Name: "echo", Arguments: `{"text":"after"}`},
			model.ToolCall{Name: "sleep", Arguments: `{"ms":5}`},
		),
		scripted.Text("done"),
	)
	resp, err := runner.Evaluate(ctx, request(newPrompt(t, meet, sleepTool(t, nil, nil), echoTool(t)), s, m))
	require.NoError(t, err)
	assert.Equal(t, []Echoed{{"slept 60"}, {"slept 1"}, {"slept 30"}, {"after"}, {"slept 5"}}, session.Get[Echoed](s).Values(),
		"events are applied in call order")
	var ids []string
	for ti := range session.All[runner.ToolInvoked](s) {
		ids = append(ids, ti.CallID)
		assert.True(t, ti.Success, "%s: %s", ti.Name, ti.Result)
	}
	assert.Equal(t, []string{"call_2_0", "call_2_1", "call_2_2", "call_2_3", "call_2_4"}, ids)
	assert.Len(t, toolMessages(resp), 5)
}

// meetingTool returns a concurrent-safe tool "meet" whose calls wait until
// n of them run at the same time, then sleep their ms. A call that waits
// past the watchdog fails: the calls did not run in parallel.
func meetingTool(t testing.TB, n int) tools.Tool {
	t.Helper()
	var mu sync.Mutex
	arrived := 0
	all := make(chan struct{})
	tool, err := tools.New("meet", "Wait for the others, then sleep.", func(ctx context.Context, _ *tools.Invocation, p SleepParams) (tools.Result[string], error) {
		mu.Lock()
		if arrived++; arrived == n {
			close(all)
		}
		mu.Unlock()
		select {
		case <-all:
		case <-time.After(10 * time.Second):
			return tools.Failed[string]("the other calls never ran beside this one"), nil
		case <-ctx.Done():
			return tools.Result[string]{}, ctx.Err()
		}
		time.Sleep(time.Duration(p.MS) * time.Millisecond)
		return tools.OK("slept", fmt.Sprint(p.MS)).WithEvents(Echoed{fmt.Sprint("slept ", p.MS)}), nil
	}, tools.ConcurrentSafe())
	require.NoError(t, err)
	return tool
}

func TestDeadlines(t *testing.T) {
	t.Run("before the request", func(t *testing.T) {
		c, cancel := context.WithTimeout(ctx, time.Nanosecond)
		defer cancel()
		<-c.Done()
		_, err := runner.Evaluate(c, request(newPrompt(t), newSession(t), scripted.New(scripted.Text("never"))))
		var ee *runner.EvaluationError
		require.ErrorAs(t, err, &ee)
		assert.Equal(t, runner.PhaseRequest, ee.Phase)
		assert.ErrorIs(t, err, context.DeadlineExceeded)
	})
	t.Run("during a tool", func(t *testing.T) {
		// The deadline passes while the tool runs, whatever the
		// machine's speed: the tool itself makes it pass.
		c, expire := expiringContext(ctx)
		s := newSession(t)
		waiting, err := tools.New("sleep", "Sleep a while.", func(ctx context.Context, _ *tools.Invocation, p SleepParams) (tools.Result[string], error) {
			expire()
			<-ctx.Done()
			return tools.Result[string]{}, ctx.Err()
		})
		require.NoError(t, err)
		m := scripted.New(scripted.ToolCall("sleep", `{"ms":5000}`), scripted.Text("never"))
		resp, err := runner.Evaluate(c, request(newPrompt(t, waiting), s, m))
		var ee *runner.EvaluationError
		require.ErrorAs(t, err, &ee)
		assert.Equal(t, runner.PhaseTool, ee.Phase)
		require.NotNil(t, resp, "the partial response tells what the run spent")
		assert.Equal(t, 1, resp.Turns)
		assert.Positive(t, resp.Usage.TotalTokens)
		assert.ErrorIs(t, err, context.DeadlineExceeded)
		assert.Zero(t, session.Len[Echoed](s), "the interrupted call was not recorded")
	})
	t.Run("at the finish", func(t *testing.T) {
		c, cancel := context.WithCancel(ctx)
		m := scripted.New(scripted.Func(func(context.Context, *model.Request) (*model.Response, error) {
			cancel() // the deadline passes while the final answer comes back
			return &model.Response{Message: model.AssistantMessage("late")}, nil
		}))
		s := newSession(t)
		_, err := runner.Evaluate(c, request(newPrompt(t), s, m))
		var ee *runner.EvaluationError
		require.ErrorAs(t, err, &ee)
		assert.Equal(t, runner.PhaseResponse, ee.Phase)
		assert.ErrorIs(t, err, context.Canceled)
		end, ok := session.Latest[runner.PromptExecuted](s)
		require.True(t, ok, "the end is recorded, as a cancellation")
		assert.Equal(t, "cancelled", end.Status)
		assert.False(t, end.Succeeded())
	})
}

func TestCancellationWhileTheModelIsCalledReturnsPromptly(t *testing.T) {
	c, cancel := context.WithCancel(ctx)
	started := make(chan struct{})
	m := scripted.New(scripted.Func(func(ctx context.Context, _ *model.Request) (*model.Response, error) {
		close(started)
		<-ctx.Done()
		return nil, ctx.Err()
	}))
	done := make(chan error, 1)
	go func() {
		_, err := runner.Evaluate(c, request(newPrompt(t), newSession(t), m))
		done <- err
	}()
	<-started
	cancel()
	select {
	case err := <-done:
		assert.ErrorIs(t, err, context.Canceled)
		var ee *runner.EvaluationError
		require.ErrorAs(t, err, &ee)
		assert.Equal(t, runner.PhaseRequest, ee.Phase)
	case <-time.After(2 * time.Second):
		t.Fatal("Evaluate did not return after cancellation")
	}
}

func TestMaxTurnsReturnsThePartialResponse(t *testing.T) {
	s := newSession(t)
	m := scripted.New(scripted.Repeat(scripted.Reply(&model.Response{Message: model.AssistantMessage("still working",
		model.ToolCall{ID: "c", Name: "echo", Arguments: `{"text":"again"}`})})))
	req := request(newPrompt(t, echoTool(t)), s, m)
	req.MaxTurns = 3
	resp, err := runner.Evaluate(ctx, req)
	require.ErrorIs(t, err, runner.ErrMaxTurns)
	assert.Contains(t, err.Error(), "runner: max turns reached: the model was still calling tools after 3 turns")
	require.NotNil(t, resp)
	assert.Equal(t, "still working", resp.Text)
	assert.Equal(t, 3, resp.Turns)
	assert.Equal(t, 3, resp.ToolCalls)
}

func TestBudgetCountsSpentRecords(t *testing.T) {
	s := newSession(t)
	usage := model.Usage{InputTokens: 40, OutputTokens: 10, TotalTokens: 50}
	m := scripted.New(scripted.Repeat(scripted.Func(func(context.Context, *model.Request) (*model.Response, error) {
		// Work done elsewhere reports its usage to the session mid-run.
		require.NoError(t, s.Dispatch(ctx, runner.Spent{Source: "child", Usage: model.Usage{TotalTokens: 70}}))
		return &model.Response{Message: model.AssistantMessage("", model.ToolCall{ID: "c", Name: "echo", Arguments: `{"text":"x"}`}), Usage: usage}, nil
	})))
	req := request(newPrompt(t, echoTool(t)), s, m)
	req.Budget = 200
	resp, err := runner.Evaluate(ctx, req)
	require.ErrorIs(t, err, runner.ErrBudgetExceeded)
	require.NotNil(t, resp)
	assert.Equal(t, 2, resp.Turns, "50+70 after one turn, 240 after two")
	assert.Equal(t, 100, resp.Usage.TotalTokens)
	assert.Equal(t, 140, resp.ChildUsage.TotalTokens)
}

// A Spent record marked Counted records usage the evaluation counted as it
// was spent (a nested evaluation's): the runner keeps it in the session but
// does not count it again. An unmarked one, from a program's own tool,
// counts as before.
func TestCountedSpentIsNotCountedTwice(t *testing.T) {
	tests := []struct {
		name      string
		charged   bool
		wantChild int
	}{
		{"reported by a program's own tool", false, 70},
		{"already charged live", true, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSession(t)
			m := scripted.New(
				scripted.Func(func(context.Context, *model.Request) (*model.Response, error) {
					require.NoError(t, s.Dispatch(ctx, runner.Spent{Source: "child", Usage: model.Usage{TotalTokens: 70}, Counted: tt.charged}))
					return &model.Response{Message: model.AssistantMessage("", model.ToolCall{ID: "c", Name: "echo", Arguments: `{"text":"x"}`})}, nil
				}),
				scripted.Text("done"),
			)
			resp, err := runner.Evaluate(ctx, request(newPrompt(t, echoTool(t)), s, m))
			require.NoError(t, err)
			assert.Equal(t, tt.wantChild, resp.ChildUsage.TotalTokens)
			require.Equal(t, 1, session.Len[runner.Spent](s), "the record is kept either way")
			cu, _ := session.Latest[runner.Spent](s)
			assert.Equal(t, tt.charged, cu.Counted)
		})
	}
}

func TestInboundMessagesReachTheNextRequest(t *testing.T) {
	s := newSession(t)
	require.NoError(t, s.Dispatch(ctx, runner.Inbound{Text: "pending before the run"}))
	m := scripted.New(
		scripted.Func(func(context.Context, *model.Request) (*model.Response, error) {
			require.NoError(t, s.Dispatch(ctx, runner.Inbound{Source: "task", Text: "<task-notification>done</task-notification>"}))
			return &model.Response{Message: model.AssistantMessage("", model.ToolCall{ID: "c1", Name: "echo", Arguments: `{"text":"x"}`})}, nil
		}),
		scripted.When(scripted.LastUserContains("<task-notification>"), scripted.Text("noted")),
	)
	resp, err := runner.Evaluate(ctx, request(newPrompt(t, echoTool(t)), s, m))
	require.NoError(t, err)
	assert.Equal(t, "noted", resp.Text)
	first := m.Calls()[0].Request.Messages
	assert.Equal(t, model.UserMessage("pending before the run"), first[len(first)-1], "an undelivered message reaches the first request")
	last := m.Calls()[1].Request.Messages
	assert.Equal(t, model.UserMessage("<task-notification>done</task-notification>"), last[len(last)-1])

	// A message that arrives after the last model call waits for the next
	// evaluation; delivered ones are not delivered again.
	require.NoError(t, s.Dispatch(ctx, runner.Inbound{Text: "late news"}))
	m2 := scripted.New(scripted.Text("ok"))
	_, err = runner.Evaluate(ctx, request(newPrompt(t), s, m2))
	require.NoError(t, err)
	var users []string
	for _, msg := range m2.Calls()[0].Request.Messages {
		if msg.Role == model.RoleUser {
			users = append(users, msg.Content)
		}
	}
	assert.Equal(t, []string{"go", "late news"}, users)

	// Marking what is pending as read (as a delegation engine does in the
	// session it forks) leaves it undelivered, and delivers what comes
	// later.
	require.NoError(t, s.Dispatch(ctx, runner.Inbound{Text: "not for the child"}))
	require.NoError(t, s.Dispatch(ctx, runner.InboundRead{Upto: session.Len[runner.Inbound](s)}))
	rev := s.Revision()
	m3 := scripted.New(
		scripted.Func(func(context.Context, *model.Request) (*model.Response, error) {
			assert.Equal(t, rev+1, s.Revision(), "only the opening records were written")
			require.NoError(t, s.Dispatch(ctx, runner.Inbound{Text: "for the child"}))
			return &model.Response{Message: model.AssistantMessage("", model.ToolCall{ID: "c1", Name: "echo", Arguments: `{"text":"x"}`})}, nil
		}),
		scripted.Text("ok"))
	_, err = runner.Evaluate(ctx, request(newPrompt(t, echoTool(t)), s, m3))
	require.NoError(t, err)
	assert.Len(t, m3.Calls()[0].Request.Messages, 2, "system and user only")
	last = m3.Calls()[1].Request.Messages
	assert.Equal(t, model.UserMessage("for the child"), last[len(last)-1])
}

func TestClosedSessionEndsTheEvaluation(t *testing.T) {
	s := newSession(t)
	m := scripted.New(scripted.Func(func(context.Context, *model.Request) (*model.Response, error) {
		require.NoError(t, s.Close())
		return &model.Response{Message: model.AssistantMessage("", model.ToolCall{ID: "c1", Name: "echo", Arguments: `{"text":"x"}`})}, nil
	}), scripted.Text("never"))
	_, err := runner.Evaluate(ctx, request(newPrompt(t, echoTool(t)), s, m))
	var ee *runner.EvaluationError
	require.ErrorAs(t, err, &ee)
	// The model's answer can no longer be recorded: the evaluation ends
	// there, before any tool runs.
	assert.Equal(t, runner.PhaseRecord, ee.Phase)
	assert.ErrorIs(t, err, session.ErrClosed)
}

type Verdict struct {
	Ok     bool   `json:"ok"`
	Reason string `json:"reason" validate:"required"`
}

func TestStructuredOutput(t *testing.T) {
	p, err := prompt.New("test", "judge", prompt.Markdown[Task]("Task", "Judge: {{ .Goal }}"), prompt.WithOutput[Verdict]())
	require.NoError(t, err)

	s := newSession(t)
	m := scripted.New(scripted.Text("```json\n{\"ok\":true,\"reason\":\"fine\"}\n```"))
	resp, err := runner.Evaluate(ctx, request(p, s, m))
	require.NoError(t, err)
	v, err := runner.Output[Verdict](resp)
	require.NoError(t, err)
	assert.Equal(t, Verdict{Ok: true, Reason: "fine"}, v)
	req := m.Calls()[0].Request
	require.NotNil(t, req.Output)
	assert.True(t, req.Output.Strict)
	assert.Equal(t, "test_judge", req.Output.Name)
	pe, _ := session.Latest[runner.PromptExecuted](s)
	assert.JSONEq(t, `{"ok":true,"reason":"fine"}`, string(pe.Output))

	_, err = runner.Output[string](resp)
	assert.ErrorContains(t, err, "is a runner_test.Verdict")

	bad := scripted.New(scripted.Repeat(scripted.Text(`{"ok":"yes"}`))) // every retry as wrong
	_, err = runner.Evaluate(ctx, request(p, newSession(t), bad))
	var ee *runner.EvaluationError
	require.ErrorAs(t, err, &ee)
	assert.Equal(t, runner.PhaseResponse, ee.Phase)
	var oe *prompt.OutputError
	require.ErrorAs(t, err, &oe)
	assert.Equal(t, "ok", oe.Path)
}

func TestModelErrorsAndRenderErrors(t *testing.T) {
	_, err := runner.Evaluate(ctx, request(newPrompt(t), newSession(t), scripted.New(scripted.Fail(model.ErrAuth))))
	var ee *runner.EvaluationError
	require.ErrorAs(t, err, &ee)
	assert.Equal(t, runner.PhaseRequest, ee.Phase)
	assert.ErrorIs(t, err, model.ErrAuth)
	assert.Contains(t, err.Error(), "runner: evaluating test/agent failed in the request phase")

	req := request(newPrompt(t), newSession(t), scripted.New())
	req.Params = []any{Task{}} // fails `validate:"required"`
	_, err = runner.Evaluate(ctx, req)
	require.ErrorAs(t, err, &ee)
	assert.Equal(t, runner.PhaseRender, ee.Phase)

	panicky := scripted.New(scripted.Func(func(context.Context, *model.Request) (*model.Response, error) { panic("model bug") }))
	_, err = runner.Evaluate(ctx, request(newPrompt(t), newSession(t), panicky))
	require.ErrorAs(t, err, &ee)
	assert.Contains(t, err.Error(), "model bug")

	_, err = runner.Evaluate(ctx, runner.Request{})
	assert.ErrorContains(t, err, "needs a Prompt, a Session and a Model")
}

// expiringContext returns a context whose deadline passes when expire is
// called: Done closes and Err is context.DeadlineExceeded.
func expiringContext(parent context.Context) (context.Context, func()) {
	c := &expiring{Context: parent, done: make(chan struct{})}
	var once sync.Once
	return c, func() { once.Do(func() { close(c.done) }) }
}

type expiring struct {
	context.Context
	done chan struct{}
}

func (c *expiring) Done() <-chan struct{} { return c.done }

func (c *expiring) Err() error {
	select {
	case <-c.done:
		return context.DeadlineExceeded
	default:
		return nil
	}
}
