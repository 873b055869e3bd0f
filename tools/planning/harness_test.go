package planning_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/tools"
	"github.com/offshoot-dev/offshoot/tools/planning"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// harness runs the planning tools the way the runner does: install the
// toolset on the session, call a tool through the type-erased Tool.Call
// with raw JSON arguments, and dispatch the outcome's events.
type harness struct {
	t   testing.TB
	s   *session.Session
	set tools.Toolset
}

func newHarness(t testing.TB) *harness {
	t.Helper()
	set, err := planning.Tools()
	require.NoError(t, err)
	s, err := session.New()
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	require.NoError(t, set.Install(context.Background(), s))
	return &harness{t: t, s: s, set: set}
}

func (h *harness) call(name, args string) tools.Outcome {
	h.t.Helper()
	return callOn(h.t, h.set, h.s, name, args)
}

// callOn runs the tool name of set with JSON args against s and dispatches
// its events there.
func callOn(t testing.TB, set tools.Toolset, s *session.Session, name, args string) tools.Outcome {
	t.Helper()
	tool, ok := set.Lookup(name)
	require.True(t, ok, "no tool %q", name)
	out := tool.Call(context.Background(), &tools.Invocation{Session: s, Bus: s.Bus()}, json.RawMessage(args))
	if len(out.Events) > 0 {
		require.NoError(t, s.Dispatch(context.Background(), out.Events...), "dispatching the events of %s %s", name, args)
	}
	return out
}

// ok runs a call that must succeed and returns the plan it returned,
// checking that it is the session's plan now.
func (h *harness) ok(name, args string) planning.Plan {
	h.t.Helper()
	out := h.call(name, args)
	require.True(h.t, out.Success, "%s %s failed: %s", name, args, out.Text)
	p, isPlan := out.Value.(planning.Plan)
	require.True(h.t, isPlan, "%s returned a %T", name, out.Value)
	cur, found := planning.CurrentPlan(h.s)
	require.True(h.t, found)
	require.Equal(h.t, cur, p, "the result is the session's plan")
	return p
}

// fail runs a call that must fail, leaving the plan as it was, and returns
// its text.
func (h *harness) fail(name, args string) string {
	h.t.Helper()
	before := h.s.Snapshot()
	out := h.call(name, args)
	require.False(h.t, out.Success, "%s %s succeeded: %s", name, args, out.Text)
	require.Empty(h.t, out.Events)
	require.Equal(h.t, before.Revision(), h.s.Revision(), "a failed call changed the session")
	return out.Text
}

// jsonArgs encodes v as tool arguments.
func jsonArgs(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

// setup sets up a plan with steps titled titles.
func (h *harness) setup(objective string, titles ...string) planning.Plan {
	h.t.Helper()
	steps := make([]planning.StepDraft, len(titles))
	for i, title := range titles {
		steps[i] = planning.StepDraft{Title: title}
	}
	return h.ok("planning_setup_plan", jsonArgs(h.t, planning.SetupParams{Objective: objective, InitialSteps: steps}))
}
