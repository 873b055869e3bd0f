package planning_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/tools"
	"github.com/offshoot-dev/offshoot/tools/planning"
)

// The tools keep no state: each call checks the change against the
// session's plan and returns an event that the session's reducers apply.
func Example() {
	set, err := planning.Tools()
	if err != nil {
		fmt.Println(err)
		return
	}
	s, _ := session.New()
	defer s.Close()
	_ = set.Install(context.Background(), s) // the runner does this before the first model call
	ctx := context.Background()
	for _, call := range []struct{ tool, args string }{
		{"planning_setup_plan", `{"objective": "Ship the release", "initial_steps": [{"title": "Write the notes"}, {"title": "Tag v1.2"}]}`},
		{"planning_mark_step", `{"step_id": "S001", "status": "done", "note": "CHANGES.md updated"}`},
		{"planning_add_step", `{"steps": [{"title": "Announce it"}]}`},
		{"planning_mark_step", `{"step_id": "S004", "status": "done"}`},
	} {
		tool, _ := set.Lookup(call.tool)
		out := tool.Call(ctx, &tools.Invocation{Session: s, Bus: s.Bus()}, json.RawMessage(call.args))
		_ = s.Dispatch(ctx, out.Events...) // the runner does this too
		first, _, _ := strings.Cut(out.Text, "\n")
		fmt.Printf("%s %v: %s\n", call.tool, out.Success, first)
	}
	plan, _ := planning.CurrentPlan(s)
	fmt.Println(plan)
	// Output:
	// planning_setup_plan true: plan set up with 2 steps; add more with planning_add_step and mark progress with planning_mark_step
	// planning_mark_step true: marked S001 done; 1 of 2 steps done
	// planning_add_step true: added S003; 1 of 3 steps done
	// planning_mark_step false: no such step: cannot mark "S004"; the steps are S001, S002, S003
	// Plan (active): Ship the release (1 of 3 steps done)
	// S001 [done] Write the notes
	// S002 [pending] Tag v1.2
	// S003 [pending] Announce it
}

// Other code marks a step by returning or dispatching a StepMarked event;
// MarkStepEvent checks it against the plan first, as the reducer will.
func ExampleMarkStepEvent() {
	s, _ := session.New()
	defer s.Close()
	_ = s.Install(context.Background(), planning.Reducers())
	ctx := context.Background()
	_ = s.Dispatch(ctx, planning.PlanSetUp{Objective: "Investigate the bug", Steps: []planning.StepDraft{{Title: "Reproduce it"}}})

	plan, _ := planning.CurrentPlan(s)
	ev, err := planning.MarkStepEvent(plan, "S001", planning.StepDone, "reproduced by a subagent")
	if err != nil {
		fmt.Println(err)
		return
	}
	_ = s.Dispatch(ctx, ev)
	plan, _ = planning.CurrentPlan(s)
	fmt.Println(plan.Status, plan.Steps[0].Notes)

	_, err = planning.MarkStepEvent(plan, "S002", planning.StepDone, "")
	fmt.Println(err)
	// Output:
	// completed [reproduced by a subagent]
	// no such step: cannot mark "S002"; the steps are S001
}

// The section brings the tools and a short guide, and holds no session.
func ExampleSection() {
	p, err := prompt.New("agents", "worker", planning.Section(planning.Options{}))
	if err != nil {
		fmt.Println(err)
		return
	}
	r, _ := p.Render()
	fmt.Println(r.Text)
	fmt.Println(r.Tools.Names())
	// Output:
	// ## 1. Planning
	//
	// Use the planning tools for work of several steps; skip them for a single quick step.
	//
	// - Start with planning_setup_plan: an objective and the first steps, which get ids S001, S002, ...
	// - Mark a step in_progress with planning_mark_step before working on it, then done (with a short note), or blocked with a note saying why.
	// - Add steps you discover with planning_add_step; fix a step's title or details with planning_update_step.
	// - The plan completes itself when every step is done. Read it at any time with planning_read_plan; abandon it with planning_clear_plan.
	// - Write plain ASCII: an objective of up to 240 characters, titles up to 160, details and notes up to 512.
	// [planning_setup_plan planning_add_step planning_update_step planning_mark_step planning_clear_plan planning_read_plan]
}
