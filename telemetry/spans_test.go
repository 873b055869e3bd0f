package telemetry_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/offshoot-dev/offshoot/bus"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/subagent"
	"github.com/offshoot-dev/offshoot/telemetry"
	"github.com/offshoot-dev/offshoot/tools"
)

type EchoParams struct {
	Text string `json:"text"`
}

// watchdog is the context of a test that could hang.
func watchdog(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// newSession returns a session on a bus whose clock steps a second a read.
func newSession(t *testing.T) *session.Session {
	t.Helper()
	s, err := session.New(session.WithIDGenerator(counter("s")), session.WithBus(bus.New(bus.WithClock(stepClock()))))
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// agentPrompt is a prompt named ns/key with tools.
func agentPrompt(t *testing.T, ns, key string, ts ...tools.Tool) *prompt.Prompt {
	t.Helper()
	p, err := prompt.New(ns, key, prompt.Markdown[prompt.NoParams]("Role", "You help.", prompt.WithTools(ts...)))
	require.NoError(t, err)
	return p
}

func echoTool(t *testing.T, fail bool) tools.Tool {
	t.Helper()
	tool, err := tools.New("echo", "Echo the text back.", func(_ context.Context, _ *tools.Invocation, p EchoParams) (tools.Result[string], error) {
		if fail {
			return tools.Failed[string]("no echo today"), nil
		}
		return tools.OK("echoed", p.Text), nil
	})
	require.NoError(t, err)
	return tool
}

// byName returns the spans of that name.
func byName(spans tracetest.SpanStubs, name string) []tracetest.SpanStub {
	var out []tracetest.SpanStub
	for _, s := range spans {
		if s.Name == name {
			out = append(out, s)
		}
	}
	return out
}

// TestSpanTimesAreTheEventsTimes: an evaluation's span runs from its
// PromptRendered to its PromptExecuted; a model or tool call's ends at its
// record and lasts its Duration.
func TestSpanTimesAreTheEventsTimes(t *testing.T) {
	ctx := watchdog(t)
	p := newProviders(t)
	s := newSession(t)
	times := map[string][]time.Time{}
	var durations []time.Duration
	_, err := bus.Subscribe(s.Bus(), "test", func(_ context.Context, env bus.Envelope, e runner.PromptRendered) error {
		times["rendered"] = append(times["rendered"], env.Time)
		return nil
	})
	require.NoError(t, err)
	_, err = bus.Subscribe(s.Bus(), "test", func(_ context.Context, env bus.Envelope, e runner.ModelCalled) error {
		times["model"], durations = append(times["model"], env.Time), append(durations, e.Duration)
		return nil
	})
	require.NoError(t, err)
	_, err = bus.Subscribe(s.Bus(), "test", func(_ context.Context, env bus.Envelope, e runner.ToolInvoked) error {
		times["tool"], durations = append(times["tool"], env.Time), append(durations, e.Duration)
		return nil
	})
	require.NoError(t, err)
	_, err = bus.Subscribe(s.Bus(), "test", func(_ context.Context, env bus.Envelope, e runner.PromptExecuted) error {
		times["executed"] = append(times["executed"], env.Time)
		return nil
	})
	require.NoError(t, err)
	obs, err := telemetry.Observe(s.Bus(), p.options())
	require.NoError(t, err)
	defer obs.Stop()
	m := scripted.New(scripted.ToolCall("echo", `{"text":"hi"}`), scripted.Text("done"))
	_, err = runner.Evaluate(ctx, runner.Request{Prompt: agentPrompt(t, "demo", "echo", echoTool(t, false)), Session: s, Model: m, ModelName: "scripted", UserMessage: "go"})
	require.NoError(t, err)

	spans := p.spans.GetSpans()
	agent := byName(spans, "invoke_agent demo/echo")
	chats := byName(spans, "chat scripted")
	calls := byName(spans, "execute_tool echo")
	require.Len(t, agent, 1)
	require.Len(t, chats, 2)
	require.Len(t, calls, 1)
	assert.Equal(t, times["rendered"][0], agent[0].StartTime)
	assert.Equal(t, times["executed"][0], agent[0].EndTime)
	assert.Equal(t, times["model"][0].Add(-durations[0]), chats[0].StartTime)
	assert.Equal(t, times["model"][0], chats[0].EndTime)
	assert.Equal(t, times["tool"][0].Add(-durations[1]), calls[0].StartTime)
	assert.Equal(t, times["tool"][0], calls[0].EndTime)
	assert.Equal(t, times["model"][1].Add(-durations[2]), chats[1].StartTime)
	for _, d := range durations {
		assert.Positive(t, d, "the stepping clock gives every call a duration")
	}
	for _, sp := range append(chats, calls...) {
		assert.Equal(t, agent[0].SpanContext.SpanID(), sp.Parent.SpanID(), sp.Name)
		assert.Equal(t, trace.SpanKindInternal, agent[0].SpanKind)
	}
	assert.Equal(t, trace.SpanKindClient, chats[0].SpanKind)
	assert.Equal(t, trace.SpanKindInternal, calls[0].SpanKind)
}

// TestFailuresAreErrors: a failed model call, a failed tool call, and an
// evaluation that fails, is cancelled or stops at a limit end their spans
// as errors when the evaluation's end is recorded — not when the observer
// stops, as it did when a failed evaluation left no record of its end.
func TestFailuresAreErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		turns  []scripted.Turn
		fail   bool // the echo tool fails
		max    int
		cancel bool              // the model call cancels the evaluation
		errors map[string]string // span name → what its status description says
		kinds  map[string]string // span name → error.type
	}{
		{
			name:   "the model fails",
			turns:  []scripted.Turn{scripted.Fail(model.ErrAuth)},
			errors: map[string]string{"chat scripted": "auth", "invoke_agent demo/echo": "failed in the request phase"},
			kinds:  map[string]string{"chat scripted": "auth", "invoke_agent demo/echo": "auth"},
		},
		{
			name:   "a tool fails",
			turns:  []scripted.Turn{scripted.ToolCall("echo", `{"text":"hi"}`), scripted.Text("done")},
			fail:   true,
			errors: map[string]string{"execute_tool echo": "the tool call failed"},
			kinds:  map[string]string{"execute_tool echo": "tool_error"},
		},
		{
			name:   "the evaluation stops at max turns",
			turns:  []scripted.Turn{scripted.ToolCall("echo", `{"text":"hi"}`), scripted.ToolCall("echo", `{"text":"hi"}`)},
			max:    1,
			errors: map[string]string{"invoke_agent demo/echo": "max turns reached"},
			kinds:  map[string]string{"invoke_agent demo/echo": "max_turns"},
		},
		{
			name:   "the evaluation is cancelled",
			cancel: true,
			errors: map[string]string{"chat scripted": "cancel", "invoke_agent demo/echo": "context canceled"},
			kinds:  map[string]string{"chat scripted": "cancelled", "invoke_agent demo/echo": "cancelled"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := watchdog(t)
			p := newProviders(t)
			s := newSession(t)
			obs, err := telemetry.Observe(s.Bus(), p.options())
			require.NoError(t, err)
			defer obs.Stop()
			ectx := ctx
			if tc.cancel {
				c, cancel := context.WithCancel(ctx)
				ectx = c
				tc.turns = []scripted.Turn{scripted.Func(func(ctx context.Context, _ *model.Request) (*model.Response, error) {
					cancel()
					<-ctx.Done()
					return nil, ctx.Err()
				})}
			}
			_, err = runner.Evaluate(ectx, runner.Request{Prompt: agentPrompt(t, "demo", "echo", echoTool(t, tc.fail)), Session: s,
				Model: scripted.New(tc.turns...), ModelName: "scripted", UserMessage: "go", MaxTurns: tc.max})
			_ = err
			// The spans ended with the evaluation, before the observer stops.
			ended := p.spans.GetSpans()
			require.Len(t, byName(ended, "invoke_agent demo/echo"), 1, "the evaluation's span ended with its end")
			got := map[string]string{}
			for _, sp := range ended {
				if sp.Status.Code == codes.Error {
					got[sp.Name] = sp.Status.Description
					assert.Equal(t, tc.kinds[sp.Name], attr(sp, "error.type"), sp.Name)
				}
			}
			require.Len(t, got, len(tc.errors), "%v", got)
			for name, says := range tc.errors {
				assert.Contains(t, got[name], says, name)
			}
		})
	}
}

// TestFailedSubagentEndsWithTheEnginesError: a child whose evaluation
// fails without a record ends when the engine says it finished.
func TestFailedSubagentEndsWithTheEnginesError(t *testing.T) {
	ctx := watchdog(t)
	p := newProviders(t)
	s := newSession(t)
	obs, err := telemetry.Observe(s.Bus(), p.options())
	require.NoError(t, err)
	defer obs.Stop()
	engine := subagent.New(subagent.Options{NewID: counter("agent-")})
	child := agentPrompt(t, "agents", "looper", echoTool(t, false))
	_, err = engine.Run(ctx, subagent.Spec{Name: "agents/looper", Parent: s, Request: runner.Request{Prompt: child, UserMessage: "loop",
		Model: scripted.New(scripted.ToolCall("echo", `{"text":"a"}`), scripted.ToolCall("echo", `{"text":"b"}`)), ModelName: "scripted", MaxTurns: 1}})
	require.Error(t, err)
	spans := byName(p.spans.GetSpans(), "invoke_agent agents/looper")
	require.Len(t, spans, 1)
	assert.Equal(t, codes.Error, spans[0].Status.Code)
	assert.Contains(t, spans[0].Status.Description, "max turns")
	assert.Equal(t, "agent-1", attr(spans[0], "gen_ai.agent.id"))
}

// TestParentFromTheContext: an evaluation no call on the bus delegated is
// a child of the span its context carries — a program's own.
func TestParentFromTheContext(t *testing.T) {
	ctx := watchdog(t)
	p := newProviders(t)
	s := newSession(t)
	obs, err := telemetry.Observe(s.Bus(), p.options())
	require.NoError(t, err)
	defer obs.Stop()
	ctx, request := p.tp.Tracer("program").Start(ctx, "handle request")
	_, err = runner.Evaluate(ctx, runner.Request{Prompt: agentPrompt(t, "demo", "hello"), Session: s, Model: scripted.New(scripted.Text("hi")), ModelName: "scripted"})
	require.NoError(t, err)
	request.End()
	agent := byName(p.spans.GetSpans(), "invoke_agent demo/hello")
	require.Len(t, agent, 1)
	assert.Equal(t, request.SpanContext().SpanID(), agent[0].Parent.SpanID())
	assert.Equal(t, request.SpanContext().TraceID(), agent[0].SpanContext.TraceID())
}

// TestRemoteChildContinuesTheTrace: a call hands its work to a "worker"
// with its own bus, observer and provider, carrying CallContext's span in
// W3C trace-context headers; the worker's evaluation is a child of the
// call's execute_tool span, in the same trace.
func TestRemoteChildContinuesTheTrace(t *testing.T) {
	ctx := watchdog(t)
	local, remote := newProviders(t), newProviders(t)
	s := newSession(t)
	obs, err := telemetry.Observe(s.Bus(), local.options())
	require.NoError(t, err)
	defer obs.Stop()
	worker := newSession(t)
	wobs, err := telemetry.Observe(worker.Bus(), remote.options())
	require.NoError(t, err)
	defer wobs.Stop()

	delegate, err := tools.New("delegate", "Hand the work on.", func(ctx context.Context, inv *tools.Invocation, p EchoParams) (tools.Result[string], error) {
		headers := propagation.HeaderCarrier{}
		propagation.TraceContext{}.Inject(obs.CallContext(ctx, inv.Session.ID(), inv.CallID), headers)
		// On the worker, from the job's headers:
		wctx := propagation.TraceContext{}.Extract(context.Background(), headers)
		resp, err := runner.Evaluate(wctx, runner.Request{Prompt: agentPrompt(t, "agents", "worker"), Session: worker, Model: scripted.New(scripted.Text("worked")), ModelName: "scripted", UserMessage: p.Text})
		if err != nil {
			return tools.Failed[string](err.Error()), nil
		}
		return tools.OK("done", resp.Text), nil
	})
	require.NoError(t, err)
	_, err = runner.Evaluate(ctx, runner.Request{Prompt: agentPrompt(t, "demo", "lead", delegate), Session: s,
		Model: scripted.New(scripted.ToolCall("delegate", `{"text":"work"}`), scripted.Text("done")), ModelName: "scripted"})
	require.NoError(t, err)

	calls := byName(local.spans.GetSpans(), "execute_tool delegate")
	agents := byName(remote.spans.GetSpans(), "invoke_agent agents/worker")
	require.Len(t, calls, 1)
	require.Len(t, agents, 1)
	assert.Equal(t, calls[0].SpanContext.SpanID(), agents[0].Parent.SpanID())
	assert.Equal(t, calls[0].SpanContext.TraceID(), agents[0].SpanContext.TraceID())
	assert.True(t, agents[0].Parent.IsRemote())
	assert.Equal(t, context.Background(), obs.CallContext(context.Background(), s.ID(), "no such call"), "an unknown call leaves ctx as it is")
}

// TestBackgroundTaskLinksToTheLaunchingCall: a background child is a child
// of the call that launched it, and links to it, whichever of the call's
// return and the child's start the observer sees first.
func TestBackgroundTaskLinksToTheLaunchingCall(t *testing.T) {
	for _, callFirst := range []bool{false, true} {
		name := "the child starts before the call returns"
		if callFirst {
			name = "the call returns before the child starts"
		}
		t.Run(name, func(t *testing.T) {
			ctx := watchdog(t)
			p := newProviders(t)
			s := newSession(t)
			returned, childStarted := make(chan struct{}), make(chan struct{})
			if callFirst {
				// Subscribed before the observer: it sees the child's start
				// only once the launching call is recorded.
				_, err := bus.Subscribe(s.Bus(), "hold", func(ctx context.Context, _ bus.Envelope, _ subagent.Started) error {
					select {
					case <-returned:
					case <-ctx.Done():
					}
					return nil
				})
				require.NoError(t, err)
			}
			obs, err := telemetry.Observe(s.Bus(), p.options())
			require.NoError(t, err)
			defer obs.Stop()
			_, err = bus.Subscribe(s.Bus(), "test", func(_ context.Context, _ bus.Envelope, e runner.ToolInvoked) error {
				if e.Name == "launch" {
					close(returned)
				}
				return nil
			})
			require.NoError(t, err)
			_, err = bus.Subscribe(s.Bus(), "test", func(_ context.Context, _ bus.Envelope, _ subagent.Started) error {
				close(childStarted)
				return nil
			})
			require.NoError(t, err)
			engine := subagent.New(subagent.Options{NewID: counter("task-")})
			launch, err := tools.New("launch", "Start a background task.", func(ctx context.Context, inv *tools.Invocation, p EchoParams) (tools.Result[string], error) {
				task, err := engine.Start(ctx, subagent.Spec{Name: "agents/helper", Parent: inv.Session, Caller: inv, Request: runner.Request{
					Prompt: agentPrompt(t, "agents", "helper"), UserMessage: p.Text, Model: scripted.New(scripted.Text("helped")), ModelName: "scripted"}})
				if err != nil {
					return tools.Failed[string](err.Error()), nil
				}
				if !callFirst {
					select {
					case <-childStarted:
					case <-ctx.Done():
					}
				}
				return tools.OK("started", task.ID()).WithEvents(task.Started()), nil
			})
			require.NoError(t, err)
			_, err = runner.Evaluate(subagent.WithRun(ctx), runner.Request{Prompt: agentPrompt(t, "demo", "lead", launch), Session: s,
				Model: scripted.New(scripted.ToolCall("launch", `{"text":"help"}`), scripted.Text("launched")), ModelName: "scripted"})
			require.NoError(t, err)
			require.NoError(t, engine.Tasks().Wait(ctx))

			calls := byName(p.spans.GetSpans(), "execute_tool launch")
			agents := byName(p.spans.GetSpans(), "invoke_agent agents/helper")
			require.Len(t, calls, 1)
			require.Len(t, agents, 1)
			assert.Equal(t, calls[0].SpanContext.SpanID(), agents[0].Parent.SpanID())
			require.Len(t, agents[0].Links, 1)
			assert.Equal(t, calls[0].SpanContext, agents[0].Links[0].SpanContext)
			assert.Equal(t, "task-1", attr(agents[0], "gen_ai.agent.id"))
		})
	}
}

// TestObserveSubscribesToRecordsOnly: the observer never subscribes to
// the streamed pieces of answers (the runner would stream for it), and
// after Stop nothing of it is left on the bus.
func TestObserveSubscribesToRecordsOnly(t *testing.T) {
	p := newProviders(t)
	b := bus.New()
	assert.False(t, bus.Observed[runner.ModelCalled](b))
	obs, err := telemetry.Observe(b, p.options())
	require.NoError(t, err)
	assert.True(t, bus.Observed[runner.ModelCalled](b))
	assert.True(t, bus.Observed[subagent.Started](b))
	assert.False(t, bus.Observed[runner.Delta](b))
	obs.Stop()
	obs.Stop()
	for name, observed := range map[string]bool{
		"PromptRendered": bus.Observed[runner.PromptRendered](b), "ModelCalled": bus.Observed[runner.ModelCalled](b),
		"ToolInvoked": bus.Observed[runner.ToolInvoked](b), "PromptExecuted": bus.Observed[runner.PromptExecuted](b),
		"ConversationMessage": bus.Observed[runner.ConversationMessage](b), "Started": bus.Observed[subagent.Started](b),
		"Finished": bus.Observed[subagent.Finished](b), "TaskStarted": bus.Observed[subagent.TaskStarted](b),
	} {
		assert.False(t, observed, name)
	}
	_, err = telemetry.Observe(nil, telemetry.Options{})
	assert.ErrorContains(t, err, "needs the bus")
}

// TestParkedEvaluationIsNoError: an evaluation that ends waiting for an
// answer (runner.Wait) ends its span without an error status.
func TestParkedEvaluationIsNoError(t *testing.T) {
	ctx := watchdog(t)
	p := newProviders(t)
	s := newSession(t)
	obs, err := telemetry.Observe(s.Bus(), p.options())
	require.NoError(t, err)
	defer obs.Stop()
	ask, err := tools.New("ask", "Ask the user.", func(context.Context, *tools.Invocation, struct{}) (tools.Result[string], error) {
		return tools.Result[string]{}, runner.Wait("Which one?")
	})
	require.NoError(t, err)
	_, err = runner.Evaluate(ctx, runner.Request{Prompt: agentPrompt(t, "demo", "asker", ask), Session: s, UserMessage: "go",
		Model: scripted.New(scripted.ToolCall("ask", `{}`)), ModelName: "scripted"})
	_, waits := errors.AsType[*runner.Waiting](err)
	require.True(t, waits, "%v", err)
	spans := byName(p.spans.GetSpans(), "invoke_agent demo/asker")
	require.Len(t, spans, 1)
	assert.NotEqual(t, codes.Error, spans[0].Status.Code)
}
