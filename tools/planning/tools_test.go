package planning_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/tools"
	"github.com/offshoot-dev/offshoot/tools/planning"
)

func step(id, title, details string, status planning.StepStatus, notes ...string) planning.PlanStep {
	if notes == nil {
		notes = []string{}
	}
	return planning.PlanStep{StepID: id, Title: title, Details: details, Status: status, Notes: notes}
}

func TestSetupPlan(t *testing.T) {
	h := newHarness(t)
	out := h.call("planning_setup_plan", `{"objective": "  Ship the release  ", "initial_steps": [{"title": " Write notes ", "details": " in CHANGES.md "}, {"title": "Tag"}]}`)
	require.True(t, out.Success, out.Text)
	want := planning.Plan{Objective: "Ship the release", Status: planning.PlanActive, Steps: []planning.PlanStep{
		step("S001", "Write notes", "in CHANGES.md", planning.StepPending),
		step("S002", "Tag", "", planning.StepPending),
	}}
	assert.Equal(t, want, out.Value)
	assert.Equal(t, []any{planning.PlanSetUp{Objective: "Ship the release", Steps: []planning.StepDraft{{Title: "Write notes", Details: "in CHANGES.md"}, {Title: "Tag"}}}}, out.Events, "the event carries the trimmed text")
	assert.True(t, strings.HasPrefix(out.Text, "plan set up with 2 steps"), out.Text)

	// No steps is fine; a new plan replaces the old one and numbers from S001.
	assert.Equal(t, planning.Plan{Objective: "Other", Status: planning.PlanActive, Steps: []planning.PlanStep{}}, h.ok("planning_setup_plan", `{"objective": "Other"}`))
	assert.Equal(t, "S001", h.setup("Third", "one").Steps[0].StepID)
}

func TestTextLimits(t *testing.T) {
	long := func(n int) string { return strings.Repeat("x", n) }
	for _, tc := range []struct {
		name      string
		objective string
		title     string
		details   string
		want      string // "" accepts
	}{
		{"limits exactly", long(240), long(160), long(512), ""},
		{"limits after trimming", "  " + long(240) + "\n", "\t" + long(160) + " ", " " + long(512) + " ", ""},
		{"objective empty", "", "t", "", "objective: must not be empty once trimmed"},
		{"objective blank", "   ", "t", "", "objective: must not be empty once trimmed"},
		{"objective too long", long(241), "t", "", "objective: must be at most 240 characters once trimmed; shorten it (it has 241)"},
		{"objective not ASCII", "Ship the café", "t", "", "objective: must be ASCII"},
		{"title empty", "o", " ", "", "initial_steps[0].title: must not be empty once trimmed"},
		{"title too long", "o", long(161), "", "initial_steps[0].title: must be at most 160 characters once trimmed; shorten it (it has 161)"},
		{"title not ASCII", "o", "naïve", "", "initial_steps[0].title: must be ASCII"},
		{"details too long", "o", "t", long(513), "initial_steps[0].details: must be at most 512 characters once trimmed; shorten it (it has 513)"},
		{"details not ASCII", "o", "t", "“quoted”", "initial_steps[0].details: must be ASCII"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			args := jsonArgs(t, planning.SetupParams{Objective: tc.objective, InitialSteps: []planning.StepDraft{{Title: tc.title, Details: tc.details}}})
			if tc.want == "" {
				p := h.ok("planning_setup_plan", args)
				assert.Equal(t, strings.TrimSpace(tc.objective), p.Objective)
				assert.Equal(t, strings.TrimSpace(tc.title), p.Steps[0].Title)
				return
			}
			assert.Equal(t, "Tool validation failed: planning_setup_plan: "+tc.want, h.fail("planning_setup_plan", args))
		})
	}
	h := newHarness(t)
	h.setup("o", "t")
	for _, tc := range []struct{ tool, args, want string }{
		{"planning_mark_step", jsonArgs(t, planning.MarkStepParams{StepID: "S001", Status: planning.StepDone, Note: long(513)}),
			"planning_mark_step: note: must be at most 512 characters once trimmed; shorten it (it has 513)"},
		{"planning_mark_step", jsonArgs(t, planning.MarkStepParams{StepID: "S001", Status: planning.StepDone, Note: "déjà"}),
			"planning_mark_step: note: must be ASCII"},
		{"planning_update_step", `{"step_id": "S001", "title": ""}`,
			"planning_update_step: title: must not be empty once trimmed"},
		{"planning_update_step", `{"step_id": "S001", "details": "é"}`,
			"planning_update_step: details: must be ASCII"},
		{"planning_add_step", jsonArgs(t, planning.AddStepsParams{Steps: []planning.StepDraft{{Title: "ok"}, {Title: long(161)}}}),
			"planning_add_step: steps[1].title: must be at most 160 characters once trimmed; shorten it (it has 161)"},
		{"planning_add_step", jsonArgs(t, planning.AddStepsParams{Steps: []planning.StepDraft{{Title: "ok"}, {Title: "é"}}}),
			"planning_add_step: steps[1].title: must be ASCII"},
		{"planning_setup_plan", `{"objective": "", "initial_steps": [{"title": ""}]}`, // every problem is reported
			"planning_setup_plan: objective: must not be empty once trimmed; initial_steps[0].title: must not be empty once trimmed"},
		{"planning_setup_plan", `{"objective":"é"}`, "planning_setup_plan: objective: must be ASCII"},
	} {
		out := h.call(tc.tool, tc.args)
		assert.False(t, out.Success)
		assert.Equal(t, "Tool validation failed: "+tc.want, out.Text)
		var ve *tools.ValidationError
		assert.ErrorAs(t, out.Err, &ve, "a validation failure, not a plain failed result")
	}
	cur, _ := planning.CurrentPlan(h.s)
	assert.Len(t, cur.Steps, 1, "no refused change was applied")
}

func TestAddStep(t *testing.T) {
	h := newHarness(t)
	assert.Contains(t, h.fail("planning_add_step", `{"steps": [{"title": "x"}]}`), "there is no plan; set one up with planning_setup_plan")
	h.setup("Objective", "one", "two")
	out := h.call("planning_add_step", `{"steps": [{"title": "three"}, {"title": "four", "details": "d"}]}`)
	require.True(t, out.Success, out.Text)
	assert.Equal(t, "added S003, S004; 0 of 4 steps done", strings.SplitN(out.Text, "\n", 2)[0])
	p := out.Value.(planning.Plan)
	assert.Equal(t, []string{"S001", "S002", "S003", "S004"}, ids(p))
	assert.Equal(t, []any{planning.StepsAdded{Steps: []planning.StepDraft{{Title: "three"}, {Title: "four", Details: "d"}}}}, out.Events)

	assert.Contains(t, h.fail("planning_add_step", `{"steps": []}`), "Tool validation failed: planning_add_step: steps: must have at least 1 item")
	assert.Contains(t, h.fail("planning_add_step", `{}`), "Tool validation failed: planning_add_step: steps")

	for _, id := range ids(p) {
		h.ok("planning_mark_step", jsonArgs(t, planning.MarkStepParams{StepID: id, Status: planning.StepDone}))
	}
	assert.Contains(t, h.fail("planning_add_step", `{"steps": [{"title": "five"}]}`), "the plan is not active: it is completed, so you cannot add steps to it")
	h.ok("planning_clear_plan", `{}`)
	assert.Contains(t, h.fail("planning_add_step", `{"steps": [{"title": "five"}]}`), "it is abandoned")
}

// The next id is one more than the highest, even with gaps, so an id is
// never given twice within a plan.
func TestStepIDsAreNeverReused(t *testing.T) {
	p := planning.Plan{Objective: "o", Status: planning.PlanActive, Steps: []planning.PlanStep{
		step("S001", "a", "", planning.StepDone), step("S007", "b", "", planning.StepPending),
	}}
	next, err := planning.Apply(p, planning.StepsAdded{Steps: []planning.StepDraft{{Title: "c"}, {Title: "d"}}})
	require.NoError(t, err)
	assert.Equal(t, []string{"S001", "S007", "S008", "S009"}, ids(next))
	assert.Equal(t, []string{"S001", "S007"}, ids(p), "Apply leaves its input alone")

	full := planning.Plan{Objective: "o", Status: planning.PlanActive, Steps: []planning.PlanStep{step("S999", "last", "", planning.StepPending)}}
	_, err = planning.Apply(full, planning.StepsAdded{Steps: []planning.StepDraft{{Title: "one more"}}})
	assert.ErrorIs(t, err, planning.ErrTooManySteps)
}

func TestUpdateStep(t *testing.T) {
	h := newHarness(t)
	assert.Contains(t, h.fail("planning_update_step", `{"step_id": "S001", "title": "x"}`), "there is no plan")
	h.setup("Objective", "one", "two")
	p := h.ok("planning_update_step", `{"step_id": "S002", "title": " second "}`)
	assert.Equal(t, step("S002", "second", "", planning.StepPending), p.Steps[1])
	p = h.ok("planning_update_step", `{"step_id": "s2", "details": "more"}`)
	assert.Equal(t, step("S002", "second", "more", planning.StepPending), p.Steps[1], "s2 is read as S002")
	p = h.ok("planning_update_step", `{"step_id": "1", "title": "first", "details": "both"}`)
	assert.Equal(t, step("S001", "first", "both", planning.StepPending), p.Steps[0])
	p = h.ok("planning_update_step", `{"step_id": "S001", "details": ""}`)
	assert.Equal(t, "", p.Steps[0].Details, "details may be cleared")

	out := h.call("planning_update_step", `{"step_id": "s2", "title": "2nd"}`)
	title := "2nd"
	assert.Equal(t, []any{planning.StepUpdated{StepID: "S002", Title: &title}}, out.Events, "the event has the canonical id")

	assert.Contains(t, h.fail("planning_update_step", `{"step_id": "S002"}`), "nothing to change: give a new title, new details or both")
	assert.Contains(t, h.fail("planning_update_step", `{"step_id": "S003", "title": "x"}`), `no such step: cannot update "S003"; the steps are S001, S002`)
	assert.Contains(t, h.fail("planning_update_step", `{"step_id": "step one", "title": "x"}`), "no such step")
}

func TestMarkStep(t *testing.T) {
	h := newHarness(t)
	assert.Contains(t, h.fail("planning_mark_step", `{"step_id": "S001", "status": "done"}`), "there is no plan")
	h.setup("Objective", "one", "two")

	p := h.ok("planning_mark_step", `{"step_id": "S001", "status": "in_progress", "note": " started "}`)
	assert.Equal(t, step("S001", "one", "", planning.StepInProgress, "started"), p.Steps[0])
	p = h.ok("planning_mark_step", `{"step_id": "S001", "status": "blocked", "note": "waiting"}`)
	assert.Equal(t, step("S001", "one", "", planning.StepBlocked, "started", "waiting"), p.Steps[0], "notes are appended")
	p = h.ok("planning_mark_step", `{"step_id": "S001", "status": "done"}`)
	assert.Equal(t, []string{"started", "waiting"}, p.Steps[0].Notes, "no note, nothing appended")
	assert.Equal(t, planning.PlanActive, p.Status)

	out := h.call("planning_mark_step", `{"step_id": "S002", "status": "done", "note": "finished"}`)
	require.True(t, out.Success)
	assert.Equal(t, "marked S002 done; 2 of 2 steps done; the plan is completed", strings.SplitN(out.Text, "\n", 2)[0])
	assert.Equal(t, planning.PlanCompleted, out.Value.(planning.Plan).Status, "all steps done completes the plan")

	p = h.ok("planning_mark_step", `{"step_id": "S002", "status": "in_progress", "note": "reopened"}`)
	assert.Equal(t, planning.PlanActive, p.Status, "a step not done reopens a completed plan")

	assert.Contains(t, h.fail("planning_mark_step", `{"step_id": "S002", "status": "finished"}`), "Tool validation failed: planning_mark_step: status: must be one of: pending in_progress blocked done")
	assert.Contains(t, h.fail("planning_mark_step", `{"step_id": "S002"}`), "status: is required")
	assert.Contains(t, h.fail("planning_mark_step", `{"step_id": "S009", "status": "done"}`), `no such step: cannot mark "S009"`)

	h.ok("planning_clear_plan", `{}`)
	assert.Contains(t, h.fail("planning_mark_step", `{"step_id": "S001", "status": "done"}`), "it was abandoned, so its steps cannot be marked")
}

func TestClearPlan(t *testing.T) {
	h := newHarness(t)
	assert.Contains(t, h.fail("planning_clear_plan", `{}`), "there is no plan")
	h.setup("Objective", "one")
	p := h.ok("planning_clear_plan", `{}`)
	assert.Equal(t, planning.Plan{Objective: "Objective", Status: planning.PlanAbandoned, Steps: []planning.PlanStep{}}, p)
	assert.Contains(t, h.fail("planning_clear_plan", `{}`), "the plan is not active: it is already abandoned")
	assert.Equal(t, "S001", h.setup("Again", "fresh").Steps[0].StepID, "a new plan after an abandoned one")
}

func TestReadPlan(t *testing.T) {
	h := newHarness(t)
	assert.Equal(t, "there is no plan; set one up with planning_setup_plan", h.fail("planning_read_plan", `{}`))
	want := h.setup("Objective", "one", "two")
	out := h.call("planning_read_plan", `{}`)
	require.True(t, out.Success)
	assert.Equal(t, want, out.Value)
	assert.Empty(t, out.Events)
	assert.Equal(t, `plan (active): 0 of 2 steps done`+"\n\n"+
		`{"objective":"Objective","status":"active","steps":[{"step_id":"S001","title":"one","details":"","status":"pending","notes":[]},{"step_id":"S002","title":"two","details":"","status":"pending","notes":[]}]}`, out.Text)
	h.ok("planning_clear_plan", `{}`)
	assert.Equal(t, planning.PlanAbandoned, h.ok("planning_read_plan", `{}`).Status, "an abandoned plan is still read")
}

func TestPlanReaders(t *testing.T) {
	p := planning.Plan{Objective: "Ship", Status: planning.PlanActive, Steps: []planning.PlanStep{
		step("S001", "Write notes", "", planning.StepDone), step("S002", "Tag", "", planning.StepPending),
	}}
	s, found := p.Step("s2")
	assert.True(t, found)
	assert.Equal(t, "Tag", s.Title)
	_, found = p.Step("S003")
	assert.False(t, found)
	_, found = p.Step("x")
	assert.False(t, found)
	assert.Equal(t, 1, p.Done())
	assert.Equal(t, "Plan (active): Ship (1 of 2 steps done)\nS001 [done] Write notes\nS002 [pending] Tag", p.String())
	assert.Equal(t, "No plan.", planning.Plan{}.String())
	for in, want := range map[string]string{"S001": "S001", "s7": "S007", "42": "S042", " S999 ": "S999"} {
		got, ok := planning.NormalizeStepID(in)
		assert.True(t, ok, in)
		assert.Equal(t, want, got)
	}
	for _, bad := range []string{"", "S", "S0", "S1000", "T001", "S-1", "S1a"} {
		_, ok := planning.NormalizeStepID(bad)
		assert.False(t, ok, bad)
	}
}

func ids(p planning.Plan) []string {
	out := make([]string, len(p.Steps))
	for i, s := range p.Steps {
		out[i] = s.StepID
	}
	return out
}
