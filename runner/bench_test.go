package runner_test

import (
	"context"
	"fmt"
	"log/slog"
	"testing"

	"github.com/offshoot-dev/offshoot/model"
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
	for _, k := range []int{1, 10, 50} {
		call := &model.Response{Message: model.AssistantMessage("", model.ToolCall{ID: "c", Name: "echo", Arguments: `{"text":"hi"}`}),
			Usage: model.Usage{InputTokens: 10, OutputTokens: 2, TotalTokens: 12}}
		final := &model.Response{Message: model.AssistantMessage("done"), Usage: model.Usage{TotalTokens: 3}}
		b.Run(fmt.Sprintf("K=%d", k), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				b.StopTimer()
				s, err := session.New(session.WithRegistry(serde.NewRegistry()))
				if err != nil {
					b.Fatal(err)
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
