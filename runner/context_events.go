package runner

import "github.com/offshoot-dev/offshoot/model"

// ContextUsage records how full the model's context window was after one
// model call of an evaluation: the request's tokens and the answer's, out
// of the window. The runner records one after each model call, with its
// ModelCalled; chat and run show it on the turn line ("38% of context").
type ContextUsage struct {
	// Evaluation is the id of the evaluation (Response.Evaluation).
	Evaluation string `json:"evaluation"`
	// Turn is the model call, from 1, as ModelCalled.Turn.
	Turn int `json:"turn"`
	// Tokens is the request's input tokens, as the provider reported them
	// (estimated when it reported none: Estimated), plus the answer's.
	Tokens int `json:"tokens"`
	// Window is the model's context window, in tokens.
	Window int `json:"window"`
	// Messages is how many of the evaluation's messages (less tool calls
	// left without a result) the request and its answer held: the next
	// request's size is Tokens plus what follows them.
	Messages int `json:"messages"`
	// Estimated says the provider reported no usage, so Tokens is the
	// runner's estimate.
	Estimated bool `json:"estimated,omitempty"`
}

// Percent is Tokens as a whole percentage of Window (0 for no window).
func (u ContextUsage) Percent() int {
	if u.Window <= 0 {
		return 0
	}
	return u.Tokens * 100 / u.Window
}

// Compacted records a compaction of an evaluation's conversation: from
// then on, its model calls send the system message, the summary as a
// user message, then the messages from Upto on. The messages it replaces
// stay recorded (Conversation returns them all), so a fork at Seq has the
// conversation as it was, and the session's history shows every message.
type Compacted struct {
	// Evaluation is the id of the evaluation (Response.Evaluation).
	Evaluation string `json:"evaluation"`
	// Upto is how many of the evaluation's messages (less tool calls left
	// without a result), the system message included, the summary stands
	// for.
	Upto int `json:"upto"`
	// Seq is the session's seq before the compaction: fork the session at
	// it ("offshoot sessions fork --at SEQ") to undo it.
	Seq uint64 `json:"seq"`
	// Summary is what the model wrote of the messages it replaces.
	Summary string `json:"summary"`
	// TokensBefore and TokensAfter are the size of the next request before
	// and after, in tokens (the runner's count).
	TokensBefore int `json:"tokens_before"`
	TokensAfter  int `json:"tokens_after"`
	// Model names the model that wrote the summary, as ModelCalled.Model.
	Model string `json:"model,omitempty"`
	// Trigger says why: "auto" (the request was over the threshold),
	// "overflow" (the provider said the request was too long), "manual"
	// (Compact, /compact).
	Trigger string `json:"trigger"`
	// Usage is what writing the summary spent.
	Usage model.Usage `json:"usage"`
}

// ToolResultsCleared records that an evaluation's model calls send the
// results of the tool calls among its first Upto messages as a short
// placeholder naming the tool: the calls stay, their results are not sent
// again. Results stay recorded in full (ToolInvoked, Conversation).
type ToolResultsCleared struct {
	// Evaluation is the id of the evaluation (Response.Evaluation).
	Evaluation string `json:"evaluation"`
	// Upto is how many of the evaluation's messages (less tool calls left
	// without a result) the clearing covers.
	Upto int `json:"upto"`
	// TokensBefore and TokensAfter are the size of the next request before
	// and after, in tokens (the runner's count).
	TokensBefore int `json:"tokens_before"`
	TokensAfter  int `json:"tokens_after"`
}
