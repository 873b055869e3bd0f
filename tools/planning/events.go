package planning

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// PlanSetUp sets up a new active plan, replacing the session's plan if it
// has one (a session holds at most one). Its steps get ids from S001.
type PlanSetUp struct {
	// Objective says what the plan is for.
	Objective string `json:"objective"`
	// Steps are the plan's first steps; there may be none.
	Steps []StepDraft `json:"steps"`
}

// stepsAdded adds steps to the active plan. Each gets the next id: one
// more than the highest id of the plan, so ids are never reused.
type stepsAdded struct {
	// Steps are the steps to add; at least one.
	Steps []StepDraft `json:"steps"`
}

// stepUpdated changes a step's title, details or both; nil leaves a field
// as it is.
type stepUpdated struct {
	// StepID is the step's id, such as "S002".
	StepID string `json:"step_id"`
	// Title is the new title, or nil.
	Title *string `json:"title,omitempty"`
	// Details are the new details, or nil.
	Details *string `json:"details,omitempty"`
}

// StepMarked sets a step's status and appends a note to it. When every
// step is then done the plan is completed; marking a step of a completed
// plan as not done makes the plan active again. An abandoned plan cannot
// be marked. The subagent engine dispatches it for plan-step subagents;
// build one with MarkStepEvent.
type StepMarked struct {
	// StepID is the step's id, such as "S002".
	StepID string `json:"step_id"`
	// Status is the step's new status.
	Status StepStatus `json:"status"`
	// Note, when not empty, is appended to the step's notes.
	Note string `json:"note,omitempty"`
}

// planCleared abandons the plan: its status becomes abandoned and its steps
// are dropped. Clearing an abandoned plan, or no plan, is an error.
type planCleared struct{}

// Errors of apply (and so of the tools and of MarkStepEvent). Their texts
// are what the model reads. Invalid text is reported as
// *serde.ValidationError instead.
var (
	// errNoPlan: the session has no plan.
	errNoPlan = errors.New("there is no plan; set one up with planning_setup_plan")
	// errNotActive: the plan is completed or abandoned, and the change
	// needs an active plan.
	errNotActive = errors.New("the plan is not active")
	// errUnknownStep: no step has the id.
	errUnknownStep = errors.New("no such step")
	// errTooManySteps: the plan would have more than 999 steps.
	errTooManySteps = errors.New("too many steps")
	// errNothingToDo: the change would change nothing it names.
	errNothingToDo = errors.New("nothing to change")
)

// apply returns the plan after event — a PlanSetUp, stepsAdded,
// stepUpdated, StepMarked or planCleared — or why event cannot apply to p.
// The zero Plan is "no plan". apply is what the session's reducers run,
// so code that wants to know whether an event would be accepted before
// returning it from a tool calls apply with the current plan. p is not
// changed. Text is trimmed and checked (see the Max constants); step ids
// are read as normalizeStepID reads them.
func apply(p Plan, event any) (Plan, error) {
	switch e := event.(type) {
	case PlanSetUp:
		return setUp(e)
	case stepsAdded:
		return p.add(e)
	case stepUpdated:
		return p.update(e)
	case StepMarked:
		return p.mark(e)
	case planCleared:
		return p.clear()
	}
	return p, fmt.Errorf("planning: Apply got a %T; want PlanSetUp, StepsAdded, StepUpdated, StepMarked or PlanCleared", event)
}

func setUp(e PlanSetUp) (Plan, error) {
	objective, err := cleanText("objective", e.Objective, 1, maxObjective)
	drafts, derr := cleanDrafts("initial_steps", e.Steps)
	if err := errors.Join(err, derr); err != nil {
		return Plan{}, err
	}
	if len(drafts) > maxSteps {
		return Plan{}, fmt.Errorf("%w: a plan has at most %d steps", errTooManySteps, maxSteps)
	}
	p := Plan{Objective: objective, Status: PlanActive}
	return p.withSteps(drafts), nil
}

func (p Plan) add(e stepsAdded) (Plan, error) {
	if err := p.needActive("add steps to"); err != nil {
		return p, err
	}
	if len(e.Steps) == 0 {
		return p, fmt.Errorf("%w: give at least one step to add", errNothingToDo)
	}
	drafts, err := cleanDrafts("steps", e.Steps)
	if err != nil {
		return p, err
	}
	if p.highest()+len(drafts) > maxSteps {
		return p, fmt.Errorf("%w: the plan would reach %d steps; a plan has at most %d (ids S001 to S999)", errTooManySteps, p.highest()+len(drafts), maxSteps)
	}
	return p.withSteps(drafts), nil
}

// withSteps returns p with drafts appended as pending steps, numbered on
// from the highest id.
func (p Plan) withSteps(drafts []StepDraft) Plan {
	next := p.highest() + 1
	steps := make([]PlanStep, len(p.Steps), len(p.Steps)+len(drafts))
	copy(steps, p.Steps)
	for i, d := range drafts {
		steps = append(steps, PlanStep{StepID: stepID(next + i), Title: d.Title, Details: d.Details, Status: StepPending, Notes: []string{}})
	}
	p.Steps = steps
	return p
}

// highest returns the highest step number of p, 0 with no steps.
func (p Plan) highest() int {
	h := 0
	for _, s := range p.Steps {
		if n, ok := parseStepID(s.StepID); ok && n > h {
			h = n
		}
	}
	return h
}

func (p Plan) update(e stepUpdated) (Plan, error) {
	i, err := p.find("update", e.StepID)
	if err != nil {
		return p, err
	}
	if e.Title == nil && e.Details == nil {
		return p, fmt.Errorf("%w: give a new title, new details or both", errNothingToDo)
	}
	s := p.Steps[i]
	var errs []error
	if e.Title != nil {
		t, err := cleanText("title", *e.Title, 1, maxTitle)
		errs = append(errs, err)
		s.Title = t
	}
	if e.Details != nil {
		d, err := cleanText("details", *e.Details, 0, maxDetails)
		errs = append(errs, err)
		s.Details = d
	}
	if err := errors.Join(errs...); err != nil {
		return p, err
	}
	return p.withStep(i, s), nil
}

func (p Plan) mark(e StepMarked) (Plan, error) {
	if p.Exists() && p.Status == PlanAbandoned {
		return p, fmt.Errorf("%w: it was abandoned, so its steps cannot be marked; set up a new plan", errNotActive)
	}
	i, err := p.find("mark", e.StepID)
	if err != nil {
		return p, err
	}
	if !e.Status.valid() {
		return p, fmt.Errorf("status %q is not a step status; use pending, in_progress, blocked or done", e.Status)
	}
	note, err := cleanText("note", e.Note, 0, maxNote)
	if err != nil {
		return p, err
	}
	s := p.Steps[i]
	s.Status = e.Status
	if note != "" {
		s.Notes = append(s.Notes[:len(s.Notes):len(s.Notes)], note)
	}
	p = p.withStep(i, s)
	if p.Done() == len(p.Steps) {
		p.Status = PlanCompleted
	} else {
		p.Status = PlanActive
	}
	return p, nil
}

func (p Plan) clear() (Plan, error) {
	switch {
	case !p.Exists():
		return p, errNoPlan
	case p.Status == PlanAbandoned:
		return p, fmt.Errorf("%w: it is already abandoned", errNotActive)
	}
	return Plan{Objective: p.Objective, Status: PlanAbandoned, Steps: []PlanStep{}}, nil
}

// needActive checks that p is an active plan, for the action doing.
func (p Plan) needActive(doing string) error {
	switch {
	case !p.Exists():
		return errNoPlan
	case p.Status != PlanActive:
		return fmt.Errorf("%w: it is %s, so you cannot %s it; set up a new plan", errNotActive, p.Status, doing)
	}
	return nil
}

// find returns the index of the step id names, or an error for the
// action doing.
func (p Plan) find(doing, id string) (int, error) {
	if !p.Exists() {
		return -1, errNoPlan
	}
	i := p.index(id)
	if i < 0 {
		return -1, fmt.Errorf("%w: cannot %s %q; %s", errUnknownStep, doing, id, p.knownIDs())
	}
	return i, nil
}

// knownIDs words the ids a step id may take.
func (p Plan) knownIDs() string {
	if len(p.Steps) == 0 {
		return "the plan has no steps"
	}
	ids := make([]string, len(p.Steps))
	for i, s := range p.Steps {
		ids[i] = s.StepID
	}
	if len(ids) > 6 {
		return "the steps are " + ids[0] + " to " + ids[len(ids)-1]
	}
	return "the steps are " + strings.Join(ids, ", ")
}

// withStep returns p with step i replaced by s, in a new Steps slice.
func (p Plan) withStep(i int, s PlanStep) Plan {
	p.Steps = slices.Clone(p.Steps)
	p.Steps[i] = s
	return p
}

// MarkStepEvent returns the StepMarked event that marks step id of plan
// with status and note, trimmed and checked against plan as the reducer
// will check it: for code outside the planning tools, such as the subagent
// engine, that returns such an event from its own tool.
func MarkStepEvent(plan Plan, id string, status StepStatus, note string) (StepMarked, error) {
	ev := StepMarked{StepID: id, Status: status, Note: note}
	if _, err := apply(plan, ev); err != nil {
		return StepMarked{}, err
	}
	ev.StepID, _ = normalizeStepID(id)
	ev.Note = strings.TrimSpace(note)
	return ev, nil
}
