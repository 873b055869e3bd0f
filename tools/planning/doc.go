// Package planning gives a model a plan that lives in its session: six
// tools to set up a plan (an objective and steps S001, S002, …), add,
// update and mark steps, clear it and read it.
//
// A session holds at most one plan, the latest value of its Plan slice. The
// tools never change the session themselves: a handler checks the change
// against the current plan and returns one of the package's events, which
// the session's reducers apply with the same check. Other code may dispatch
// PlanSetUp (to start a session with a plan) and StepMarked — the subagent
// engine marks the step a plan-step subagent worked on with MarkStepEvent.
// A fork carries the plan, a rollback restores it, and a child's changes
// never reach its parent.
//
// Text is trimmed ASCII: an objective has 1 to 240 characters, a title 1
// to 160, details and notes at most 512; a tool given other text fails the
// call as invalid arguments ("Tool validation failed: planning_add_step:
// steps[1].title: must be ASCII"). Step ids are never reused within
// a plan: a new step gets one more than the highest id. Plan.Validate
// checks those rules on a whole plan; serde calls it on every Plan it
// decodes, so a plan restored from snapshot JSON holds to them too.
package planning
