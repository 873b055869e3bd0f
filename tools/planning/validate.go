package planning

import (
	"errors"
	"fmt"
	"strings"

	"github.com/offshoot-dev/offshoot/serde"
)

// Validate checks that p is a plan the planning tools could have built:
// a known status; trimmed ASCII text within the limits (see the Max
// constants); step ids of the form S001 that are unique and increase in
// the order of the steps; known step statuses and non-empty notes; no
// steps on an abandoned plan, and every step done on a completed one. The
// zero Plan (no plan) is valid.
//
// serde calls it on every Plan it decodes, so a plan restored from
// snapshot JSON (session.UnmarshalSnapshot) is checked like one built by
// the tools, and a crafted one is refused. Problems are *serde.ValidationError
// values with the JSON path of the field, joined.
func (p Plan) Validate() error {
	if p.Objective == "" && p.Status == "" && len(p.Steps) == 0 {
		return nil
	}
	var errs []error
	bad := func(path, reason string) { errs = append(errs, &serde.ValidationError{Path: path, Reason: reason}) }
	checkText := func(path, s string, minLen, maxLen int) {
		t, err := cleanText(path, s, minLen, maxLen)
		switch {
		case err != nil:
			errs = append(errs, err)
		case t != s:
			bad(path, "must not start or end with white space")
		}
	}
	checkText("objective", p.Objective, 1, maxObjective)
	switch p.Status {
	case PlanActive, PlanCompleted, PlanAbandoned:
	default:
		bad("status", fmt.Sprintf("%q is not a plan status; use active, completed or abandoned", clip(string(p.Status))))
	}
	last := 0
	seen := make(map[int]bool, len(p.Steps))
	for i, s := range p.Steps {
		at := fmt.Sprintf("steps[%d]", i)
		n, ok := parseStepID(s.StepID)
		switch {
		case !ok || stepID(n) != s.StepID:
			bad(at+".step_id", fmt.Sprintf("%q is not a step id such as S001", clip(s.StepID)))
		case seen[n]:
			bad(at+".step_id", s.StepID+" appears twice; step ids are unique")
		case n < last:
			bad(at+".step_id", fmt.Sprintf("%s comes after %s; step ids increase in the order the steps were added", s.StepID, stepID(last)))
		default:
			seen[n], last = true, n
		}
		checkText(at+".title", s.Title, 1, maxTitle)
		checkText(at+".details", s.Details, 0, maxDetails)
		if !s.Status.valid() {
			bad(at+".status", fmt.Sprintf("%q is not a step status; use pending, in_progress, blocked or done", clip(string(s.Status))))
		}
		for j, note := range s.Notes {
			checkText(fmt.Sprintf("%s.notes[%d]", at, j), note, 1, maxNote)
		}
	}
	switch {
	case p.Status == PlanAbandoned && len(p.Steps) > 0:
		bad("steps", "an abandoned plan has no steps")
	case p.Status == PlanCompleted && len(p.Steps) == 0:
		bad("status", "a completed plan has every step done; it has no steps")
	case p.Status == PlanCompleted:
		for _, s := range p.Steps {
			if s.Status != StepDone {
				bad("status", fmt.Sprintf("a completed plan has every step done; %s is %s", clip(s.StepID), clip(string(s.Status))))
				break
			}
		}
	}
	return errors.Join(errs...)
}

// clip returns s cut to 40 characters, for repeating a bad value in an
// error.
func clip(s string) string {
	if len(s) <= 40 {
		return s
	}
	return strings.ToValidUTF8(s[:40], "") + "…"
}
