package runner

import (
	"encoding/json"
	"time"

	"github.com/offshoot-dev/offshoot/model"
)

// The runner turns everything that happens during an evaluation into events
// dispatched to the evaluated session. None of them has a reducer by
// default, so each is recorded in its own slice (session.AppendAll); bus
// observers use them for logs, traces and progress displays.

// PromptRendered records that a prompt was rendered for an evaluation:
// once when it starts and once each time it is continued
// (Request.Continue).
type PromptRendered struct {
	// Evaluation is the id of the evaluation (Response.Evaluation).
	Evaluation string `json:"evaluation"`
	NS         string `json:"ns"`
	Key        string `json:"key"`
	// Text and Tools are the rendered text and the names of the tools
	// offered, left out (empty, with Repeat set) when a continued
	// evaluation rendered the same as the last time: a long conversation
	// does not store its prompt once a turn.
	Text  string   `json:"text,omitempty"`
	Tools []string `json:"tools,omitempty"`
	// Repeat says the render is the same as the evaluation's previous one.
	Repeat bool `json:"repeat,omitempty"`
}

// ModelCalled records one model call: when, on which model, what it cost.
// What the model answered is the ConversationMessage dispatched just
// before it, in the same atomic dispatch (its tool calls included).
type ModelCalled struct {
	// Evaluation is the id of the evaluation (Response.Evaluation).
	Evaluation string `json:"evaluation"`
	NS         string `json:"ns"`
	Key        string `json:"key"`
	// Model is the id of the model asked ("gpt-4.1"), as the model says
	// it (model.Describe); empty when it does not say. Records made before
	// Route was kept hold the route here.
	Model string `json:"model,omitempty"`
	// Route is the name the program chose the model by (Request.ModelName:
	// "main", "light", a configured name).
	Route string `json:"route,omitempty"`
	// ResponseModel is the id of the model that answered, as the server
	// said it ("gpt-4.1-2025-04-14"); ResponseID the server's id of the
	// answer. Empty when it said none.
	ResponseModel string `json:"response_model,omitempty"`
	ResponseID    string `json:"response_id,omitempty"`
	// Server is the host and port of the server called ("localhost:8000"),
	// when the model says them.
	Server string `json:"server,omitempty"`
	// Turn counts model calls in this evaluation, from 1.
	Turn         int                `json:"turn"`
	Duration     time.Duration      `json:"duration"`
	Usage        model.Usage        `json:"usage"`
	FinishReason model.FinishReason `json:"finish_reason,omitempty"`
	// Error is the model's error when the call failed, and ErrorType its
	// kind (model.ErrorKind: "rate_limited", "http_5xx", …).
	Error     string `json:"error,omitempty"`
	ErrorType string `json:"error_type,omitempty"`
}

// Shown is the name to show the model by: the id asked for, else the id
// that answered, else the route.
func (e ModelCalled) Shown() string {
	switch {
	case e.Model != "":
		return e.Model
	case e.ResponseModel != "":
		return e.ResponseModel
	}
	return e.Route
}

// ToolInvoked records one tool call. It is dispatched atomically with the
// events the tool returned, so the record and the state change it caused
// are applied together or not at all.
type ToolInvoked struct {
	// Evaluation is the id of the evaluation (Response.Evaluation).
	Evaluation string `json:"evaluation"`
	NS         string `json:"ns"`
	Key        string `json:"key"`
	Name       string `json:"name"`
	CallID     string `json:"call_id"`
	// Arguments is the model's arguments, compacted when they are valid
	// JSON.
	Arguments json.RawMessage `json:"arguments"`
	// Result is the text the model was shown.
	Result  string `json:"result"`
	Success bool   `json:"success"`
	// Value is the JSON of the result value, when the tool produced one.
	Value    json.RawMessage `json:"value,omitempty"`
	Duration time.Duration   `json:"duration"`
	// Denied is set when Request.Approve denied the call: the tool did
	// not run, and Result says who denied it and why.
	Denied bool `json:"denied,omitempty"`
}

// PromptExecuted records the end of an evaluation, whatever its outcome:
// every evaluation that Evaluate starts (once the Request is complete)
// ends with exactly one, succeeded, failed, cancelled, abandoned or
// waiting, so an
// observer closes what it opened for the evaluation on it and never
// guesses. The runner records it in the session; when the session refuses
// the record (it was closed meanwhile), it is told to the bus's observers
// all the same, unrecorded (Seq 0). A failed evaluation's may come without
// a PromptRendered before it, when the prompt did not render.
type PromptExecuted struct {
	// Evaluation is the id of the evaluation (Response.Evaluation).
	Evaluation string `json:"evaluation"`
	NS         string `json:"ns"`
	Key        string `json:"key"`
	// Text is empty in the records the runner makes: the final text is the
	// evaluation's last assistant message (and Response.Text).
	//
	// Deprecated: kept so that records stored before it was left out still
	// read.
	Text string `json:"text,omitempty"`
	// Output is the JSON of the structured output, when the prompt
	// declares one.
	Output json.RawMessage `json:"output,omitempty"`
	// Usage is what the evaluation's model calls spent; ChildUsage what
	// the evaluations nested in it spent (its subagents, as
	// Response.ChildUsage): together, the tree's total.
	Usage      model.Usage   `json:"usage"`
	ChildUsage model.Usage   `json:"child_usage,omitzero"`
	Turns      int           `json:"turns"`
	ToolCalls  int           `json:"tool_calls"`
	Duration   time.Duration `json:"duration"`
	// Status is how the evaluation ended: "succeeded"; "failed";
	// "cancelled" when its context was cancelled or its deadline passed;
	// "abandoned" when it was cancelled while a tool that ignores the
	// cancellation ran, and returned without it (ErrAbandoned). Empty in
	// records stored before it was kept, all of successes.
	Status string `json:"status,omitempty"`
	// Error is the evaluation's error (the text of the *EvaluationError
	// Evaluate returned), and ErrorType its kind: a model error's
	// (model.ErrorKind: "rate_limited", "http_5xx", "timeout",
	// "cancelled", …), or "abandoned", "max_turns", "budget_exceeded",
	// "panic", "goexit", "waiting", "render" (the prompt did not render or its tools
	// did not install), "record" (the session refused a record),
	// "invalid_output" (the answer did not match the declared output), or
	// "_OTHER". Both are empty for a success.
	Error     string `json:"error,omitempty"`
	ErrorType string `json:"error_type,omitempty"`
}

// Succeeded reports whether the evaluation succeeded (records stored
// before Status was kept are of successes only).
func (e PromptExecuted) Succeeded() bool {
	return e.Status == "" || e.Status == statusSucceeded
}

// Parked reports whether the evaluation ended waiting for an answer (see
// Waiting): it neither succeeded nor failed, and goes on when answered.
func (e PromptExecuted) Parked() bool { return e.Status == statusWaiting }

// Inbound is a message for the evaluation running on the session — a
// background task's notification, an operator's note. Dispatch it to the
// session; before each model call the runner adds the Inbound messages no
// evaluation has delivered yet to the conversation, as user messages, in
// order. One that arrives after an evaluation's last model call waits for
// the next evaluation on the session.
type Inbound struct {
	// Source says where the message comes from ("task", "operator", …).
	Source string `json:"source,omitempty"`
	// Text is the message the model sees.
	Text string `json:"text"`
}

// Spent records tokens spent on the session's behalf by work done outside
// its evaluations (a program's own tool that calls a model, a service).
// Dispatched to a session while an evaluation runs on it, it counts
// against the evaluation's Budget and in its Response.ChildUsage.
// Evaluations nested in the evaluation (subagents) are counted as they
// spend; a delegation engine still records what each one spent, with its
// tool result, marked Counted, so that the session keeps what each cost
// and the runner does not count it twice.
type Spent struct {
	// Source identifies who spent it: an agent's id, a tool call's id.
	Source string `json:"source_id"`
	// Usage is what was spent.
	Usage model.Usage `json:"usage"`
	// Counted marks spending the evaluation counted as it happened (a
	// nested evaluation's); the runner does not count it again.
	Counted bool `json:"counted,omitempty"`
}

// InboundRead records how many of the session's Inbound messages have been
// delivered to a model. The runner keeps it (one value, ReplaceLatest).
type InboundRead struct {
	Upto int `json:"upto"`
}

// ToolsOffered says which tools an evaluation offers its model, with
// their descriptions, for observers that describe tool calls (a tracer).
// Like Delta, the runner publishes it on the session's bus when an
// evaluation starts or is carried on, only when some subscriber would
// receive it, and does not record it: PromptRendered names the tools.
// The envelope is addressed to no session: SessionID says whose
// evaluation it is. Tools is the runner's: read it, do not change it.
type ToolsOffered struct {
	SessionID  string           `json:"session_id"`
	Evaluation string           `json:"evaluation"`
	Tools      []model.ToolSpec `json:"tools"`
}

// Delta is a piece of a model's answer as it streams: text, or a fragment
// of a tool call. The runner publishes one per piece on the session's bus
// for observers (a terminal, a UI), when some subscriber would receive it;
// Deltas are not recorded in the session, whose ConversationMessage holds
// the complete answer. The envelope is addressed to no session: SessionID
// says whose evaluation it is.
type Delta struct {
	SessionID  string `json:"session_id"`
	Evaluation string `json:"evaluation"`
	// Turn is the model call the piece belongs to, from 1.
	Turn int `json:"turn"`
	model.Delta
}
