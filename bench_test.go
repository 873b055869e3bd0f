package offshoot_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/offshoot-dev/offshoot"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/store/sqlite"
)

// BenchmarkQuery is one query of one model turn through the client — the
// conversation continued from the session, the evaluation, its messages
// through to the loop — after n earlier queries (the session is rolled
// back after each, so the conversation keeps its length). The model
// answers at once. BenchmarkEvaluate is the same turn through
// runner.Evaluate alone, for the client's own cost.
func BenchmarkQuery(b *testing.B) {
	answer := model.Func(func(context.Context, *model.Request) (*model.Response, error) {
		return &model.Response{Message: model.AssistantMessage("Done, as asked."), Usage: model.Usage{InputTokens: 10, OutputTokens: 4, TotalTokens: 14}}, nil
	})
	for _, n := range []int{0, 100, 1000} {
		b.Run(fmt.Sprintf("after=%d", n), func(b *testing.B) {
			c, err := offshoot.NewClient(offshoot.Options{Model: answer})
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			query := func() {
				for msg := range c.Query(ctx, "Do it.") {
					if r, ok := msg.(offshoot.ResultMessage); ok && r.Err != nil {
						b.Fatal(r.Err)
					}
				}
			}
			for range n {
				query()
			}
			snap := c.Session().Snapshot()
			b.ReportAllocs()
			for b.Loop() {
				query()
				b.StopTimer()
				if err := c.Session().Rollback(snap); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
		})
	}
}

func BenchmarkEvaluate(b *testing.B) {
	answer := model.Func(func(context.Context, *model.Request) (*model.Response, error) {
		return &model.Response{Message: model.AssistantMessage("Done, as asked."), Usage: model.Usage{InputTokens: 10, OutputTokens: 4, TotalTokens: 14}}, nil
	})
	p, err := prompt.New("bench", "main", prompt.Markdown[prompt.NoParams]("Role", offshoot.DefaultSystemPrompt))
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{0, 100, 1000} {
		b.Run(fmt.Sprintf("after=%d", n), func(b *testing.B) {
			s, err := session.New()
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			last := ""
			evaluate := func() {
				resp, err := runner.Evaluate(ctx, runner.Request{Prompt: p, Session: s, Model: answer, ModelName: "main", UserMessage: "Do it.", Continue: last})
				if err != nil {
					b.Fatal(err)
				}
				last = resp.Evaluation
			}
			for range n {
				evaluate()
			}
			snap, keep := s.Snapshot(), last
			b.ReportAllocs()
			for b.Loop() {
				evaluate()
				b.StopTimer()
				if err := s.Rollback(snap); err != nil {
					b.Fatal(err)
				}
				last = keep
				b.StartTimer()
			}
		})
	}
}

// BenchmarkStoredQuery is BenchmarkQuery's turn of the main agent — its
// whole toolset rendered, the conversation continued — on a client in
// memory and on one whose session is stored in SQLite, every commit
// appended before it returns (the bar: at most 3× in memory). The
// conversation starts again every 100 queries (not timed), so that a
// measured query follows 0 to 99 earlier ones whatever the count.
func BenchmarkStoredQuery(b *testing.B) {
	answer := model.Func(func(context.Context, *model.Request) (*model.Response, error) {
		return &model.Response{Message: model.AssistantMessage("Done, as asked."), Usage: model.Usage{InputTokens: 10, OutputTokens: 4, TotalTokens: 14}}, nil
	})
	for _, stored := range []bool{false, true} {
		name := "memory"
		if stored {
			name = "sqlite"
		}
		b.Run(name, func(b *testing.B) {
			var c *offshoot.Client
			done := func() {}
			queries := 0
			b.ReportAllocs()
			for b.Loop() {
				if queries%100 == 0 {
					b.StopTimer()
					done()
					opts := offshoot.Options{Model: answer}
					var st *sqlite.Store
					if stored {
						var err error
						if st, err = sqlite.Open(filepath.Join(b.TempDir(), "sessions.db")); err != nil {
							b.Fatal(err)
						}
						opts.Store = st
					}
					var err error
					if c, err = offshoot.NewClient(opts); err != nil {
						b.Fatal(err)
					}
					done = func() {
						_ = c.Close()
						if st != nil {
							_ = st.Close()
						}
					}
					b.StartTimer()
				}
				for msg := range c.Query(ctx, "Do it.") {
					if r, ok := msg.(offshoot.ResultMessage); ok && r.Err != nil {
						b.Fatal(r.Err)
					}
				}
				queries++
			}
			b.StopTimer()
			done()
		})
	}
}
