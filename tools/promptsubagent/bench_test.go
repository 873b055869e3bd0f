package promptsubagent_test

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/serde"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/subagent"
	"github.com/offshoot-dev/offshoot/tools"
	"github.com/offshoot-dev/offshoot/tools/promptsubagent"
)

// Observation is a ~100-byte event, as spec/performance.md measures.
type Observation struct {
	ID   int    `json:"id"`
	Body string `json:"body"`
}

// benchParent returns a dispatcher, an invocation on a parent session
// holding n observations, and a caller context with a one-turn child model.
func benchParent(b *testing.B, n, concurrent int) (*promptsubagent.Dispatcher, *tools.Invocation, context.Context) {
	b.Helper()
	reg := prompt.NewRegistry()
	worker, err := prompt.New("agents", "worker", prompt.Markdown[prompt.NoParams]("Worker", workerText))
	if err != nil {
		b.Fatal(err)
	}
	if err := reg.Register(worker); err != nil {
		b.Fatal(err)
	}
	engine := subagent.New(subagent.Options{MaxSpawns: 1 << 30, MaxConcurrent: concurrent})
	d := promptsubagent.NewDispatcher(reg, engine, promptsubagent.Options{})
	tool, err := promptsubagent.Tool(reg, engine, promptsubagent.Options{})
	if err != nil {
		b.Fatal(err)
	}
	set, err := tools.NewToolset(tool)
	if err != nil {
		b.Fatal(err)
	}
	s, err := session.New(session.WithRegistry(serde.NewRegistry()))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = s.Close() })
	obs := make([]Observation, n)
	for i := range obs {
		obs[i] = Observation{ID: i, Body: "a line of tool output that is about eighty characters long, give or take a few"}
	}
	if err := session.Seed(s, obs...); err != nil {
		b.Fatal(err)
	}
	answer := &model.Response{Message: model.AssistantMessage("done"), Usage: model.Usage{InputTokens: 20, OutputTokens: 1, TotalTokens: 21}}
	m := model.Func(func(context.Context, *model.Request) (*model.Response, error) { return answer, nil })
	// The parent is dispatching from a tool call, so it has run an
	// evaluation: its session knows the runner's records.
	planner, err := prompt.New("root", "planner", prompt.Markdown[prompt.NoParams]("Planner", "Plan.", prompt.WithTools(tool)))
	if err != nil {
		b.Fatal(err)
	}
	if _, err := runner.Evaluate(context.Background(), runner.Request{Prompt: planner, Session: s, Model: m}); err != nil {
		b.Fatal(err)
	}
	// A dispatch from a tool call of an evaluation of a run.
	inv := &tools.Invocation{Session: s, Bus: s.Bus(), PromptNS: "root", PromptKey: "planner", Tools: set, Model: m, ModelName: "bench"}
	return d, inv, subagent.WithRun(context.Background())
}

// BenchmarkDispatch is one dispatch_subagent round trip — validate,
// snapshot, fork, render, a one-turn child, collect, teardown — from a
// parent holding N items. Flat in N is the point.
func BenchmarkDispatch(b *testing.B) {
	for _, n := range []int{10, 1_000, 10_000, 100_000} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			d, inv, ctx := benchParent(b, n, 0)
			in := adHoc("Summarize the observations.")
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := d.Dispatch(ctx, inv, in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkDispatchParallel100 is 100 dispatches from one turn, run the way
// the runner runs a turn's concurrent-safe calls: all at once, with the
// engine's default limit of 5 children at a time.
func BenchmarkDispatchParallel100(b *testing.B) {
	d, inv, ctx := benchParent(b, 10_000, 0)
	in := adHoc("Summarize the observations.")
	b.ReportAllocs()
	for b.Loop() {
		var wg sync.WaitGroup
		for range 100 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, _, err := d.Dispatch(ctx, inv, in); err != nil {
					b.Error(err)
				}
			}()
		}
		wg.Wait()
	}
}

// BenchmarkThousandChildrenHeap holds 1,000 children of a parent with
// 100,000 events alive at once — each forked, its prompt rendered, its
// model call in flight — and reports the live heap they add together
// (spec: at most 30 MB, thanks to structural sharing).
func BenchmarkThousandChildrenHeap(b *testing.B) {
	const children = 1000
	d, inv, ctx := benchParent(b, 100_000, children)
	in := adHoc("Summarize the observations.")
	var worst float64
	for b.Loop() {
		b.StopTimer()
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		base := ms.HeapAlloc
		var started sync.WaitGroup
		started.Add(children)
		release := make(chan struct{})
		answer := &model.Response{Message: model.AssistantMessage("done")}
		m := model.Func(func(context.Context, *model.Request) (*model.Response, error) {
			started.Done()
			<-release
			return answer, nil
		})
		c, call := subagent.WithRun(ctx), *inv
		call.Model = m
		var done sync.WaitGroup
		b.StartTimer()
		for range children {
			done.Add(1)
			go func() {
				defer done.Done()
				if _, _, err := d.Dispatch(c, &call, in); err != nil {
					b.Error(err)
				}
			}()
		}
		started.Wait()
		b.StopTimer()
		runtime.GC()
		runtime.ReadMemStats(&ms)
		worst = max(worst, float64(ms.HeapAlloc-base)/(1<<20))
		close(release)
		done.Wait()
		b.StartTimer()
	}
	b.ReportMetric(worst, "MB-live")
}
