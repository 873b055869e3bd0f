package remote_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/remote"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/subagent"
	"github.com/offshoot-dev/offshoot/tools/vfs"
)

// oneTurn answers at once: a one-turn child.
var oneTurn = model.Func(func(context.Context, *model.Request) (*model.Response, error) {
	return &model.Response{Message: model.AssistantMessage("done"), FinishReason: model.FinishStop, Usage: model.Usage{InputTokens: 1, OutputTokens: 1, TotalTokens: 2}}, nil
})

// benchBed is an embedded server with workers in this process, each on a
// connection of its own, and an executor.
type benchBed struct {
	js     jetstream.JetStream
	x      *remote.Executor
	prompt *prompt.Prompt
	setup  remote.Setup
	stop   func()
}

func newBenchBed(b *testing.B, workers int) *benchBed {
	s := natsServer(b, b.TempDir(), -1)
	ctx, cancel := context.WithCancel(context.Background())
	p, err := prompt.New("bench", "child", prompt.Markdown[prompt.NoParams]("Child", "Answer."), vfs.Section(vfs.Options{}))
	require.NoError(b, err)
	reg := prompt.NewRegistry()
	require.NoError(b, reg.Register(p))
	r, err := p.Render()
	require.NoError(b, err)
	setup := remote.Setup{Prompts: reg, Tools: r.Tools, Concurrency: 8, Model: func(string) (model.Model, error) { return oneTurn, nil }}
	var wg sync.WaitGroup
	var conns []*nats.Conn
	for range workers {
		nc, err := nats.Connect(s.ClientURL())
		require.NoError(b, err)
		conns = append(conns, nc)
		js, err := jetstream.New(nc)
		require.NoError(b, err)
		wg.Go(func() { _ = remote.Serve(ctx, js, "bench", setup) })
	}
	nc, err := nats.Connect(s.ClientURL())
	require.NoError(b, err)
	js, err := jetstream.New(nc)
	require.NoError(b, err)
	x, err := remote.NewExecutor(ctx, js, remote.Options{Pool: "bench", Setup: setup})
	require.NoError(b, err)
	return &benchBed{js: js, x: x, prompt: p, setup: setup, stop: func() {
		_ = x.Close()
		cancel()
		wg.Wait()
		nc.Close()
		for _, c := range conns {
			c.Close()
		}
		s.Shutdown()
	}}
}

// BenchmarkOneTurnChild is a one-turn child's round trip: in process, and
// on a worker over loopback (job, snapshot already stored, result).
func BenchmarkOneTurnChild(b *testing.B) {
	bed := newBenchBed(b, 1)
	defer bed.stop()
	for _, tc := range []struct {
		name string
		exec subagent.Executor
	}{{"in-process", nil}, {"remote", bed.x}} {
		b.Run(tc.name, func(b *testing.B) {
			parent, err := session.New()
			require.NoError(b, err)
			defer parent.Close()
			engine := subagent.New(subagent.Options{Executor: tc.exec, MaxSpawns: 1 << 30})
			ctx := subagent.WithRun(context.Background())
			spec := subagent.Spec{Name: "bench/child", Parent: parent, Request: runner.Request{Prompt: bed.prompt, Model: oneTurn, ModelName: "main", UserMessage: "Go."}}
			_, err = engine.Run(ctx, spec) // stores the parent's state
			require.NoError(b, err)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := engine.Run(ctx, spec); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkThroughput is one-turn children per second from one parent,
// 64 at a time, over 1, 2 and 4 workers.
func BenchmarkThroughput(b *testing.B) {
	for _, workers := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			bed := newBenchBed(b, workers)
			defer bed.stop()
			parent, err := session.New()
			require.NoError(b, err)
			defer parent.Close()
			engine := subagent.New(subagent.Options{Executor: bed.x, MaxSpawns: 1 << 30, MaxConcurrent: 64})
			ctx := subagent.WithRun(context.Background())
			spec := subagent.Spec{Name: "bench/child", Parent: parent, Request: runner.Request{Prompt: bed.prompt, Model: oneTurn, ModelName: "main", UserMessage: "Go."}}
			_, err = engine.Run(ctx, spec)
			require.NoError(b, err)
			start := time.Now()
			b.SetParallelism(32)
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if _, err := engine.Run(ctx, spec); err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "children/s")
		})
	}
}

// BenchmarkSiblingsStoreTheirParentOnce dispatches N siblings forked from
// one parent holding 1 MB of files, and reports the bytes stored in the
// snapshot bucket per byte of the parent's snapshot.
func BenchmarkSiblingsStoreTheirParentOnce(b *testing.B) {
	for _, n := range []int{1, 10} {
		b.Run(fmt.Sprintf("siblings=%d", n), func(b *testing.B) {
			bed := newBenchBed(b, 1)
			defer bed.stop()
			for b.Loop() {
				parent, err := session.New()
				require.NoError(b, err)
				r, err := bed.prompt.Render()
				require.NoError(b, err)
				require.NoError(b, r.Tools.Install(context.Background(), parent))
				for i := range 22 { // about 1 MB in files of 48,000 characters
					require.NoError(b, parent.Dispatch(context.Background(), vfs.FileWritten{Path: fmt.Sprintf("big/%02d.txt", i), Content: strings.Repeat("x", 47_000), Version: 1}))
				}
				snap, err := session.MarshalSnapshot(parent.Snapshot(), parent.Registry())
				require.NoError(b, err)
				before := storedBytes(b, bed)
				engine := subagent.New(subagent.Options{Executor: bed.x, MaxConcurrent: n})
				var wg sync.WaitGroup
				for range n {
					wg.Go(func() {
						_, err := engine.Run(context.Background(), subagent.Spec{Name: "bench/child", Parent: parent,
							Request: runner.Request{Prompt: bed.prompt, Model: oneTurn, ModelName: "main", UserMessage: "Go."}})
						require.NoError(b, err)
					})
				}
				wg.Wait()
				b.ReportMetric(float64(storedBytes(b, bed)-before)/float64(len(snap)), "stored/parent")
				_ = parent.Close()
			}
		})
	}
}

func storedBytes(b *testing.B, bed *benchBed) uint64 {
	b.Helper()
	obs, err := bed.js.ObjectStore(context.Background(), "offshoot_snapshots")
	require.NoError(b, err)
	st, err := obs.Status(context.Background())
	require.NoError(b, err)
	return st.Size()
}
