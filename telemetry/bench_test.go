package telemetry_test

import (
	"context"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	tracenoop "go.opentelemetry.io/otel/trace/noop"

	"github.com/offshoot-dev/offshoot/bus"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/serde"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/telemetry"
	"github.com/offshoot-dev/offshoot/tools"
)

// turns is how many turns of one echo call each an evaluation of the
// benchmark runs, before its final answer.
const turns = 10

// evaluation runs turns scripted turns of one tool call each, then a
// final answer — runner.BenchmarkEvaluate's K=10 — on a new session on
// b, as a program runs one evaluation after another with one observer
// attached to their bus.
func evaluation(tb testing.TB, b *bus.Bus) func() {
	echo, err := tools.New("echo", "Echo the text back.", func(_ context.Context, _ *tools.Invocation, p EchoParams) (tools.Result[string], error) {
		return tools.OK("echoed", p.Text), nil
	})
	require.NoError(tb, err)
	p, err := prompt.New("bench", "agent", prompt.Markdown[prompt.NoParams]("Task", "Echo things.", prompt.WithTools(echo)))
	require.NoError(tb, err)
	logger := slog.New(slog.DiscardHandler)
	call := &model.Response{Message: model.AssistantMessage("", model.ToolCall{ID: "c", Name: "echo", Arguments: `{"text":"hi"}`}),
		Usage: model.Usage{InputTokens: 10, OutputTokens: 2, TotalTokens: 12}, FinishReason: model.FinishToolCalls}
	final := &model.Response{Message: model.AssistantMessage("done"), Usage: model.Usage{TotalTokens: 3}, FinishReason: model.FinishStop}
	return func() {
		s, err := session.New(session.WithRegistry(serde.NewRegistry()), session.WithBus(b))
		require.NoError(tb, err)
		defer s.Close()
		turn := 0
		m := model.Func(func(context.Context, *model.Request) (*model.Response, error) {
			if turn++; turn > turns {
				return final, nil
			}
			return call, nil
		})
		_, err = runner.Evaluate(context.Background(), runner.Request{Prompt: p, Session: s, Model: m, ModelName: "bench", UserMessage: "go", MaxTurns: turns + 1, Logger: logger})
		require.NoError(tb, err)
	}
}

// BenchmarkTurn is a scripted turn (a model call and a tool call) without
// telemetry and with it on — the SDK's providers batching spans to an
// exporter that drops them and aggregating metrics — per turn, in time
// and in the CPU time the process spent.
func BenchmarkTurn(b *testing.B) {
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewNoopExporter()))
	defer tp.Shutdown(context.Background())
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	defer mp.Shutdown(context.Background())
	for _, tc := range []struct {
		name string
		opts *telemetry.Options
	}{
		{"telemetry=off", nil},
		{"telemetry=on", &telemetry.Options{TracerProvider: tp, MeterProvider: mp, Provider: "bench"}},
		// The observer's own share: providers that record nothing.
		{"telemetry=on/noop-providers", &telemetry.Options{TracerProvider: tracenoop.NewTracerProvider(), MeterProvider: metricnoop.NewMeterProvider(), Provider: "bench"}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			bb := bus.New()
			if tc.opts != nil {
				obs, err := telemetry.Observe(bb, *tc.opts)
				require.NoError(b, err)
				defer obs.Stop()
			}
			run := evaluation(b, bb)
			b.ReportAllocs()
			cpu := cpuTime()
			for b.Loop() {
				run()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*(turns+1)), "ns/turn")
			if cpu := cpuTime() - cpu; cpu > 0 {
				// On a busy machine the CPU time spent is steadier than the
				// time that passed.
				b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N*(turns+1)), "cpu-ns/turn")
			}
		})
	}
}

// TestOffCostsNothing: publishing the runner's records on a bus whose
// observer stopped allocates nothing, as on a bus never observed —
// nothing of the observer is left on the bus, and the runner's own work is
// unchanged.
func TestOffCostsNothing(t *testing.T) {
	p := newProviders(t)
	never, stopped := bus.New(), bus.New()
	obs, err := telemetry.Observe(stopped, p.options())
	require.NoError(t, err)
	obs.Stop()
	records := []bus.Envelope{
		{SessionID: "s1", Payload: runner.PromptRendered{Evaluation: "e1", NS: "bench", Key: "agent"}},
		{SessionID: "s1", Payload: runner.ConversationMessage{Evaluation: "e1", Message: model.AssistantMessage("", model.ToolCall{ID: "c", Name: "echo"})}},
		{SessionID: "s1", Payload: runner.ModelCalled{Evaluation: "e1", Model: "bench"}},
		{SessionID: "s1", Payload: runner.ToolInvoked{Evaluation: "e1", Name: "echo", CallID: "c"}},
		{SessionID: "s1", Payload: runner.PromptExecuted{Evaluation: "e1"}},
	}
	for name, b := range map[string]*bus.Bus{"never observed": never, "observer stopped": stopped} {
		allocs := testing.AllocsPerRun(100, func() {
			if res := b.Publish(context.Background(), records...); res.Delivered != 0 {
				t.Fatalf("%s: %d deliveries", name, res.Delivered)
			}
		})
		assert.Zero(t, allocs, name)
	}
	assert.Empty(t, p.spans.GetSpans())
}
