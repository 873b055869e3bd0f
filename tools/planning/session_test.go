package planning_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/serde"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/sessiontest"
	"github.com/offshoot-dev/offshoot/tools/planning"
)

func TestForkedChildLeavesParentPlanUnchanged(t *testing.T) {
	h := newHarness(t)
	h.setup("Objective", "one", "two")
	before := sessiontest.Capture(h.s)
	child, err := h.s.Fork()
	require.NoError(t, err)
	defer child.Close()
	sessiontest.AssertParity(t, before.Snapshot(), child)

	callOn(t, h.set, child, "planning_mark_step", `{"step_id": "S001", "status": "done", "note": "child"}`)
	callOn(t, h.set, child, "planning_add_step", `{"steps": [{"title": "three"}]}`)
	sessiontest.AssertUnchanged(t, before, h.s)

	mine, _ := planning.CurrentPlan(child)
	assert.Len(t, mine.Steps, 3)
	parent, _ := planning.CurrentPlan(h.s)
	assert.Len(t, parent.Steps, 2)
	assert.Equal(t, planning.StepPending, parent.Steps[0].Status)
	assert.Empty(t, parent.Steps[0].Notes)
}

func TestRollbackRestoresThePlan(t *testing.T) {
	h := newHarness(t)
	want := h.setup("Objective", "one")
	snap := h.s.Snapshot()
	h.ok("planning_mark_step", `{"step_id": "S001", "status": "done", "note": "n"}`)
	h.ok("planning_clear_plan", `{}`)
	require.NoError(t, h.s.Rollback(snap))
	got, found := planning.CurrentPlan(h.s)
	require.True(t, found)
	assert.Equal(t, want, got)
	inSnap, found := planning.PlanOf(snap)
	require.True(t, found)
	assert.Equal(t, want, inSnap)

	require.NoError(t, h.s.Rollback(session.Snapshot{}))
	_, found = planning.CurrentPlan(h.s)
	assert.False(t, found, "rolling back to before the plan removes it")
}

func TestSameToolsOnTwoSessions(t *testing.T) {
	h := newHarness(t)
	other, err := session.New()
	require.NoError(t, err)
	defer other.Close()
	require.NoError(t, h.set.Install(context.Background(), other))
	h.setup("First", "a")
	callOn(t, h.set, other, "planning_setup_plan", `{"objective": "Second"}`)
	p1, _ := planning.CurrentPlan(h.s)
	p2, _ := planning.CurrentPlan(other)
	assert.Equal(t, "First", p1.Objective)
	assert.Equal(t, "Second", p2.Objective)
	assert.Equal(t, 1, session.Len[planning.Plan](h.s), "a session holds at most one plan")
}

func TestToolsNeedASessionWithTheReducers(t *testing.T) {
	set, err := planning.Tools()
	require.NoError(t, err)
	setup, _ := set.Lookup("planning_setup_plan")
	out := setup.Call(context.Background(), nil, []byte(`{"objective": "x"}`))
	assert.Contains(t, out.Text, "Tool 'planning_setup_plan' execution failed: the call has no session")

	bare, err := session.New()
	require.NoError(t, err)
	defer bare.Close()
	out = callOn(t, set, bare, "planning_setup_plan", `{"objective": "x"}`)
	assert.Contains(t, out.Text, "the planning tools are not installed on session")
}

func TestSnapshotJSONRoundTrip(t *testing.T) {
	h := newHarness(t)
	h.setup("Objective", "one", "two")
	h.ok("planning_mark_step", `{"step_id": "S002", "status": "blocked", "note": "waiting on review"}`)
	back := sessiontest.RoundTrip(t, h.s, h.s.Registry())
	got, found := planning.PlanOf(back)
	require.True(t, found)
	want, _ := planning.CurrentPlan(h.s)
	assert.Equal(t, want, got)
}

// Events dispatched directly are checked by the reducers as the tools
// check them.
func TestDispatchEventsDirectly(t *testing.T) {
	s, err := session.New()
	require.NoError(t, err)
	defer s.Close()
	require.NoError(t, s.Install(context.Background(), planning.Reducers()))
	ctx := context.Background()
	require.NoError(t, s.Dispatch(ctx,
		planning.PlanSetUp{Objective: "Direct", Steps: []planning.StepDraft{{Title: "one"}}},
		planning.StepsAdded{Steps: []planning.StepDraft{{Title: "two"}}},
		planning.StepMarked{StepID: "S001", Status: planning.StepDone},
	))
	p, _ := planning.CurrentPlan(s)
	assert.Equal(t, []string{"S001", "S002"}, ids(p))
	assert.Equal(t, 1, p.Done())

	for _, tc := range []struct {
		name  string
		event any
		want  error
	}{
		{"unknown step", planning.StepMarked{StepID: "S003", Status: planning.StepDone}, planning.ErrUnknownStep},
		{"bad status", planning.StepMarked{StepID: "S001", Status: "finished"}, nil},
		{"no change", planning.StepUpdated{StepID: "S001"}, planning.ErrNothingToDo},
		{"no steps to add", planning.StepsAdded{}, planning.ErrNothingToDo},
		{"bad text", planning.PlanSetUp{Objective: ""}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := sessiontest.Capture(s)
			err := s.Dispatch(ctx, tc.event)
			var re *session.ReducerError
			require.True(t, errors.As(err, &re), "got %v", err)
			if tc.want != nil {
				assert.ErrorIs(t, err, tc.want)
			}
			sessiontest.AssertUnchanged(t, before, s)
		})
	}
	var ve *serde.ValidationError
	assert.True(t, errors.As(s.Dispatch(ctx, planning.PlanSetUp{Objective: " "}), &ve), "text problems are validation errors")
	assert.Equal(t, "objective", ve.Path)
}

// MarkStepEvent is how other code (the subagent engine) marks a step: it
// checks the event against the plan and returns it ready to dispatch.
func TestMarkStepEvent(t *testing.T) {
	h := newHarness(t)
	plan := h.setup("Objective", "one")
	ev, err := planning.MarkStepEvent(plan, "s1", planning.StepDone, "  done by a subagent ")
	require.NoError(t, err)
	assert.Equal(t, planning.StepMarked{StepID: "S001", Status: planning.StepDone, Note: "done by a subagent"}, ev)
	require.NoError(t, h.s.Dispatch(context.Background(), ev))
	p, _ := planning.CurrentPlan(h.s)
	assert.Equal(t, planning.PlanCompleted, p.Status)
	assert.Equal(t, []string{"done by a subagent"}, p.Steps[0].Notes)

	_, err = planning.MarkStepEvent(plan, "S002", planning.StepDone, "")
	assert.ErrorIs(t, err, planning.ErrUnknownStep)
	_, err = planning.MarkStepEvent(planning.Plan{}, "S001", planning.StepDone, "")
	assert.ErrorIs(t, err, planning.ErrNoPlan)
	_, err = planning.MarkStepEvent(plan, "S001", "skipped", "")
	assert.ErrorContains(t, err, `status "skipped" is not a step status`)
}

func TestApplyRejectsOtherValues(t *testing.T) {
	_, err := planning.Apply(planning.Plan{}, "not an event")
	assert.ErrorContains(t, err, "Apply got a string")
	_, err = planning.Apply(planning.Plan{}, &planning.PlanCleared{})
	assert.Error(t, err, "pointers are not events")
}
