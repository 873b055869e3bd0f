package planning

import (
	"fmt"
	"strconv"
	"strings"
)

// PlanStatus is the state of a plan.
type PlanStatus string

// The states of a plan. A plan is active when set up, completed once every
// step is done (and active again if a step is marked otherwise), and
// abandoned when cleared.
const (
	PlanActive    PlanStatus = "active"
	PlanCompleted PlanStatus = "completed"
	PlanAbandoned PlanStatus = "abandoned"
)

// StepStatus is the state of a step.
type StepStatus string

// The states of a step. Any state may follow any other.
const (
	StepPending    StepStatus = "pending"
	StepInProgress StepStatus = "in_progress"
	StepBlocked    StepStatus = "blocked"
	StepDone       StepStatus = "done"
)

// valid reports whether s is one of the four step states.
func (s StepStatus) valid() bool {
	switch s {
	case StepPending, StepInProgress, StepBlocked, StepDone:
		return true
	}
	return false
}

// Plan is a session's plan: an objective and numbered steps. The zero Plan
// means "no plan". Plans are values: the Steps slice (and each step's
// Notes) are shared by every snapshot holding the plan and must be treated
// as read-only; the reducers build new slices for every change.
type Plan struct {
	// Objective says what the plan is for (1 to 240 ASCII characters).
	Objective string `json:"objective"`
	// Status is active, completed or abandoned.
	Status PlanStatus `json:"status"`
	// Steps are the plan's steps in the order they were added.
	Steps []PlanStep `json:"steps"`
}

// PlanStep is one step of a plan.
type PlanStep struct {
	// StepID is "S001", "S002", …: the order of addition. Ids are never
	// reused within a plan.
	StepID string `json:"step_id"`
	// Title says what the step does (1 to 160 ASCII characters).
	Title string `json:"title"`
	// Details say more (at most 512 ASCII characters).
	Details string `json:"details"`
	// Status is pending, in_progress, blocked or done.
	Status StepStatus `json:"status"`
	// Notes are the notes given when the step was marked, oldest first
	// (each at most 512 ASCII characters).
	Notes []string `json:"notes"`
}

// StepDraft is a step to add: the text the plan's tools and events carry
// before the step has an id.
type StepDraft struct {
	// Title says what the step does (1 to 160 ASCII characters, trimmed).
	Title string `json:"title" jsonschema:"what the step does, 1 to 160 ASCII characters"`
	// Details say more (at most 512 ASCII characters, trimmed).
	Details string `json:"details,omitempty" jsonschema:"more about the step, at most 512 ASCII characters"`
}

// Exists reports whether p is a plan, not the zero value.
func (p Plan) Exists() bool { return p.Status != "" }

// Step returns the step with the given id ("S002"; "s2" and "2" are read
// as "S002" too).
func (p Plan) Step(id string) (PlanStep, bool) {
	i := p.index(id)
	if i < 0 {
		return PlanStep{}, false
	}
	return p.Steps[i], true
}

// index returns the position of the step with the given id, or -1.
func (p Plan) index(id string) int {
	n, ok := parseStepID(id)
	if !ok {
		return -1
	}
	for i, s := range p.Steps {
		if m, _ := parseStepID(s.StepID); m == n {
			return i
		}
	}
	return -1
}

// Done returns how many steps are done.
func (p Plan) Done() int {
	n := 0
	for _, s := range p.Steps {
		if s.Status == StepDone {
			n++
		}
	}
	return n
}

// String summarizes the plan for people and models, one line per step:
//
//	Plan (active): Ship the release (1 of 2 steps done)
//	S001 [done] Write the notes
//	S002 [pending] Tag the release
func (p Plan) String() string {
	if !p.Exists() {
		return "No plan."
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Plan (%s): %s (%d of %d %s done)", p.Status, p.Objective, p.Done(), len(p.Steps), plural(len(p.Steps), "step", "steps"))
	for _, s := range p.Steps {
		fmt.Fprintf(&b, "\n%s [%s] %s", s.StepID, s.Status, s.Title)
	}
	return b.String()
}

// maxSteps is the most steps a plan can have: ids run from S001 to S999.
const maxSteps = 999

// stepID formats the n-th step id.
func stepID(n int) string { return fmt.Sprintf("S%03d", n) }

// parseStepID reads a step id: "S" (or "s") followed by a number from 1
// to 999; a bare number is accepted too.
func parseStepID(id string) (int, bool) {
	id = strings.TrimSpace(id)
	if id != "" && (id[0] == 'S' || id[0] == 's') {
		id = id[1:]
	}
	if id == "" || len(id) > 4 {
		return 0, false
	}
	for i := 0; i < len(id); i++ {
		if id[i] < '0' || id[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.Atoi(id)
	if err != nil || n < 1 || n > maxSteps {
		return 0, false
	}
	return n, true
}

// normalizeStepID returns the canonical form of a step id ("s2" and "2"
// are "S002"), or false when id is not a step id.
func normalizeStepID(id string) (string, bool) {
	n, ok := parseStepID(id)
	if !ok {
		return "", false
	}
	return stepID(n), true
}

// plural returns one or many according to n.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
