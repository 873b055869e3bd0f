package compare

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// eventBody is the text of one parent event: with its id, about 100 bytes.
const eventBody = "a line of tool output that is about eighty characters long, give or take a few words"

// parentEvent is one item a parent holds: about 100 bytes of JSON.
type parentEvent struct {
	ID   int    `json:"id"`
	Body string `json:"body"`
}

// echoParams is the echo tool's input.
type echoParams struct {
	Text string `json:"text"`
}

// echoResult is the echo tool's output.
type echoResult struct {
	Echo string `json:"echo"`
}

// delegateParams is the input of the peers' hand-off tools.
type delegateParams struct {
	Request string `json:"request"`
}

// The texts every framework's fake model and tools use.
const (
	echoName         = "echo"
	echoArgs         = `{"text":"hi"}`
	delegateName     = "worker"
	delegateRequest  = "Summarize the events."
	finalAnswer      = "done"
	parentPrompt     = "You lead the work."
	childPrompt      = "You investigate one thing and report."
	userMessage      = "go"
	watchdogDuration = 2 * time.Minute
)

// finalChunks is how many pieces a streaming fake splits the final answer
// into; a tool call streams as one piece.
const finalChunks = 4

// streamChunks splits text into n pieces of about equal length (fewer when
// text is shorter than n bytes).
func streamChunks(text string, n int) []string {
	size := max(1, (len(text)+n-1)/n)
	var out []string
	for len(text) > 0 {
		k := min(size, len(text))
		out = append(out, text[:k])
		text = text[k:]
	}
	return out
}

// streamedPieces is how many pieces an observer reads from a streaming run
// of k tool-call turns and a final answer.
func streamedPieces(k int) int64 { return int64(k + len(streamChunks(finalAnswer, finalChunks))) }

// script is the turn counter behind every framework's fake model: the first
// calls model calls answer with a tool call, the rest with the final answer. Each
// fake returns one shallow copy of a prepared response per call, so the
// model's own cost is the same, near zero, everywhere.
type script struct {
	calls int64
	n     atomic.Int64
}

// toolTurn counts a model call and says whether it is one of the calls that
// answer with a tool call.
func (s *script) toolTurn() bool { return s.n.Add(1) <= s.calls }

// reset starts the script over for the next run.
func (s *script) reset() { s.n.Store(0) }

// events returns n parent events.
func events(n int) []parentEvent {
	out := make([]parentEvent, n)
	for i := range out {
		out[i] = parentEvent{ID: i, Body: eventBody}
	}
	return out
}

// barrier holds every child of the scale workload inside its model call
// until the measurement is taken.
type barrier struct {
	arrived chan struct{}
	release chan struct{}
}

func newBarrier(children int) *barrier {
	return &barrier{arrived: make(chan struct{}, children), release: make(chan struct{})}
}

// wait is called by a child's model: it reports the child's arrival and
// waits for the release.
func (b *barrier) wait(ctx context.Context) error {
	b.arrived <- struct{}{}
	select {
	case <-b.release:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// measureChildren runs the scale workload: for each iteration it takes the
// live heap, starts run (a parent turn whose children call bar.wait), waits
// until every child is inside its model call, takes the live heap again,
// then releases them. It reports the heap the children added, per child and
// scaled to ScaleTarget children.
func measureChildren(b *testing.B, children int, run func(ctx context.Context, bar *barrier) error) {
	b.Helper()
	var added, iters float64
	for b.Loop() {
		ctx, cancel := context.WithTimeout(context.Background(), watchdogDuration)
		bar := newBarrier(children)
		before := liveHeap()
		done := make(chan error, 1)
		go func() { done <- run(ctx, bar) }()
		for i := range children {
			select {
			case <-bar.arrived:
			case err := <-done:
				cancel()
				b.Fatalf("the parent finished with %d of %d children started: %v", i, children, err)
			case <-ctx.Done():
				cancel()
				<-done
				b.Fatalf("only %d of %d children reached their model within %s", i, children, watchdogDuration)
			}
		}
		during := liveHeap()
		close(bar.release)
		err := <-done
		cancel()
		if err != nil {
			b.Fatalf("the parent failed after its children ran: %v", err)
		}
		added += float64(during) - float64(before)
		iters++
	}
	perChild := added / iters / float64(children)
	b.ReportMetric(perChild/1024, "KB/child")
	b.ReportMetric(perChild*ScaleTarget/(1<<20), fmt.Sprintf("MB/%dchildren", ScaleTarget))
}

// liveHeap returns the bytes of live heap objects after a full collection.
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// rig is one framework set up for one case: run is one whole run, and the
// counters let tests check that every framework did the same work.
type rig struct {
	// run is one run: the parent's (or the agent's) whole evaluation. It
	// returns the final answer.
	run func(ctx context.Context) (string, error)
	// echoes counts calls of the echo tool.
	echoes atomic.Int64
	// children counts child model calls.
	children atomic.Int64
	// childSaw is how many parent events the last child received.
	childSaw atomic.Int64
	// deltas counts the streamed pieces of the model's answers an
	// observer read (the streaming rows).
	deltas atomic.Int64
}

// scaleRun is one parent turn of the scale workload: its model asks for
// one hand-off per child, and every child waits on bar inside its model
// call.
type scaleRun func(ctx context.Context, bar *barrier) error

// benchRig returns the benchmark of the rig build makes: one whole run per
// iteration.
func benchRig(build func(tb testing.TB) *rig) func(*testing.B) {
	return func(b *testing.B) {
		r := build(b)
		ctx := context.Background()
		b.ReportAllocs()
		for b.Loop() {
			text, err := r.run(ctx)
			if err != nil {
				b.Fatal(err)
			}
			if text != finalAnswer {
				b.Fatalf("the run answered %q, want %q", text, finalAnswer)
			}
		}
	}
}

// must returns a func that stops tb on a set-up error, or returns v:
// must(tools.New(...))(tb).
func must[T any](v T, err error) func(tb testing.TB) T {
	return func(tb testing.TB) T {
		tb.Helper()
		if err != nil {
			tb.Fatal(err)
		}
		return v
	}
}
