// Package promptsubagent is the dispatch_subagent tool: a running prompt
// offloads a block of work to an isolated child that starts from a
// snapshot of the parent session, runs a registered prompt with the
// parent's full toolset, and hands back only a summary.
//
// The flow of one call: validate the input (no child is created for bad
// input) → snapshot the parent → fork a child rolled back to it → render the
// registry prompt with a Delegation params value → run it with the parent's
// rendered tools plus the prompt's own → collect the summary, structured
// output, artifacts (from the child's vfs.FileWritten events) and tools used
// → close the child. The parent session never changes while the child runs;
// for a plan-step dispatch the step is then marked done or blocked through
// the planning tools' own events.
package promptsubagent

import "fmt"

// ToolName is the name the model calls the tool by.
const ToolName = "dispatch_subagent"

// The dispatch modes.
const (
	// modePlanStep works on one step of the session's plan, named by
	// PlanStepID.
	modePlanStep = "plan_step"
	// modeAdHoc is any other delegated task.
	modeAdHoc = "ad_hoc"
)

// Limits of the input, as the tool validates it.
const (
	maxInstructions = 2000
	maxArtifactName = 160
)

// DispatchSubagent is the tool's input.
type DispatchSubagent struct {
	Mode              string   `json:"mode" jsonschema:"plan_step to work on one step of the session's plan (give plan_step_id), ad_hoc for any other task" validate:"required,oneof=plan_step ad_hoc"`
	PromptNS          string   `json:"prompt_ns" jsonschema:"namespace of the registered prompt the subagent runs" validate:"required"`
	PromptKey         string   `json:"prompt_key" jsonschema:"key of the registered prompt the subagent runs" validate:"required"`
	Instructions      string   `json:"instructions" jsonschema:"what the subagent must do: 1 to 2000 ASCII characters"`
	ExpectedArtifacts []string `json:"expected_artifacts,omitempty" jsonschema:"deliverables the subagent should produce, such as file paths (ASCII, up to 160 characters each)" validate:"omitempty,dive,max=160,ascii"`
	PlanStepID        string   `json:"plan_step_id,omitempty" jsonschema:"the plan step the subagent works on (plan_step mode only), such as S001"`
	SnapshotVersion   string   `json:"snapshot_version,omitempty" jsonschema:"the session snapshot schema version the caller expects (\"1\"); omit unless you need the check"`
}

// DispatchSubagentResult is what the parent sees of a child run.
type DispatchSubagentResult struct {
	PromptNS  string `json:"prompt_ns"`
	PromptKey string `json:"prompt_key"`
	// MessageSummary is the child's final answer; it is also the tool
	// result's message.
	MessageSummary string `json:"message_summary"`
	// Artifacts are the VFS paths the child wrote (sorted, distinct) and the
	// artifacts its structured output declares.
	Artifacts []string `json:"artifacts"`
	// ToolsUsed names the tools the child called, in first-use order.
	ToolsUsed []string `json:"tools_used"`
}

// Delegation is the params value a child prompt is rendered with. A
// section of the child prompt whose params type is Delegation renders it as
// the prompt's author wants; a prompt without one gets the built-in
// "Delegated task" section appended.
type Delegation struct {
	Instructions string
	Mode         string
	// PlanStepID, PlanStepTitle and PlanStepDetails describe the plan step
	// of a plan_step dispatch.
	PlanStepID, PlanStepTitle, PlanStepDetails string
	ExpectedArtifacts                          []string
	// State says, in plain words, what the child starts from: one line per
	// state of the parent's tools ("3 files in the workspace: …", "a plan
	// with 2 steps …"); see tools.State.
	State []string
}

// DispatchSubagentError is the Go error of a dispatch whose child
// evaluation failed (a model error, a timeout, max turns). Its message is
// "Subagent run aborted: <cause>"; the model sees it followed by the
// child's partial text, when it wrote some before it stopped.
type DispatchSubagentError struct {
	PromptNS, PromptKey string
	Err                 error
	// Partial is the child's last text before it stopped ("" for none).
	Partial string
}

// Error returns "Subagent run aborted: CAUSE", the text the model sees.
func (e *DispatchSubagentError) Error() string {
	return fmt.Sprintf("Subagent run aborted: %v", e.Err)
}

// Unwrap returns the cause.
func (e *DispatchSubagentError) Unwrap() error { return e.Err }
