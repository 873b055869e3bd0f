package runner_test

import (
	"context"
	"fmt"
	"log/slog"
	"runtime"
	"strings"
	"testing"

	"github.com/offshoot-dev/offshoot/bus"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/serde"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/tools"
)

// BenchmarkEvaluate runs K turns of one echo call each, then a final
// answer, against a model that answers from a precomputed script (so the
// model's own cost is near zero). Per-turn cost is
// (K=50 − K=10) / 40, as spec/performance.md measures the alternatives.
func BenchmarkEvaluate(b *testing.B) {
	echo, err := tools.New("echo", "Echo the text back.", func(_ context.Context, _ *tools.Invocation, p EchoParams) (tools.Result[EchoResult], error) {
		return tools.OK("echoed", EchoResult{Echo: p.Text}), nil
	})
	if err != nil {
		b.Fatal(err)
	}
	p, err := prompt.New("bench", "agent", prompt.Markdown[prompt.NoParams]("Task", "Echo things.", prompt.WithTools(echo)))
	if err != nil {
		b.Fatal(err)
	}
	logger := slog.New(slog.DiscardHandler)
	for _, stream := range []bool{false, true} {
		for _, k := range []int{1, 10, 50} {
			call := &model.Response{Message: model.AssistantMessage("", model.ToolCall{ID: "c", Name: "echo", Arguments: `{"text":"hi"}`}),
				Usage: model.Usage{InputTokens: 10, OutputTokens: 2, TotalTokens: 12}}
			final := &model.Response{Message: model.AssistantMessage("done"), Usage: model.Usage{TotalTokens: 3}}
			name := fmt.Sprintf("K=%d", k)
			if stream {
				name = "streaming/" + name
			}
			b.Run(name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					b.StopTimer()
					s, err := session.New(session.WithRegistry(serde.NewRegistry()))
					if err != nil {
						b.Fatal(err)
					}
					if stream {
						if _, err := bus.Subscribe(s.Bus(), "ui", func(context.Context, bus.Envelope, runner.Delta) error { return nil }); err != nil {
							b.Fatal(err)
						}
					}
					turn := 0
					m := model.Func(func(context.Context, *model.Request) (*model.Response, error) {
						turn++
						if turn > k {
							return final, nil
						}
						return call, nil
					})
					b.StartTimer()
					if _, err := runner.Evaluate(context.Background(), runner.Request{Prompt: p, Session: s, Model: m, UserMessage: "go", MaxTurns: k + 1, Logger: logger}); err != nil {
						b.Fatal(err)
					}
					b.StopTimer()
					_ = s.Close()
					b.StartTimer()
				}
			})
		}
	}
}

// BenchmarkStreamedChunk streams one answer of 1,000 words from the
// scripted model to an observer and reports the cost of each piece, from
// the model handing it over to the observer holding the bus event: the
// runner's part of streaming (spec: ≤ 20 µs and ≤ 5 allocations).
func BenchmarkStreamedChunk(b *testing.B) {
	p, err := prompt.New("bench", "stream", prompt.Markdown[prompt.NoParams]("Task", "Talk."))
	if err != nil {
		b.Fatal(err)
	}
	const words = 1000
	answer := strings.Repeat("word ", words)
	var chunks int
	b.ReportAllocs()
	var allocs uint64
	var ms runtime.MemStats
	for b.Loop() {
		b.StopTimer()
		s, err := session.New(session.WithRegistry(serde.NewRegistry()))
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		if _, err := bus.Subscribe(s.Bus(), "ui", func(_ context.Context, _ bus.Envelope, d runner.Delta) error { n++; return nil }); err != nil {
			b.Fatal(err)
		}
		m := scripted.New(scripted.Text(answer))
		runtime.ReadMemStats(&ms)
		before := ms.Mallocs
		b.StartTimer()
		if _, err := runner.Evaluate(context.Background(), runner.Request{Prompt: p, Session: s, Model: m, UserMessage: "go"}); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		runtime.ReadMemStats(&ms)
		allocs += ms.Mallocs - before
		chunks += n
		_ = s.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(chunks), "ns/chunk")
	b.ReportMetric(float64(allocs)/float64(chunks), "allocs/chunk")
}
