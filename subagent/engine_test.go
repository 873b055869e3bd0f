package subagent_test

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"weak"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/offshoot-dev/offshoot/bus"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/sessiontest"
	"github.com/offshoot-dev/offshoot/subagent"
	"github.com/offshoot-dev/offshoot/tools"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestForkedChildStartsWithParityAndLeavesTheParentUnchanged(t *testing.T) {
	parent := newParent(t)
	before := sessiontest.Capture(parent)
	var sawParity bool
	var childID string
	observed := map[string]int{}
	var mu sync.Mutex
	parent.Bus().SubscribeAll("watch", func(_ context.Context, env bus.Envelope) error {
		mu.Lock()
		defer mu.Unlock()
		if env.SessionID != parent.ID() {
			observed[env.ParentSessionID]++
		}
		return nil
	})
	e := subagent.New(subagent.Options{ChildSetup: func(child *session.Session) error {
		childID = child.ID()
		sawParity = sessiontest.AssertParity(t, before.Snapshot(), child)
		return nil
	}})
	m := scripted.New(scripted.ToolCall("write", `{"text":"child work"}`), scripted.Text("summary of the work"))
	run, budget := inRun(0)
	out, err := e.Run(run, spec(t, parent, m, writeTool(t)))
	require.NoError(t, err)
	assert.True(t, sawParity, "the child started with exactly the parent's state")

	assert.Equal(t, "summary of the work", out.Text)
	assert.Equal(t, childID, out.SessionID)
	assert.Equal(t, 1, out.Depth)
	assert.Equal(t, map[string]int{"write": 1}, out.Usage.ToolCalls)
	assert.Equal(t, 2, out.Usage.ModelCalls)
	assert.Equal(t, []Wrote{{"child work"}}, session.SliceOfSnapshot[Wrote](out.Final).Values())
	assert.Equal(t, []Note{{"parent state"}}, session.SliceOfSnapshot[Note](out.Final).Values())

	sessiontest.AssertUnchanged(t, before, parent)
	assert.Equal(t, before.Snapshot().Revision(), parent.Revision(), "nothing at all was written to the parent")
	assert.Zero(t, session.Len[Wrote](parent))
	assert.Empty(t, parent.ChildIDs(), "the child was closed")
	mu.Lock()
	assert.Positive(t, observed[parent.ID()], "the child's events went on the parent's bus, addressed to the child")
	mu.Unlock()

	// The child's spending was charged to the run as it happened.
	assert.Equal(t, out.Usage.Total, budget.Spent())
	assert.Positive(t, out.Usage.Total.TotalTokens)

	// The child was told what it is.
	sys := m.Calls()[0].Request.Messages[0].Content
	assert.Contains(t, sys, "## 1. Role\n\nYou are worker.")
	assert.Contains(t, sys, "## 2. Subagent\n\nYou are a subagent")
}

func TestFreshChildHasTheReducersButNoState(t *testing.T) {
	parent := newParent(t)
	require.NoError(t, session.Register(parent, session.ReplaceLatest[Wrote]))
	m := scripted.New(scripted.ToolCall("write", `{"text":"a"}`), scripted.ToolCall("write", `{"text":"b"}`), scripted.Text("ok"))
	sp := spec(t, parent, m, writeTool(t))
	sp.Mode = subagent.Fresh
	out, err := subagent.New(subagent.Options{}).Run(ctx, sp)
	require.NoError(t, err)
	assert.Zero(t, session.SliceOfSnapshot[Note](out.Start).Len())
	assert.Equal(t, []Wrote{{"b"}}, session.SliceOfSnapshot[Wrote](out.Final).Values(), "the parent's reducer ran in the child")
}

func TestSetupFailureAbortsAndLeavesNothingBehind(t *testing.T) {
	for name, setup := range map[string]func(*session.Session) error{
		"error": func(*session.Session) error { return errors.New("metrics store unavailable") },
		"panic": func(*session.Session) error { panic("setup bug") },
	} {
		t.Run(name, func(t *testing.T) {
			parent := newParent(t)
			before := sessiontest.Capture(parent)
			m := scripted.New()
			var child weak.Pointer[session.Session]
			sp := spec(t, parent, m)
			sp.Setup = func(c *session.Session) error { child = weak.Make(c); return setup(c) }
			_, err := subagent.New(subagent.Options{}).Run(ctx, sp)
			require.ErrorIs(t, err, subagent.ErrSetup)
			assert.Contains(t, err.Error(), "Failed to initialize subagent: ")
			assert.Empty(t, m.Calls(), "the child never ran")
			sessiontest.AssertUnchanged(t, before, parent)
			assert.Empty(t, parent.ChildIDs())
			runtime.GC()
			runtime.GC()
			assert.Nil(t, child.Value(), "the child was collected")
		})
	}
}

func TestCycleAndDepth(t *testing.T) {
	parent := newParent(t)
	sp := spec(t, parent, scripted.New())
	_, err := subagent.New(subagent.Options{}).Run(subagent.WithChain(ctx, "root/agent", "child/worker", "child/other"), sp)
	require.ErrorIs(t, err, subagent.ErrCycle)
	assert.EqualError(t, err, "Circular delegation prevented: root/agent -> child/worker -> child/other -> child/worker")

	sp = spec(t, parent, scripted.New())
	_, err = subagent.New(subagent.Options{MaxDepth: 3}).Run(subagent.WithChain(ctx, "a", "b", "c", "d"), sp)
	require.ErrorIs(t, err, subagent.ErrDepth)
	assert.EqualError(t, err, "Subagent depth limit reached (3)")
	assert.Empty(t, parent.ChildIDs())
}

func TestNestedDelegationWithholdsTheDelegatingToolAtTheLimit(t *testing.T) {
	parent := newParent(t)
	m := scripted.New(
		scripted.When(scripted.SystemContains("You are worker."),
			scripted.ToolCall("delegate", `{"name":"helper","task":"help"}`), scripted.Text("worker done")),
		scripted.When(scripted.SystemContains("You are helper."), scripted.Text("helper done")),
	)
	e := subagent.New(subagent.Options{MaxDepth: 2, MaxConcurrent: 1})
	delegate := delegateTool(t, e, m)
	sp := spec(t, parent, m, delegate, writeTool(t))
	sp.Withhold = []string{"delegate"}
	run, budget := inRun(0)
	out, err := e.Run(run, sp)
	require.NoError(t, err, "one slot per parent: the worker waiting on its helper holds no slot the helper needs")
	assert.Equal(t, "worker done", out.Text)

	var workerTools, helperTools []string
	for _, c := range m.Calls() {
		var names []string
		for _, ts := range c.Request.Tools {
			names = append(names, ts.Name)
		}
		if c.Route == `when system prompt contains "You are worker."` {
			workerTools = names
		} else {
			helperTools = names
		}
	}
	assert.Equal(t, []string{"delegate", "write"}, workerTools)
	assert.Equal(t, []string{"write"}, helperTools, "at the depth limit the delegating tool is withheld")

	// The helper's usage counts in the worker's total, and the whole tree's
	// in the run.
	assert.Greater(t, out.Usage.Total.TotalTokens, out.Usage.Own.TotalTokens)
	assert.Equal(t, out.Usage.Total, budget.Spent())
}

func TestConcurrencyPerParentAndSpawnBudget(t *testing.T) {
	parent := newParent(t)
	var running, peak atomic.Int32
	// The calls wait until two of them run at once: the limit is reached
	// whatever the machine's speed (and a third never gets a slot).
	both := make(chan struct{})
	var once sync.Once
	m := scripted.New(scripted.Repeat(scripted.Func(func(ctx context.Context, _ *model.Request) (*model.Response, error) {
		n := running.Add(1)
		defer running.Add(-1)
		for {
			old := peak.Load()
			if n <= old || peak.CompareAndSwap(old, n) {
				break
			}
		}
		if n == 2 {
			once.Do(func() { close(both) })
		}
		select {
		case <-both:
		case <-time.After(time.Minute):
			return nil, errors.New("no second child ever ran beside this one")
		}
		return &model.Response{Message: model.AssistantMessage("done")}, nil
	})))
	e := subagent.New(subagent.Options{MaxConcurrent: 2, MaxSpawns: 6})
	var wg sync.WaitGroup
	errs := make([]error, 8)
	run, _ := inRun(0) // one delegating evaluation of one run
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = e.Run(run, spec(t, parent, m))
		}()
	}
	wg.Wait()
	assert.EqualValues(t, 2, peak.Load())
	var exhausted int
	for _, err := range errs {
		if err != nil {
			require.ErrorIs(t, err, subagent.ErrBudget)
			assert.EqualError(t, err, "Subagent budget exhausted (6)")
			exhausted++
		}
	}
	assert.Equal(t, 2, exhausted)
}

func TestWaitingForASlotHonoursTheContext(t *testing.T) {
	parent := newParent(t)
	release := make(chan struct{})
	m := scripted.New(scripted.Repeat(scripted.Func(func(ctx context.Context, _ *model.Request) (*model.Response, error) {
		<-release
		return &model.Response{Message: model.AssistantMessage("done")}, nil
	})))
	e := subagent.New(subagent.Options{MaxConcurrent: 1})
	done := make(chan error, 1)
	run, _ := inRun(0)
	go func() { _, err := e.Run(run, spec(t, parent, m)); done <- err }()
	require.Eventually(t, func() bool { return len(parent.ChildIDs()) == 1 }, 30*time.Second, time.Millisecond)
	c, cancel := context.WithTimeout(run, 20*time.Millisecond)
	defer cancel()
	_, err := e.Run(c, spec(t, parent, m))
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	close(release)
	require.NoError(t, <-done)
}

func TestTimeoutCancellationAndMaxTurns(t *testing.T) {
	hang := scripted.New(scripted.Repeat(scripted.Func(func(ctx context.Context, _ *model.Request) (*model.Response, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	})))
	t.Run("timeout", func(t *testing.T) {
		parent := newParent(t)
		before := sessiontest.Capture(parent)
		_, err := subagent.New(subagent.Options{Timeout: 30 * time.Millisecond}).Run(ctx, spec(t, parent, hang))
		require.ErrorIs(t, err, subagent.ErrTimeout)
		assert.EqualError(t, err, "Subagent task timed out after 30ms")
		assert.ErrorIs(t, err, context.DeadlineExceeded)
		sessiontest.AssertUnchanged(t, before, parent)
		assert.Empty(t, parent.ChildIDs())
	})
	t.Run("parent cancelled", func(t *testing.T) {
		parent := newParent(t)
		c, cancel := context.WithCancel(ctx)
		time.AfterFunc(20*time.Millisecond, cancel)
		start := time.Now()
		_, err := subagent.New(subagent.Options{}).Run(c, spec(t, parent, hang))
		require.ErrorIs(t, err, subagent.ErrRun)
		assert.ErrorIs(t, err, context.Canceled)
		assert.Less(t, time.Since(start), 2*time.Second)
	})
	t.Run("max turns", func(t *testing.T) {
		parent := newParent(t)
		loop := scripted.New(scripted.Repeat(scripted.Reply(&model.Response{Message: model.AssistantMessage("partial findings",
			model.ToolCall{ID: "c", Name: "write", Arguments: `{"text":"x"}`})})))
		sp := spec(t, parent, loop, writeTool(t))
		sp.Request.MaxTurns = 2
		out, err := subagent.New(subagent.Options{}).Run(ctx, sp)
		require.ErrorIs(t, err, subagent.ErrMaxTurns)
		assert.EqualError(t, err, "Subagent stopped after reaching max turns (2)")
		require.NotNil(t, out)
		assert.Equal(t, "partial findings", out.Text)
		assert.Zero(t, session.Len[Wrote](parent))
	})
}

func TestChildFailuresNeverCorruptTheParent(t *testing.T) {
	tests := map[string]struct {
		model   model.Model
		wantErr bool
	}{
		"model error":                        {scripted.New(scripted.Fail(model.ErrAuth)), true},
		"model panic":                        {scripted.New(scripted.Func(func(context.Context, *model.Request) (*model.Response, error) { panic("model bug") })), true},
		"tool crash is the child's business": {scripted.New(scripted.ToolCall("write", `{"text":"crash"}`), scripted.Text("recovered")), false},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			parent := newParent(t)
			before := sessiontest.Capture(parent)
			var child weak.Pointer[session.Session]
			sp := spec(t, parent, tt.model, writeTool(t))
			sp.Setup = func(c *session.Session) error { child = weak.Make(c); return nil }
			out, err := subagent.New(subagent.Options{}).Run(ctx, sp)
			if tt.wantErr {
				require.ErrorIs(t, err, subagent.ErrRun)
			} else {
				require.NoError(t, err)
				assert.Equal(t, "recovered", out.Text)
			}
			sessiontest.AssertUnchanged(t, before, parent)
			assert.Empty(t, parent.ChildIDs())
			runtime.GC()
			runtime.GC()
			assert.Nil(t, child.Value(), "the child was collected")
		})
	}
}

func TestInvalidSpec(t *testing.T) {
	_, err := subagent.New(subagent.Options{}).Run(ctx, subagent.Spec{})
	require.ErrorIs(t, err, subagent.ErrInvalidSpec)
	assert.Contains(t, err.Error(), "[Name Parent Prompt Model]")

	parent := newParent(t)
	require.NoError(t, parent.Close())
	_, err = subagent.New(subagent.Options{}).Run(ctx, spec(t, parent, scripted.New()))
	assert.ErrorIs(t, err, subagent.ErrParentClosed)
}

func TestLifecycleEventsReachObserversWithoutChangingState(t *testing.T) {
	parent := newParent(t)
	var started []subagent.Started
	var finished []subagent.Finished
	var envs []bus.Envelope
	_, _ = bus.Subscribe(parent.Bus(), "started", func(_ context.Context, env bus.Envelope, e subagent.Started) error {
		started, envs = append(started, e), append(envs, env)
		return nil
	})
	_, _ = bus.Subscribe(parent.Bus(), "finished", func(_ context.Context, env bus.Envelope, e subagent.Finished) error {
		finished = append(finished, e)
		return nil
	})
	m := scripted.New(scripted.ToolCall("write", `{"text":"x"}`), scripted.Text("done"))
	sp := spec(t, parent, m, writeTool(t))
	sp.Request.ModelName = "light" // the route; the model says its id
	out, err := subagent.New(subagent.Options{}).Run(ctx, sp)
	require.NoError(t, err)
	_, err = subagent.New(subagent.Options{}).Run(ctx, spec(t, parent, scripted.New(scripted.Fail(model.ErrAuth))))
	require.Error(t, err)

	require.Len(t, started, 2)
	require.Len(t, finished, 2)
	assert.Equal(t, subagent.Started{AgentID: out.AgentID, Name: "child/worker", SessionID: out.SessionID, ParentID: parent.ID(),
		Depth: 1, Mode: "forked", Model: "scripted", Route: "light"}, started[0])
	assert.Empty(t, envs[0].SessionID, "addressed to no session")
	assert.Equal(t, parent.ID(), envs[0].ParentSessionID)
	assert.Equal(t, out.Usage.Total, finished[0].Usage)
	assert.Equal(t, 1, finished[0].ToolCalls)
	assert.Empty(t, finished[0].Error)
	assert.Contains(t, finished[1].Error, "auth")
	assert.Zero(t, session.Len[subagent.Started](parent))
	assert.Zero(t, session.Len[subagent.Finished](parent))
}

// Nothing is written into a child before its setup runs: right after
// hydration it equals the parent's snapshot in every slice, also when the
// parent has messages pending — which the child does not deliver, and
// which stay pending for the parent.
func TestParityIsExactAndTheParentsPendingInboundStaysItsOwn(t *testing.T) {
	parent := newParent(t)
	require.NoError(t, parent.Dispatch(ctx, runner.Inbound{Text: "for the parent only"}))
	snap := parent.Snapshot()
	var parity bool
	sp := spec(t, parent, scripted.New(scripted.Text("done")))
	sp.Setup = func(child *session.Session) error {
		parity = sessiontest.AssertParity(t, snap, child)
		assert.Zero(t, child.Revision(), "not one write before setup")
		return nil
	}
	m := sp.Request.Model.(*scripted.Model)
	_, err := subagent.New(subagent.Options{}).Run(ctx, sp)
	require.NoError(t, err)
	assert.True(t, parity)
	for _, msg := range m.Calls()[0].Request.Messages {
		assert.NotEqual(t, "for the parent only", msg.Content)
	}
	read, _ := session.Latest[runner.InboundRead](parent)
	assert.Zero(t, read.Upto, "the parent's own cursor is untouched")
}

func TestOrient(t *testing.T) {
	p := childPrompt(t, "worker")
	o, err := subagent.Orient(p)
	require.NoError(t, err)
	assert.NotSame(t, p, o)
	again, err := subagent.Orient(o)
	require.NoError(t, err)
	assert.Same(t, o, again, "an oriented prompt is not oriented twice")
	r, err := o.Render()
	require.NoError(t, err)
	assert.Equal(t, 1, strings.Count(r.Text, "You are a subagent"))
	_, err = subagent.Orient(nil)
	assert.Error(t, err)
}

func TestATimedOutChildStillReportsWhatItSpent(t *testing.T) {
	parent := newParent(t)
	spent := model.Usage{InputTokens: 40, OutputTokens: 2, TotalTokens: 42}
	m := scripted.New(
		scripted.ToolCall("write", `{"text":"partial"}`).WithUsage(spent),
		scripted.Func(func(ctx context.Context, _ *model.Request) (*model.Response, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		}),
	)
	run, budget := inRun(0)
	// The first turn takes microseconds; the second waits for the
	// timeout. The timeout is long enough that the first turn is over
	// before it fires on any machine (the engine's timer is a real one).
	out, err := subagent.New(subagent.Options{Timeout: 3 * time.Second}).Run(run, spec(t, parent, m, writeTool(t)))
	require.ErrorIs(t, err, subagent.ErrTimeout)
	require.NotNil(t, out)
	assert.Equal(t, spent, out.Usage.Own)
	assert.Equal(t, map[string]int{"write": 1}, out.Usage.ToolCalls)
	assert.Equal(t, spent, budget.Spent(), "the run counts it")
}

// The engine says whether its depth limit was set, so that a front end
// with a default of its own (the Task tool's is 1) follows a limit the
// program chose and keeps its own otherwise.
func TestMaxDepthConfigured(t *testing.T) {
	for _, tt := range []struct {
		name       string
		opts       subagent.Options
		depth      int
		configured bool
	}{
		{"default", subagent.Options{}, subagent.DefaultMaxDepth, false},
		{"set", subagent.Options{MaxDepth: 2}, 2, true},
		{"set to the default", subagent.Options{MaxDepth: subagent.DefaultMaxDepth}, subagent.DefaultMaxDepth, true},
		{"below one falls back", subagent.Options{MaxDepth: 0}, subagent.DefaultMaxDepth, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := subagent.New(tt.opts)
			assert.Equal(t, tt.depth, e.MaxDepth())
			assert.Equal(t, tt.configured, e.MaxDepthConfigured())
		})
	}
}

// With KeepToolset, what ToolFilter and the depth limit would take away
// stays offered and is refused when called: the tool never runs, the model
// reads why and carries on.
func TestKeepToolsetRefusesInsteadOfHiding(t *testing.T) {
	tests := []struct {
		name   string
		filter tools.Filter
		depth  int // the engine's depth limit; the child is at depth 1
		call   string
		want   string
	}{
		{"outside the list", tools.Filter{Allow: []string{"write"}}, 3, "delegate",
			"Permission to use the tool 'delegate' was denied: the child/worker agent may not use it; it may use only write"},
		{"withheld at the depth limit", tools.Filter{}, 1, "delegate",
			"Permission to use the tool 'delegate' was denied: the child/worker agent may not use it; it may use only write"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parent := newParent(t)
			e := subagent.New(subagent.Options{MaxDepth: tt.depth})
			m := scripted.New(scripted.ToolCall(tt.call, `{"name":"x","task":"y"}`), scripted.Text("done"))
			sp := spec(t, parent, m, delegateTool(t, e, m), writeTool(t))
			sp.Withhold, sp.KeepToolset, sp.Request.ToolFilter = []string{"delegate"}, true, tt.filter
			out, err := e.Run(ctx, sp)
			require.NoError(t, err)
			assert.Equal(t, "done", out.Text)
			first := m.Calls()[0].Request
			assert.Equal(t, []string{"delegate", "write"}, toolNames(first), "nothing hidden")
			second := m.Calls()[1].Request.Messages
			assert.Equal(t, tt.want, second[len(second)-1].Content)
			assert.Len(t, m.Calls(), 2, "delegate never ran: it would have started a child on m")
		})
	}

	// A malformed filter fails the run before the child does anything.
	parent := newParent(t)
	sp := spec(t, parent, scripted.New(), writeTool(t))
	sp.KeepToolset, sp.Request.ToolFilter = true, tools.Filter{Allow: []string{"["}}
	_, err := subagent.New(subagent.Options{}).Run(ctx, sp)
	require.ErrorIs(t, err, subagent.ErrRun)
	assert.ErrorContains(t, err, "malformed")
}

func toolNames(req *model.Request) []string {
	var out []string
	for _, s := range req.Tools {
		out = append(out, s.Name)
	}
	return out
}

func TestStartedNamesTheDelegatingCallAndWhetherItRunsInTheBackground(t *testing.T) {
	defer goleak.VerifyNone(t)
	for _, tc := range []struct {
		name       string
		caller     *tools.Invocation
		background bool
		want       subagent.Started
	}{
		{"from a program's own code", nil, false, subagent.Started{}},
		{"from a tool call", &tools.Invocation{CallID: "call-7"}, false, subagent.Started{CallID: "call-7"}},
		{"in the background", &tools.Invocation{CallID: "call-8"}, true, subagent.Started{CallID: "call-8", Background: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			parent := newParent(t)
			got := make(chan subagent.Started, 1)
			stop, err := bus.Subscribe(parent.Bus(), "started", func(_ context.Context, _ bus.Envelope, e subagent.Started) error {
				got <- e
				return nil
			})
			require.NoError(t, err)
			defer stop()
			e := subagent.New(subagent.Options{})
			sp := spec(t, parent, scripted.New(scripted.Text("done")))
			sp.Caller = tc.caller
			if tc.background {
				task, err := e.Start(ctx, sp)
				require.NoError(t, err)
				wctx, cancel := context.WithTimeout(ctx, time.Minute)
				defer cancel()
				_, err = task.Wait(wctx)
				require.NoError(t, err)
			} else {
				_, err := e.Run(ctx, sp)
				require.NoError(t, err)
			}
			e2 := <-got
			assert.Equal(t, tc.want.CallID, e2.CallID)
			assert.Equal(t, tc.want.Background, e2.Background)
		})
	}
}
