package planning

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/offshoot-dev/offshoot/serde"
	"github.com/offshoot-dev/offshoot/tools"
)

// setupParams are the arguments of planning_setup_plan.
type setupParams struct {
	// Objective says what the plan achieves.
	Objective string `json:"objective" jsonschema:"what the plan achieves, 1 to 240 ASCII characters"`
	// InitialSteps are the plan's first steps.
	InitialSteps []StepDraft `json:"initial_steps,omitempty" jsonschema:"the first steps, in order"`
}

// addStepsParams are the arguments of planning_add_step.
type addStepsParams struct {
	// Steps are the steps to append.
	Steps []StepDraft `json:"steps" validate:"required,min=1" jsonschema:"the steps to append, in order"`
}

// updateStepParams are the arguments of planning_update_step.
type updateStepParams struct {
	// StepID is the step to change.
	StepID string `json:"step_id" jsonschema:"the step to change, such as S002"`
	// Title, when set, is the new title.
	Title *string `json:"title,omitempty" jsonschema:"the new title, 1 to 160 ASCII characters"`
	// Details, when set, are the new details.
	Details *string `json:"details,omitempty" jsonschema:"the new details, at most 512 ASCII characters"`
}

// markStepParams are the arguments of planning_mark_step.
type markStepParams struct {
	// StepID is the step to mark.
	StepID string `json:"step_id" jsonschema:"the step to mark, such as S002"`
	// Status is the step's new status.
	Status StepStatus `json:"status" validate:"required,oneof=pending in_progress blocked done" jsonschema:"the step's new status"`
	// Note, when set, is appended to the step's notes.
	Note string `json:"note,omitempty" jsonschema:"a note to append to the step, at most 512 ASCII characters"`
}

// clearPlanParams are the (no) arguments of planning_clear_plan.
type clearPlanParams struct{}

// readPlanParams are the (no) arguments of planning_read_plan.
type readPlanParams struct{}

// Tools returns the six planning tools — planning_setup_plan,
// planning_add_step, planning_update_step, planning_mark_step,
// planning_clear_plan, planning_read_plan — in that order. Each call reads
// the plan of its invocation's session, checks the change with apply, and
// returns the new plan with the event for the session's reducers to apply;
// each tool declares those reducers (Reducers), which the runner installs.
func Tools() (tools.Toolset, error) {
	install, state := tools.WithReducers(Reducers()), tools.WithState(planState{})
	var b toolList
	b.add(tools.New("planning_setup_plan",
		"Set up the plan for a multi-step task: an objective and the first steps (ids S001, S002, ...). It replaces any earlier plan.",
		change(func(p setupParams) any { return PlanSetUp{Objective: p.Objective, Steps: p.InitialSteps} }), install, state))
	b.add(tools.New("planning_add_step",
		"Append steps to the active plan; they get the next ids.",
		change(func(p addStepsParams) any { return stepsAdded(p) }), install, state))
	b.add(tools.New("planning_update_step",
		"Change the title or details of a step of the plan.",
		change(func(p updateStepParams) any { return stepUpdated(p) }), install, state))
	b.add(tools.New("planning_mark_step",
		"Set a step's status (pending, in_progress, blocked or done), with an optional note. When every step is done the plan is completed.",
		change(func(p markStepParams) any { return StepMarked(p) }), install, state))
	b.add(tools.New("planning_clear_plan",
		"Abandon the plan and drop its steps.",
		change(func(clearPlanParams) any { return planCleared{} }), install, state))
	b.add(tools.New("planning_read_plan",
		"Read the plan: objective, status and every step with its status and notes.",
		readPlan, tools.ConcurrentSafe(), install, state))
	if err := errors.Join(b.errs...); err != nil {
		return tools.Toolset{}, err
	}
	return tools.NewToolset(b.list...)
}

// toolList gathers tools.New results.
type toolList struct {
	list []tools.Tool
	errs []error
}

func (b *toolList) add(t tools.Tool, err error) {
	if err != nil {
		b.errs = append(b.errs, err)
		return
	}
	b.list = append(b.list, t)
}

// change returns the handler of a tool that changes the plan: build the
// event from the params, apply it to the current plan, and return the new
// plan with the event (its text trimmed as the plan holds it).
func change[P any](event func(P) any) tools.Handler[P, Plan] {
	return func(_ context.Context, inv *tools.Invocation, p P) (tools.Result[Plan], error) {
		if inv.Session == nil {
			return tools.Result[Plan]{}, errNoSession
		}
		if !inv.Session.Installed(installKey) {
			return tools.Result[Plan]{}, fmt.Errorf("the planning tools are not installed on session %s; install the toolset on the session (tools.Toolset.Install) before calling them", inv.Session.ID())
		}
		cur, _ := CurrentPlan(inv.Session)
		ev := event(p)
		next, err := apply(cur, ev)
		if err != nil {
			if isTextError(err) {
				// Text the plan cannot hold is the arguments' fault:
				// the call fails as invalid arguments, naming the field.
				return tools.Result[Plan]{}, &tools.ValidationError{Err: err}
			}
			return tools.Failed[Plan](words(err)), nil
		}
		ev = canonical(ev, cur, next)
		return tools.OK(summary(ev, cur, next), next).WithEvents(ev), nil
	}
}

// canonical returns ev with the trimmed text and canonical ids the new
// plan holds, so the session's events read as the plan does.
func canonical(ev any, cur, next Plan) any {
	switch e := ev.(type) {
	case PlanSetUp:
		return PlanSetUp{Objective: next.Objective, Steps: drafts(next.Steps)}
	case stepsAdded:
		return stepsAdded{Steps: drafts(next.Steps[len(cur.Steps):])}
	case stepUpdated:
		s := next.Steps[next.index(e.StepID)]
		out := stepUpdated{StepID: s.StepID}
		if e.Title != nil {
			out.Title = &s.Title
		}
		if e.Details != nil {
			out.Details = &s.Details
		}
		return out
	case StepMarked:
		e.StepID, _ = normalizeStepID(e.StepID)
		e.Note = strings.TrimSpace(e.Note)
		return e
	}
	return ev
}

func drafts(steps []PlanStep) []StepDraft {
	out := make([]StepDraft, len(steps))
	for i, s := range steps {
		out[i] = StepDraft{Title: s.Title, Details: s.Details}
	}
	return out
}

// summary is the message of a successful change.
func summary(ev any, cur, next Plan) string {
	progress := fmt.Sprintf("%d of %d %s done", next.Done(), len(next.Steps), plural(len(next.Steps), "step", "steps"))
	switch e := ev.(type) {
	case PlanSetUp:
		return fmt.Sprintf("plan set up with %d %s; add more with planning_add_step and mark progress with planning_mark_step", len(next.Steps), plural(len(next.Steps), "step", "steps"))
	case stepsAdded:
		ids := make([]string, 0, len(e.Steps))
		for _, s := range next.Steps[len(cur.Steps):] {
			ids = append(ids, s.StepID)
		}
		return "added " + strings.Join(ids, ", ") + "; " + progress
	case stepUpdated:
		return "updated " + e.StepID
	case StepMarked:
		msg := fmt.Sprintf("marked %s %s; %s", e.StepID, e.Status, progress)
		if next.Status == PlanCompleted {
			msg += "; the plan is completed"
		}
		return msg
	case planCleared:
		return "plan abandoned and its steps dropped"
	}
	return "plan changed"
}

func readPlan(_ context.Context, inv *tools.Invocation, _ readPlanParams) (tools.Result[Plan], error) {
	if inv.Session == nil {
		return tools.Result[Plan]{}, errNoSession
	}
	p, ok := CurrentPlan(inv.Session)
	if !ok {
		return tools.Failed[Plan](errNoPlan.Error()), nil
	}
	return tools.OK(fmt.Sprintf("plan (%s): %d of %d %s done", p.Status, p.Done(), len(p.Steps), plural(len(p.Steps), "step", "steps")), p), nil
}

var errNoSession = errors.New("the call has no session; the planning tools read and change the plan of the session in their invocation")

// isTextError reports whether err is apply's refusal of the event's text:
// *serde.ValidationError values only, alone or joined, whose paths are
// those of the tools' fields.
func isTextError(err error) bool {
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range joined.Unwrap() {
			if !isTextError(e) {
				return false
			}
		}
		return true
	}
	_, ok := err.(*serde.ValidationError)
	return ok
}

// words renders err on one line for the model: joined errors separated by
// "; ".
func words(err error) string {
	return strings.ReplaceAll(err.Error(), "\n", "; ")
}
