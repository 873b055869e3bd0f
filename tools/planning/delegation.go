package planning

import (
	"fmt"
	"strings"

	"github.com/offshoot-dev/offshoot/session"
)

// planState is the plan as delegation sees it (a tools.State): a summary
// for a child's prompt. A child's plan is its own, so it hands nothing
// back: a plan_step dispatch reports through the parent's own planning
// events instead.
type planState struct{}

// maxSummarySteps bounds the steps a summary lists.
const maxSummarySteps = 20

// Summary describes the plan of snap: `a plan with 2 steps ("Ship the
// release"): S001 done, S002 in progress`.
func (planState) Summary(snap session.Snapshot) string {
	p, ok := PlanOf(snap)
	if !ok || p.Status == PlanAbandoned {
		return ""
	}
	n := len(p.Steps)
	unit := "steps"
	if n == 1 {
		unit = "step"
	}
	s := fmt.Sprintf("a plan with %d %s (%q)", n, unit, p.Objective)
	if p.Status == PlanCompleted {
		s = "a completed " + strings.TrimPrefix(s, "a ")
	}
	var steps []string
	for _, st := range p.Steps[:min(n, maxSummarySteps)] {
		steps = append(steps, st.StepID+" "+strings.ReplaceAll(string(st.Status), "_", " "))
	}
	if len(steps) > 0 {
		s += ": " + strings.Join(steps, ", ")
		if n > maxSummarySteps {
			s += fmt.Sprintf(", and %d more", n-maxSummarySteps)
		}
	}
	return s
}

// Artifacts returns nothing: a child's plan stays in the child.
func (planState) Artifacts(_, _ session.Snapshot) ([]string, []any) { return nil, nil }
