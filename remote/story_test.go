package remote_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/bus"
	"github.com/offshoot-dev/offshoot/examples/billing"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/remote"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/subagent"
	"github.com/offshoot-dev/offshoot/tools"
	"github.com/offshoot-dev/offshoot/tools/promptsubagent"
	"github.com/offshoot-dev/offshoot/tools/vfs"
)

func counter(prefix string) func() string {
	var n atomic.Int64
	return func() string { return fmt.Sprintf("%s%d", prefix, n.Add(1)) }
}

// story runs the billing story — a planner dispatching two reviewers in
// parallel — with the engine's executor (nil: in process) and returns
// the planner's final state as normalized JSON, and the ran events seen.
func story(t *testing.T, ctx context.Context, exec subagent.Executor, blank ...string) (string, []remote.Ran) {
	st, ran, _ := storyDeltas(t, ctx, subagent.Options{Executor: exec}, blank...)
	return st, ran
}

// storyWith is story with an engine of opts (ids counted).
func storyWith(t *testing.T, ctx context.Context, opts subagent.Options, blank ...string) (string, []remote.Ran) {
	st, ran, _ := storyDeltas(t, ctx, opts, blank...)
	return st, ran
}

// storyDeltas is storyWith, and returns the text the subagents' models
// streamed, by session.
func storyDeltas(t *testing.T, ctx context.Context, opts subagent.Options, blank ...string) (string, []remote.Ran, map[string]string) {
	t.Helper()
	parent, err := session.New(session.WithIDGenerator(counter("s")))
	require.NoError(t, err)
	defer parent.Close()
	var ran []remote.Ran
	var mu sync.Mutex
	unsub, err := bus.Subscribe(parent.Bus(), "ran", func(_ context.Context, _ bus.Envelope, r remote.Ran) error {
		mu.Lock()
		defer mu.Unlock()
		ran = append(ran, r)
		return nil
	})
	require.NoError(t, err)
	defer unsub()
	streamed := map[string]string{}
	unsubDeltas, err := bus.Subscribe(parent.Bus(), "deltas", func(_ context.Context, _ bus.Envelope, d runner.Delta) error {
		mu.Lock()
		defer mu.Unlock()
		if d.SessionID != parent.ID() {
			streamed[d.SessionID] += d.Text
		}
		return nil
	})
	require.NoError(t, err)
	defer unsubDeltas()
	opts.NewID = counter("agent-")
	engine := subagent.New(opts)
	reg, err := billing.Prompts(engine, promptsubagent.Options{})
	require.NoError(t, err)
	planner, err := reg.Lookup(billing.PlannerNS, billing.PlannerKey)
	require.NoError(t, err)
	require.NoError(t, billing.Seed(ctx, parent, planner))
	_, err = runner.Evaluate(ctx, runner.Request{Prompt: planner, Session: parent, Model: billing.Script(), ModelName: "scripted",
		UserMessage: "Review the billing module."})
	require.NoError(t, err)
	_, ok := vfs.Files(parent).Get("notes/invoice.md")
	require.True(t, ok, "the reviewer's notes were copied into the planner's files")
	data, err := session.MarshalSnapshot(parent.Snapshot(), parent.Registry())
	require.NoError(t, err)
	mu.Lock()
	defer mu.Unlock()
	return normalize(t, data, blank...), ran, streamed
}

// normalize blanks what differs between two runs of one story: ids,
// times and durations.
func normalize(t *testing.T, data []byte, blank ...string) string {
	var v any
	require.NoError(t, json.Unmarshal(data, &v))
	v = rewriteJSON(v, func(k string, _ any) (any, bool) {
		switch lk := strings.ToLower(k); {
		case slices.Contains(blank, lk), lk == "evaluation", lk == "session_id", lk == "parent_id", strings.HasSuffix(lk, "_at"), lk == "time",
			strings.HasSuffix(lk, "duration"), lk == "call_id", lk == "source_id", lk == "children", lk == "child_ids":
			return "-", true
		}
		return nil, false
	})
	out, err := json.MarshalIndent(v, "", " ")
	require.NoError(t, err)
	return string(out)
}

// rewriteJSON replaces, in decoded JSON v, the value of each object key
// that replace says to (its second result), and walks into the others.
func rewriteJSON(v any, replace func(key string, value any) (any, bool)) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if r, ok := replace(k, e); ok {
				x[k] = r
			} else {
				x[k] = rewriteJSON(e, replace)
			}
		}
	case []any:
		for i := range x {
			x[i] = rewriteJSON(x[i], replace)
		}
	}
	return v
}

func watchdog(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestTheStoryOnThreeWorkerProcessesEqualsInProcess(t *testing.T) {
	ctx := watchdog(t)
	s := natsServer(t, t.TempDir(), -1)
	defer s.Shutdown()
	_, js := connect(t, s)
	startWorkers(t, s.ClientURL(), "story", 3)

	want, _ := story(t, ctx, nil)
	setup, err := storySetup(false)
	require.NoError(t, err)
	x, err := remote.NewExecutor(ctx, js, remote.Options{Pool: "story", Setup: setup})
	require.NoError(t, err)
	defer x.Close()
	_, _, wantStreamed := storyDeltas(t, ctx, subagent.Options{})
	got, ran, streamed := storyDeltas(t, ctx, subagent.Options{Executor: x})
	assert.Equal(t, want, got)
	assert.NotEmpty(t, wantStreamed)
	texts := func(m map[string]string) []string { return slices.Sorted(maps.Values(m)) }
	// Pieces travel on core NATS beside the result, best effort (see
	// deltas.go): one may land after its child's result, so what reached
	// the planner's bus is checked, not that all of it did by then.
	for _, got := range texts(streamed) {
		assert.True(t, slices.ContainsFunc(texts(wantStreamed), func(w string) bool { return strings.HasPrefix(w, got) }),
			"what reached the planner's bus, %q, begins a subagent's answer", got)
	}
	require.Len(t, ran, 2, "each reviewer ran once, on a worker")
	for _, r := range ran {
		assert.NotZero(t, r.PID)
		assert.Equal(t, 1, r.Attempt)
	}
}

func TestTheApproverOfTheParentDecidesAWorkersToolCalls(t *testing.T) {
	ctx := watchdog(t)
	s := natsServer(t, t.TempDir(), -1)
	defer s.Shutdown()
	_, js := connect(t, s)
	startWorkers(t, s.ClientURL(), "approve", 2)
	var asked atomic.Int64
	noGrep := func(_ context.Context, _ *tools.Invocation, call model.ToolCall) error {
		asked.Add(1)
		if call.Name == "grep" {
			return errors.New("no searching in this review")
		}
		return nil
	}
	want, _ := storyWith(t, ctx, subagent.Options{Approve: noGrep})
	inProcess := asked.Swap(0)
	setup, err := storySetup(false)
	require.NoError(t, err)
	x, err := remote.NewExecutor(ctx, js, remote.Options{Pool: "approve", Setup: setup})
	require.NoError(t, err)
	defer x.Close()
	got, _ := storyWith(t, ctx, subagent.Options{Approve: noGrep, Executor: x})
	assert.Equal(t, want, got)
	assert.Equal(t, inProcess, asked.Load(), "asked as often as in process")
	assert.Positive(t, inProcess)
}

// normalizeAgain blanks more keys of a normalized state.
func normalizeAgain(t *testing.T, state string, blank ...string) string {
	return normalize(t, []byte(state), blank...)
}
