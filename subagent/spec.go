package subagent

import (
	"time"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/tools"
)

// Mode says how a child session starts.
type Mode int

const (
	// Forked children start from a snapshot of the parent session (the
	// parent's state now, or Spec.Snapshot).
	Forked Mode = iota
	// Fresh children start empty, with the parent's reducer table.
	Fresh
)

// String returns "forked" or "fresh".
func (m Mode) String() string {
	if m == Fresh {
		return "fresh"
	}
	return "forked"
}

// Spec describes one child run.
type Spec struct {
	// Name identifies what runs — a prompt's "ns/key", an agent type. The
	// delegation chain is made of names; a chain that would repeat one is a
	// cycle.
	Name string
	// Description is a short summary of the task ("Review the auth
	// module"), for transcripts and task notifications.
	Description string
	// Parent is the delegating session. The child goes on its bus.
	Parent *session.Session
	// Caller is the tool call that delegates, nil when a program's own
	// code does: the chain of a root evaluation's child starts with the
	// calling prompt (see Chain).
	Caller *tools.Invocation
	// Mode chooses a forked or a fresh child; Snapshot, when set, is the
	// state a forked child starts from instead of the parent's current one.
	Mode     Mode
	Snapshot *session.Snapshot
	// Request is the child's evaluation: its Prompt (rendered with Params;
	// the engine adds a section telling the child it is a subagent),
	// Messages (an earlier conversation the child carries on, after its
	// system message and before UserMessage), UserMessage (its first user
	// message, if any), Model and ModelName (Model is needed in process
	// only: an Options.Executor that runs the child elsewhere, such as
	// package remote's, finds its model there by ModelName), MaxTurns, the tools handed
	// down from the parent (Tools: its rendered toolset; the child also
	// gets its own prompt's tools) and ToolFilter, which narrows them; and
	// whatever else the runner offers, such as a Budget. The engine sets
	// Session (the child's), keeps the parent's pending inbound messages
	// out of the child, and gives Approve and Logger its own (Options.Approve,
	// Options.Logger) when they are nil.
	Request runner.Request
	// TaskInPrompt says that the task is in the child's prompt (rendered
	// with Params), not in UserMessage — as dispatch_subagent's
	// instructions are. The child's transcript then starts with its system
	// message, which holds the task, instead of its first user message.
	TaskInPrompt bool
	// Withhold names the delegating tools (dispatch_subagent, Task…) that
	// are removed from a child at the depth limit, so it cannot delegate
	// further.
	Withhold []string
	// KeepToolset offers the child its whole toolset, as the parent
	// offered it: the tools Request.ToolFilter or the depth limit
	// (Withhold) would take away stay in the list the model sees, and a
	// call to one is refused — never run — with a failed result the model
	// reads ("Permission to use the tool 'NAME' was denied: the NAME agent
	// may not use it; it may use only …"). A child that carries on its
	// parent's conversation needs it: its requests then begin exactly as
	// the parent's did — system message, tools, messages — and the
	// provider's prompt cache serves that opening.
	KeepToolset bool
	// MaxDepth overrides the engine's depth limit for this run (0: keep).
	MaxDepth int
	// Timeout overrides the engine's per-child timeout (0: keep).
	Timeout time.Duration
	// Setup runs on the child after hydration and after the engine's
	// ChildSetup, for derived reducers such as artifact collectors. If it
	// fails, the run aborts and the parent is untouched.
	Setup func(child *session.Session) error
	// Resume, when set, is the id of an earlier agent to continue instead
	// of starting a new one: its conversation is loaded from its
	// transcript, UserMessage is added as its next message, and it runs
	// under the same id at its original depth, its state starting as Mode
	// says (a Forked agent works on the parent's state as it is now).
	// Only agents that started from their task alone (no Messages) can be
	// resumed, and only when the engine keeps transcripts; Name must be
	// the agent's (see Engine.Agent for what the transcript knows).
	Resume string
}

// Usage is what a child run spent.
type Usage struct {
	// Own is the child's own model usage; Total adds what its own children
	// spent.
	Own   model.Usage `json:"own"`
	Total model.Usage `json:"total"`
	// ModelCalls counts the child's model calls.
	ModelCalls int `json:"model_calls"`
	// ToolCalls counts the child's tool calls by tool name.
	ToolCalls map[string]int `json:"tool_calls,omitempty"`
}

// Outcome is the result of a child run.
type Outcome struct {
	// AgentID identifies the run; SessionID is the child session's id.
	AgentID, SessionID string
	// Name is Spec.Name; Depth is the child's depth (1 for a child of a
	// root run).
	Name  string
	Depth int
	// Text is the child's final text; Output its structured output, if its
	// prompt declares one.
	Text   string
	Output any
	// Response is the child's whole evaluation (nil when it never ran).
	Response *runner.Response
	// Start and Final are the child's state when it started and when it
	// finished, before teardown. Events the child recorded are those Final
	// holds beyond Start.
	Start, Final session.Snapshot
	// States are the distinct states (tools.State) of the child's whole
	// toolset — the tools it inherited (Request.Tools) and its
	// prompt's own —
	// in that order: what a front end asks for the artifacts the child
	// produced between Start and Final.
	States    []tools.State
	Usage     Usage
	ModelName string
	Duration  time.Duration
	// Transcript is the path of the child's transcript, "" when the
	// engine keeps none.
	Transcript string
}

// Spent returns the record of what the child spent, its own children
// included, for its parent's session: a front end adds it to the events
// of the delegating tool's result, so the parent keeps one record per
// finished child, atomically with the result, and never while the child
// runs. It is marked Counted: the parent's evaluation counted the
// spending as it happened (the child's was nested in it) and does not
// count the record again.
func (o *Outcome) Spent() runner.Spent {
	return runner.Spent{Source: o.AgentID, Usage: o.Usage.Total, Counted: true}
}
