package offshoot_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

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
// memory and, alternately, on one whose session is stored in SQLite, every
// commit appended before it returns. It reports each kind's median
// ("memory-µs", "stored-µs") and their difference ("added-µs": what
// storing adds to the client's turn); ns/op is the two queries together.
// Each client's conversation starts again every 100 queries (not timed),
// so that a measured query follows 0 to 99 earlier ones whatever the
// count.
func BenchmarkStoredQuery(b *testing.B) {
	memory, stored := &queryingClient{}, &queryingClient{stored: true}
	var inMemory, inStore []time.Duration
	b.ReportAllocs()
	for b.Loop() {
		if len(inMemory)%2 == 0 {
			inMemory = append(inMemory, memory.query(b))
			inStore = append(inStore, stored.query(b))
		} else {
			inStore = append(inStore, stored.query(b))
			inMemory = append(inMemory, memory.query(b))
		}
	}
	b.StopTimer()
	memory.close()
	stored.close()
	m, s := medianOf(inMemory), medianOf(inStore)
	b.ReportMetric(float64(m.Nanoseconds())/1e3, "memory-µs")
	b.ReportMetric(float64(s.Nanoseconds())/1e3, "stored-µs")
	b.ReportMetric(float64((s-m).Nanoseconds())/1e3, "added-µs")
}

// queryingClient is a client answered at once, stored in a SQLite file of
// its own when stored is set, made again every 100 queries.
type queryingClient struct {
	stored  bool
	c       *offshoot.Client
	st      *sqlite.Store
	queries int
}

// query asks one question and returns how long its answer took; making
// the client again is not timed, nor counted in the benchmark's time.
func (q *queryingClient) query(b *testing.B) time.Duration {
	if q.queries%100 == 0 {
		b.StopTimer()
		q.close()
		opts := offshoot.Options{Model: model.Func(func(context.Context, *model.Request) (*model.Response, error) {
			return &model.Response{Message: model.AssistantMessage("Done, as asked."), Usage: model.Usage{InputTokens: 10, OutputTokens: 4, TotalTokens: 14}}, nil
		})}
		if q.stored {
			var err error
			if q.st, err = sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "sessions.db")); err != nil {
				b.Fatal(err)
			}
			opts.Store = q.st
		}
		var err error
		if q.c, err = offshoot.NewClient(opts); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	start := time.Now()
	for msg := range q.c.Query(ctx, "Do it.") {
		if r, ok := msg.(offshoot.ResultMessage); ok && r.Err != nil {
			b.Fatal(r.Err)
		}
	}
	q.queries++
	return time.Since(start)
}

func (q *queryingClient) close() {
	if q.c != nil {
		_ = q.c.Close()
	}
	if q.st != nil {
		_ = q.st.Close()
	}
	q.c, q.st = nil, nil
}

// medianOf returns the middle of ds, which it sorts.
func medianOf(ds []time.Duration) time.Duration {
	slices.Sort(ds)
	return ds[len(ds)/2]
}
