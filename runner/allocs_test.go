package runner_test

import (
	"context"
	"log/slog"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/bus"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/serde"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/tools"
)

// A turn of the loop — a model call, a tool call, both recorded in the
// session with the call's ContextUsage — allocates at most 20 times, 22
// when the answer streams to an observer (BenchmarkEvaluate's per-turn
// figures, measured here as the difference between 30 turns and 10), so
// that an allocation added to the hot path shows up as a failure, not only
// in a benchmark someone has to rerun (16.1 and 18.1 measured: a commit
// allocates its state and its vector table together, and envelopes a
// turn's events on the stack). It allocates at most 2,430 bytes (about
// 2,390 measured over 50 turns less 10, once a state's table of vectors
// shrank; 2,480 before), which an added allocation or a larger record
// shows.
func TestAllocationsPerTurn(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes what allocates; go test without -race counts them")
	}
	echo, err := tools.New("echo", "Echo the text back.", func(_ context.Context, _ *tools.Invocation, p EchoParams) (tools.Result[EchoResult], error) {
		return tools.OK("echoed", EchoResult{Echo: p.Text}), nil
	})
	require.NoError(t, err)
	p, err := prompt.New("bench", "agent", prompt.Markdown[prompt.NoParams]("Task", "Echo things.", prompt.WithTools(echo)))
	require.NoError(t, err)
	call := &model.Response{Message: model.AssistantMessage("", model.ToolCall{ID: "c", Name: "echo", Arguments: `{"text":"hi"}`})}
	final := &model.Response{Message: model.AssistantMessage("done")}
	logger := slog.New(slog.DiscardHandler)
	// run evaluates a run of k turns on a new session.
	run := func(k int, stream bool) {
		s, err := session.New(session.WithRegistry(serde.NewRegistry()))
		require.NoError(t, err)
		defer s.Close()
		if stream {
			_, err := bus.Subscribe(s.Bus(), "ui", func(context.Context, bus.Envelope, runner.Delta) error { return nil })
			require.NoError(t, err)
		}
		turn := 0
		m := model.Func(func(context.Context, *model.Request) (*model.Response, error) {
			if turn++; turn > k {
				return final, nil
			}
			return call, nil
		})
		_, err = runner.Evaluate(context.Background(), runner.Request{Prompt: p, Session: s, Model: m, UserMessage: "go", MaxTurns: k + 1, Logger: logger})
		require.NoError(t, err)
	}
	allocs := func(k int, stream bool) float64 {
		return testing.AllocsPerRun(20, func() { run(k, stream) })
	}
	// bytes is what a run of k turns allocates, averaged over 20 runs.
	bytes := func(k int) float64 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for range 20 {
			run(k, false)
		}
		runtime.ReadMemStats(&after)
		return float64(after.TotalAlloc-before.TotalAlloc) / 20
	}
	t.Run("bytes", func(t *testing.T) {
		perTurn := (bytes(50) - bytes(10)) / 40
		require.LessOrEqual(t, perTurn, 2430.0, "bytes per turn")
		t.Logf("%.0f bytes per turn", perTurn)
	})
	for _, tt := range []struct {
		name   string
		stream bool
		bar    float64
	}{{"unstreamed", false, 20}, {"streamed", true, 22}} {
		t.Run(tt.name, func(t *testing.T) {
			perTurn := (allocs(30, tt.stream) - allocs(10, tt.stream)) / 20
			require.LessOrEqual(t, perTurn, tt.bar, "allocations per turn")
			t.Logf("%.1f allocations per turn", perTurn)
		})
	}
}
