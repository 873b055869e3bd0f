package compare

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// Every framework's loop calls the echo tool K times and then answers, run
// after run: the work per iteration is the same everywhere. With streaming
// on, the observer reads every piece: the tool call of each turn as one,
// the final answer in four.
func TestLoopDoesTheSameWork(t *testing.T) {
	builders := map[string]func(testing.TB, int) *rig{
		Offshoot: offshootLoop, OffshootStream: offshootStreamLoop, Eino: einoLoop, EinoStream: einoStreamLoop,
		Genkit: genkitLoop, LangChainGo: langchaingoLoop,
	}
	streaming := map[string]bool{OffshootStream: true, EinoStream: true}
	for fw, build := range builders {
		for _, k := range []int{1, 3} {
			t.Run(fmt.Sprintf("%s/K=%d", fw, k), func(t *testing.T) {
				r := build(t, k)
				for run := 1; run <= 2; run++ {
					text, err := r.run(watchdog(t))
					require.NoError(t, err)
					assert.Equal(t, finalAnswer, text)
					assert.Equal(t, int64(k*run), r.echoes.Load(), "echo calls after %d runs", run)
					var pieces int64
					if streaming[fw] {
						pieces = int64(run) * streamedPieces(k)
					}
					assert.Equal(t, pieces, r.deltas.Load(), "streamed pieces read after %d runs", run)
				}
			})
		}
	}
}

func TestStreamChunks(t *testing.T) {
	tests := []struct {
		text string
		n    int
		want []string
	}{
		{"done", 4, []string{"d", "o", "n", "e"}},
		{"abcdefgh", 4, []string{"ab", "cd", "ef", "gh"}},
		{"abcdefghi", 4, []string{"abc", "def", "ghi"}},
		{"ab", 4, []string{"a", "b"}},
		{"", 4, nil},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, streamChunks(tt.text, tt.n), "%q in %d", tt.text, tt.n)
	}
	assert.Equal(t, int64(3+4), streamedPieces(3), "three tool calls, then \"done\" in four pieces")
}

// With the hand-off, every framework runs one child turn that received the
// parent's N events (as state or as messages); the control runs the echo
// tool and no child. offshoot-task's child also carries the parent's
// conversation: its model fails the run when the request does not.
func TestHandoffDoesTheSameWork(t *testing.T) {
	const n = 50
	builders := map[string]func(testing.TB, int, bool) *rig{
		Offshoot: offshootHandoff, OffshootTask: offshootTaskHandoff, Eino: einoHandoff, Genkit: genkitHandoff,
	}
	for fw, build := range builders {
		t.Run(fw+"/handoff", func(t *testing.T) {
			r := build(t, n, true)
			for run := 1; run <= 2; run++ {
				text, err := r.run(watchdog(t))
				require.NoError(t, err)
				assert.Equal(t, finalAnswer, text)
				assert.Equal(t, int64(run), r.children.Load(), "child model calls after %d runs", run)
				// eino's child also gets the user's message, the transfer
				// messages and its own instruction.
				assert.GreaterOrEqual(t, r.childSaw.Load(), int64(n), "what the child received of the parent's events")
				assert.LessOrEqual(t, r.childSaw.Load(), int64(n+4))
				assert.Zero(t, r.echoes.Load())
			}
		})
		t.Run(fw+"/parent-only", func(t *testing.T) {
			r := build(t, n, false)
			for run := 1; run <= 2; run++ {
				text, err := r.run(watchdog(t))
				require.NoError(t, err)
				assert.Equal(t, finalAnswer, text)
				assert.Equal(t, int64(run), r.echoes.Load())
				assert.Zero(t, r.children.Load())
			}
		})
	}
}

// The scale workload's parent starts every child at once, and each child
// waits inside its model call until released.
func TestScaleHoldsEveryChildAtOnce(t *testing.T) {
	const children = 4
	builders := map[string]func(testing.TB, int, int) scaleRun{
		Offshoot: offshootScale, OffshootTask: offshootTaskScale, Eino: einoScale, Genkit: genkitScale,
	}
	for fw, build := range builders {
		t.Run(fw, func(t *testing.T) {
			run := build(t, 100, children)
			ctx := watchdog(t)
			bar := newBarrier(children)
			done := make(chan error, 1)
			go func() { done <- run(ctx, bar) }()
			for i := range children {
				select {
				case <-bar.arrived:
				case err := <-done:
					t.Fatalf("the parent finished with %d of %d children started: %v", i, children, err)
				case <-ctx.Done():
					t.Fatalf("only %d of %d children started", i, children)
				}
			}
			close(bar.release)
			require.NoError(t, <-done)
		})
	}
}

func TestCasesAreDistinctAndComplete(t *testing.T) {
	seen := map[string]bool{}
	count := map[string]int{}
	for _, c := range Cases() {
		name := c.Workload + "/" + c.Name()
		assert.False(t, seen[name], "duplicate case %s", name)
		seen[name] = true
		count[c.Workload]++
		assert.NotNil(t, c.Bench, name)
	}
	assert.Equal(t, 6*len(LoopTurns), count[Loop])
	assert.Equal(t, 4*2*len(HandoffEvents), count[Handoff])
	assert.Equal(t, 4, count[Scale])
	assert.True(t, seen["handoff/genkit/parent-only/N=1000"])
	assert.True(t, seen["loop/offshoot-stream/K=50"])
	assert.True(t, seen["loop/eino-stream/K=1"])
	assert.True(t, seen["handoff/offshoot-task/handoff/N=100000"])
	assert.True(t, seen["scale/offshoot/children=1000"])
	assert.True(t, seen["scale/offshoot-task/children=1000"])
}

// watchdog returns a context that ends the test's waits well before the go
// test timeout.
func watchdog(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}
