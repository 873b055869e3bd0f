package remote_test

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/trace"

	"github.com/offshoot-dev/offshoot/bus"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/remote"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/subagent"
	"github.com/offshoot-dev/offshoot/tools"
)

// The trace context of the delegating call — what Options.TraceContext
// gives for its session and call id, telemetry.Observer.CallContext in a
// program — crosses the job: the child runs on its worker with it, so a
// tracer on the worker's bus (Setup.Bus) continues the trace under that
// call.
func TestTheDelegatingCallsTraceContextCrossesTheJob(t *testing.T) {
	ctx := watchdog(t)
	srv := natsServer(t, t.TempDir(), -1)
	_, js := connect(t, srv)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	summarizer, err := prompt.New("demo", "summarizer", prompt.Markdown[prompt.NoParams]("Summarizer", "Summarize what you are given."))
	require.NoError(t, err)
	reg := prompt.NewRegistry()
	require.NoError(t, reg.Register(summarizer))
	setup := remote.Setup{Prompts: reg}

	workerBus := bus.New()
	var mu sync.Mutex
	var seen []trace.SpanContext
	unsub, err := bus.Subscribe(workerBus, "tracer", func(ctx context.Context, _ bus.Envelope, _ runner.PromptRendered) error {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, trace.SpanContextFromContext(ctx))
		return nil
	})
	require.NoError(t, err)
	defer unsub()
	worker := setup
	worker.Bus = workerBus
	worker.Model = func(string) (model.Model, error) {
		return model.Func(func(context.Context, *model.Request) (*model.Response, error) {
			return &model.Response{Message: model.AssistantMessage("A short summary."), FinishReason: model.FinishStop}, nil
		}), nil
	}
	served := make(chan error, 1)
	go func() { served <- remote.Serve(ctx, js, "traced", worker) }()

	call := trace.NewSpanContext(trace.SpanContextConfig{
		TraceID: trace.TraceID{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16},
		SpanID:  trace.SpanID{1, 2, 3, 4, 5, 6, 7, 8}, TraceFlags: trace.FlagsSampled})
	var asked []string
	x, err := remote.NewExecutor(ctx, js, remote.Options{Pool: "traced", Setup: setup,
		TraceContext: func(ctx context.Context, sessionID, callID string) context.Context {
			asked = append(asked, sessionID+"/"+callID)
			return trace.ContextWithSpanContext(ctx, call)
		}})
	require.NoError(t, err)
	defer x.Close()
	engine := subagent.New(subagent.Options{Executor: x})
	parent, err := session.New(session.WithID("parent"))
	require.NoError(t, err)
	defer parent.Close()
	out, err := engine.Run(ctx, subagent.Spec{Name: "demo/summarizer", Parent: parent,
		Caller:  &tools.Invocation{Session: parent, CallID: "call-7"},
		Request: runner.Request{Prompt: summarizer, Model: model.Func(nil), ModelName: "main", UserMessage: "Summarize the plan."}})
	require.NoError(t, err)
	assert.Equal(t, "A short summary.", out.Text)
	assert.Equal(t, []string{"parent/call-7"}, asked)

	mu.Lock()
	require.Len(t, seen, 1)
	got := seen[0]
	mu.Unlock()
	assert.Equal(t, call.TraceID(), got.TraceID())
	assert.Equal(t, call.SpanID(), got.SpanID())
	assert.True(t, got.IsRemote(), "restored from the job's headers")
	cancel()
	<-served
}
