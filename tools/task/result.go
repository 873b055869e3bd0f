package task

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/subagent"
)

// Result is the value of a Task call: the general tool response envelope
// (status, data, text, stats, context) plus short_result. The model reads
// Text only; the whole envelope is recorded with the call (the Value of
// its runner.ToolInvoked record), for programs and transcripts.
//
// A successful call:
//
//	{"status": "success",
//	 "data": {"status": "completed", "result": "…", "tool_summary": [{"tool": "read_file", "count": 3}],
//	          "model_used": "light", "subagent_type": "explore", "agent_id": "…"},
//	 "text": "Subagent (explore, light) completed.\n\n…",
//	 "stats": {"time_ms": 1234, "tool_calls": 3, "model": "light", "usage": {…}},
//	 "context": {"cwd": ".", "params_input": {…}},
//	 "short_result": "Task completed by explore"}
//
// A call that starts its agent in the background returns at once with
// status "async_launched" and the agent's agent_id, task_id and
// output_file at the top level (and in data):
//
//	{"status": "async_launched", "agent_id": "…", "task_id": "…", "output_file": "…",
//	 "data": {"status": "async_launched", "agent_id": "…", "task_id": "…", "output_file": "…", …},
//	 "text": "Subagent (explore, light) started in the background as task …", …,
//	 "short_result": "Task started in the background by explore"}
//
// A failed one has status "error", data.status "failed", the failure in
// Error, and "Task delegation failed" as its short_result; data.result
// then holds what the agent wrote before it stopped, if anything.
type Result struct {
	// Status is "success", "error", or "async_launched" for an agent
	// started in the background.
	Status string `json:"status"`
	// AgentID, TaskID and OutputFile are set for an agent started in the
	// background (Status "async_launched"): its agent id, its task id (the
	// same) and the file its output goes to ("" when the engine keeps no
	// transcripts). They are the launch's shape, {"status":
	// "async_launched", "agent_id", "task_id", "output_file"}, so a
	// launch's JSON always has output_file; other results have none of
	// them (their agent's id is Data.AgentID).
	AgentID    string `json:"agent_id,omitempty"`
	TaskID     string `json:"task_id,omitempty"`
	OutputFile string `json:"output_file,omitempty"`
	// Data is what the agent did.
	Data data `json:"data"`
	// Text is what the model reads: "Subagent (TYPE, MODEL) completed."
	// and the agent's answer — then, when the agent can be resumed (the
	// engine keeps transcripts, and the agent started from its task
	// alone), a line "agent_id: ID (to continue this agent's work later,
	// call Task with resume set to this id)" — or the failure and the
	// agent's partial text.
	Text string `json:"text"`
	// Stats are what the call cost.
	Stats stats `json:"stats"`
	// Context is where the call was made and with what.
	Context callContext `json:"context"`
	// ShortResult is a one-line summary for displays: "Task completed by
	// TYPE" or "Task delegation failed".
	ShortResult string `json:"short_result"`
	// Error is the failure, exactly as the model reads it first; empty on
	// success.
	Error string `json:"error,omitempty"`
}

// StatusAsyncLaunched is the Status (and Data.Status) of a call that
// started its agent in the background.
const StatusAsyncLaunched = "async_launched"

// MarshalJSON writes r as its fields say, with output_file present in a
// launch's value even when it is empty.
func (r Result) MarshalJSON() ([]byte, error) {
	type plain Result
	if r.Status != StatusAsyncLaunched {
		return json.Marshal(plain(r))
	}
	return json.Marshal(struct {
		plain
		OutputFile string `json:"output_file"`
	}{plain(r), r.OutputFile})
}

// data is what the agent did.
type data struct {
	// Status is "completed", "failed", or "async_launched" for an agent
	// started in the background.
	Status string `json:"status"`
	// Result is the agent's final answer (its partial text on failure).
	Result string `json:"result"`
	// ToolSummary counts the agent's tool calls by tool, in first-use
	// order.
	ToolSummary []ToolCount `json:"tool_summary"`
	// ModelUsed is the id of the model the agent ran on ("gpt-4.1-mini"),
	// or the name it was routed by ("light") when the model does not say
	// its id.
	ModelUsed string `json:"model_used"`
	// SubagentType is the agent's name, as the registry knows it (the
	// subagent_type asked for when no agent matched).
	SubagentType string `json:"subagent_type"`
	// AgentID identifies the agent's run; empty when it never started.
	AgentID string `json:"agent_id"`
	// TaskID is the background task's id (the agent's) and OutputFile the
	// file its output goes to ("" when the engine keeps no transcripts),
	// for an agent started in the background.
	TaskID     string `json:"task_id,omitempty"`
	OutputFile string `json:"output_file,omitempty"`
	// Name is the call's name for the agent, if it gave one.
	Name string `json:"name,omitempty"`
	// Artifacts are the files the agent wrote that were copied into the
	// caller's state (see Options.NoArtifactCopy), sorted.
	Artifacts []string `json:"artifacts,omitempty"`
}

// ToolCount is how many times the agent called one tool.
type ToolCount struct {
	// Tool is the tool's name, as the agent called it.
	Tool string `json:"tool"`
	// Count is how many calls the agent made, failed ones included.
	Count int `json:"count"`
}

// stats are what the call cost.
type stats struct {
	// TimeMS is the call's wall time in milliseconds, by the session bus's
	// clock.
	TimeMS int64 `json:"time_ms"`
	// ToolCalls counts the agent's tool calls.
	ToolCalls int `json:"tool_calls"`
	// Model is the name the agent's model was routed by ("light"); its id
	// is Data.ModelUsed.
	Model string `json:"model"`
	// Usage is what the agent spent, its own subagents included.
	Usage model.Usage `json:"usage"`
}

// callContext is where the call was made and with what.
type callContext struct {
	// Cwd is the working directory the program gives its tools (see
	// Options.WorkingDir).
	Cwd string `json:"cwd"`
	// ParamsInput is the call's input as decoded, team_name and mode
	// included.
	ParamsInput input `json:"params_input"`
}

// completed fills r for a child that finished. When the agent can be
// resumed (the engine keeps its transcript, and it started from its task
// alone), the text ends with its id, so that the model can continue it.
func (r *Result) completed(agentType, modelName string, out *subagent.Outcome, resumable bool) {
	r.Status, r.Data.Status = "success", "completed"
	r.Data.Result = strings.TrimSpace(out.Text)
	answer := r.Data.Result
	if answer == "" {
		answer = "(the agent finished without a result)"
	}
	r.Text = fmt.Sprintf("Subagent (%s, %s) completed.\n\n%s", agentType, modelName, answer)
	if resumable && out.AgentID != "" {
		r.Text += fmt.Sprintf("\n\nagent_id: %s (to continue this agent's work later, call Task with resume set to this id)", out.AgentID)
	}
	r.ShortResult = "Task completed by " + agentType
}

// failed fills r for a call that failed with msg, the text the model reads
// first, followed by partial, the agent's text so far.
func (r *Result) failed(msg, partial string) {
	r.Status, r.Data.Status = "error", "failed"
	r.Error, r.ShortResult = msg, "Task delegation failed"
	r.Data.Result = strings.TrimSpace(partial)
	r.Text = msg
	if r.Data.Result != "" {
		r.Text += "\n\n" + r.Data.Result
	}
}

// account fills the data and stats an outcome reports.
func (r *Result) account(out *subagent.Outcome) {
	if out == nil {
		return
	}
	r.Data.AgentID = out.AgentID
	r.Data.ToolSummary = toolSummary(out)
	for _, tc := range r.Data.ToolSummary {
		r.Stats.ToolCalls += tc.Count
	}
	r.Stats.Usage = out.Usage.Total
}

// toolSummary counts the child's tool calls by tool: the tools it used in
// first-use order, then any other name it called, sorted.
func toolSummary(out *subagent.Outcome) []ToolCount {
	counts := out.Usage.ToolCalls
	sum := make([]ToolCount, 0, len(counts))
	seen := make(map[string]bool, len(counts))
	if out.Response != nil {
		for _, name := range out.Response.ToolsUsed {
			if n := counts[name]; n > 0 && !seen[name] {
				seen[name] = true
				sum = append(sum, ToolCount{Tool: name, Count: n})
			}
		}
	}
	rest := make([]string, 0, len(counts)-len(sum))
	for name := range counts {
		if !seen[name] {
			rest = append(rest, name)
		}
	}
	slices.Sort(rest)
	for _, name := range rest {
		sum = append(sum, ToolCount{Tool: name, Count: counts[name]})
	}
	return sum
}
