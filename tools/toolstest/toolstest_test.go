package toolstest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/tools"
	"github.com/offshoot-dev/offshoot/tools/planning"
	"github.com/offshoot-dev/offshoot/tools/toolstest"
	"github.com/offshoot-dev/offshoot/tools/vfs"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// recorder is a testing.TB that records what Check reports.
type recorder struct {
	testing.TB
	mu       sync.Mutex
	errors   []string
	cleanups []func()
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}
func (r *recorder) Cleanup(f func()) { r.cleanups = append(r.cleanups, f) }

func check(t *testing.T, tool tools.Tool) (bool, string) {
	r := &recorder{TB: t}
	ok := toolstest.Check(r, tool)
	for _, f := range r.cleanups {
		f()
	}
	return ok, strings.Join(r.errors, "\n")
}

// The tools offshoot ships hold to the contract.
func TestTheBuiltInToolsPass(t *testing.T) {
	files, err := vfs.Tools(vfs.Options{})
	require.NoError(t, err)
	plans, err := planning.Tools()
	require.NoError(t, err)
	for _, set := range []tools.Toolset{files, plans} {
		for tool := range set.All() {
			t.Run(tool.Spec().Name, func(t *testing.T) { toolstest.Check(t, tool) })
		}
	}
}

// handmade is a hand-written tool whose parts the cases break.
type handmade struct {
	spec tools.Spec
	call func(ctx context.Context, args json.RawMessage) tools.Outcome
	asks *int
}

func (h handmade) Spec() tools.Spec {
	if h.asks != nil {
		*h.asks++
		h.spec.Description += strings.Repeat(".", *h.asks-1)
	}
	return h.spec
}

func (h handmade) Call(ctx context.Context, _ *tools.Invocation, args json.RawMessage) tools.Outcome {
	return h.call(ctx, args)
}

func good() handmade {
	return handmade{
		spec: tools.Spec{Name: "echo", Description: "Says its arguments back.", Params: json.RawMessage(`{"type":"object"}`), Result: json.RawMessage(`{}`)},
		call: func(_ context.Context, args json.RawMessage) tools.Outcome {
			return tools.Outcome{Text: string(args), Success: true, Events: []any{}}
		},
	}
}

// Check fails a tool exactly for the ways it breaks the contract.
func TestCheckFindsEachBreach(t *testing.T) {
	tests := []struct {
		name  string
		tool  func() tools.Tool
		wants string // "" when the tool passes
	}{
		{"a good hand-written tool", func() tools.Tool { return good() }, ""},
		{"a bad name", func() tools.Tool { h := good(); h.spec.Name = "echo it"; return h }, "may contain only ASCII letters"},
		{"no description", func() tools.Tool { h := good(); h.spec.Description = ""; return h }, "needs a description"},
		{"params that are not an object schema", func() tools.Tool {
			h := good()
			h.spec.Params = json.RawMessage(`{"type":"array"}`)
			return h
		}, "not a JSON Schema of an object"},
		{"reducers without a key", func() tools.Tool {
			h := good()
			h.spec.Reducers = session.Reducers{Rules: []session.Rule{session.Keep[struct{ N int }]()}}
			return h
		}, "have no key"},
		{"reducers that do not install", func() tools.Tool {
			h := good()
			h.spec.Reducers = session.Reducers{Key: "k", Rules: []session.Rule{session.Keep[any]()}}
			return h
		}, "do not install on a new session"},
		{"a spec that changes", func() tools.Tool { h := good(); h.asks = new(int); return h }, "its Spec changed between two calls"},
		{"a call that panics", func() tools.Tool {
			h := good()
			h.call = func(context.Context, json.RawMessage) tools.Outcome { panic("bug") }
			return h
		}, "panicked: bug"},
		{"a call that ends its goroutine", func() tools.Tool {
			h := good()
			h.call = func(context.Context, json.RawMessage) tools.Outcome { runtime.Goexit(); return tools.Outcome{} }
			return h
		}, "ended its goroutine (runtime.Goexit)"},
		{"a failure without text", func() tools.Tool {
			h := good()
			h.call = func(context.Context, json.RawMessage) tools.Outcome { return tools.Outcome{} }
			return h
		}, "failed with no text for the model"},
		{"an error reported as success", func() tools.Tool {
			h := good()
			h.call = func(context.Context, json.RawMessage) tools.Outcome {
				return tools.Outcome{Text: "ok", Success: true, Err: assert.AnError}
			}
			return h
		}, "has an Err"},
		{"a nil event", func() tools.Tool {
			h := good()
			h.call = func(context.Context, json.RawMessage) tools.Outcome {
				return tools.Outcome{Text: "ok", Success: true, Events: []any{nil}}
			}
			return h
		}, "returned a nil event"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ok, report := check(t, tt.tool())
			if tt.wants == "" {
				assert.True(t, ok, report)
				assert.Empty(t, report)
				return
			}
			assert.False(t, ok)
			assert.Contains(t, report, tt.wants)
		})
	}
	ok, report := check(t, nil)
	assert.False(t, ok)
	assert.Contains(t, report, "the tool is nil")
}

// A tool that does not return once its context is done is reported once,
// within Check's own bound, and not called again: Check ends well before
// go test's timeout with its report instead of a timeout panic. The
// bubble's clock makes the bound's seconds pass at once.
func TestCheckBoundsAToolThatHangs(t *testing.T) {
	tests := []struct {
		name  string
		call  func(ctx context.Context, release <-chan struct{}) tools.Outcome
		calls int64  // how many calls Check makes
		wants string // "" when the tool passes
	}{
		{"a call that hangs every time", func(_ context.Context, release <-chan struct{}) tools.Outcome {
			<-release
			return tools.Outcome{Text: "late", Success: true}
		}, 1, "did not return within 5s after its context expired (Check gives each call 10s); a call must return once its context is done. Check stopped calling the tool"},
		{"a call that hangs once its context is cancelled", func(ctx context.Context, release <-chan struct{}) tools.Outcome {
			if ctx.Err() != nil {
				<-release
			}
			return tools.Outcome{Text: "ok", Success: true}
		}, 3, "with an Invocation, its context cancelled, did not return within 5s after its context was cancelled"},
		{"a slow call that returns when its context is done", func(ctx context.Context, _ <-chan struct{}) tools.Outcome {
			<-ctx.Done()
			return tools.Outcome{Text: "stopped: " + ctx.Err().Error()}
		}, 30, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				release := make(chan struct{})
				defer close(release)
				var calls atomic.Int64
				h := good()
				h.call = func(ctx context.Context, _ json.RawMessage) tools.Outcome {
					calls.Add(1)
					return tt.call(ctx, release)
				}
				start := time.Now()
				ok, report := check(t, h)
				if tt.wants == "" {
					assert.True(t, ok, report)
					assert.Empty(t, report)
				} else {
					assert.False(t, ok)
					assert.Contains(t, report, tt.wants)
					assert.Equal(t, 1, strings.Count(report, "did not return"), "the hang is reported once: %s", report)
					assert.Less(t, time.Since(start), 16*time.Second, "Check waited past its bound")
				}
				assert.Equal(t, tt.calls, calls.Load(), "calls Check made")
			})
		})
	}
}
