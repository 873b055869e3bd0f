package subagent

import (
	"time"

	"github.com/offshoot-dev/offshoot/model"
)

// The engine publishes Started and Finished on the parent's bus for
// observers — progress displays, logs, traces. They are addressed to no
// session (the envelope's ParentSessionID is the parent's id), so neither
// the parent's nor the child's state changes because of them.

// Started is published when a child session has been hydrated and set up,
// just before its first turn.
type Started struct {
	AgentID   string `json:"agent_id"`
	Name      string `json:"name"`
	SessionID string `json:"session_id"`
	ParentID  string `json:"parent_id"`
	Depth     int    `json:"depth"`
	Mode      string `json:"mode"`
	// Model is the id of the child's model (model.Describe: "gpt-4.1"),
	// or Route when the model does not say it; Route is the name it was
	// chosen by (Request.ModelName: "main", "light").
	Model string `json:"model,omitempty"`
	Route string `json:"route,omitempty"`
	// Description is what the child was started to do (Spec.Description).
	Description string `json:"description,omitempty"`
	// CallID is the id of the tool call that delegated the child
	// (Spec.Caller), "" when a program's own code started it: with
	// ParentID it tells an observer (a tracer) which call the child's work
	// belongs to.
	CallID string `json:"call_id,omitempty"`
	// Background is set for a child started with Engine.Start, which
	// outlives the call that launched it.
	Background bool `json:"background,omitempty"`
}

// Finished is published when a child run ends, whatever the outcome,
// before the child session is closed.
type Finished struct {
	AgentID   string        `json:"agent_id"`
	Name      string        `json:"name"`
	SessionID string        `json:"session_id"`
	ParentID  string        `json:"parent_id"`
	Depth     int           `json:"depth"`
	Duration  time.Duration `json:"duration"`
	// Usage is the child's total, its own children included.
	Usage model.Usage `json:"usage"`
	// ModelCalls and ToolCalls count the child's own model and tool calls.
	ModelCalls int `json:"model_calls,omitempty"`
	ToolCalls  int `json:"tool_calls"`
	// Error is the failure's model-facing text; empty on success.
	Error string `json:"error,omitempty"`
}
