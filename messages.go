package offshoot

import (
	"strings"
	"time"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/subagent"
)

// Message is what Client.Query yields, in the order things happen: one of
// TextDelta, AssistantMessage, ToolResultMessage, TaskNotificationMessage,
// and last ResultMessage. Tell them apart with a type switch:
//
//	for msg := range client.Query(ctx, "Review the login code") {
//		switch m := msg.(type) {
//		case offshoot.TextDelta:
//			fmt.Print(m.Text)
//		case offshoot.ResultMessage:
//			if m.Err != nil {
//				log.Fatal(m.Err)
//			}
//		}
//	}
type Message interface {
	// MessageType names the kind of message: "text_delta", "assistant",
	// "tool_result", "system" (a TaskNotificationMessage, whose Subtype is
	// "task_notification", as in the Claude Agent SDK) or "result".
	MessageType() string
}

// TextDelta is a piece of the main agent's answer as the model streams it
// (when the model streams; see model.Streamer). The pieces of one turn,
// joined, are its AssistantMessage's Text, which follows them.
type TextDelta struct {
	// Text is the piece.
	Text string `json:"text"`
	// Turn is the model call it belongs to, from 1 in each query.
	Turn int `json:"turn"`
}

// MessageType returns "text_delta".
func (TextDelta) MessageType() string { return "text_delta" }

// AssistantMessage is one complete answer of the main agent's model: its
// text and the tools it calls.
type AssistantMessage struct {
	Text      string           `json:"text"`
	ToolCalls []model.ToolCall `json:"tool_calls,omitempty"`
	// Turn is the model call, from 1 in each query.
	Turn int `json:"turn"`
}

// MessageType returns "assistant".
func (AssistantMessage) MessageType() string { return "assistant" }

// ToolResultMessage tells how one of the main agent's tool calls went, in
// short: the session records the whole result (runner.ToolInvoked).
type ToolResultMessage struct {
	// CallID is the call's id (AssistantMessage.ToolCalls), Name the
	// tool's.
	CallID string `json:"call_id"`
	Name   string `json:"name"`
	// Success is false when the call failed; the model read why.
	Success bool `json:"success"`
	// Summary is the first line of what the model read, cut to 200
	// characters.
	Summary string `json:"summary"`
}

// MessageType returns "tool_result".
func (ToolResultMessage) MessageType() string { return "tool_result" }

// maxSummary bounds a ToolResultMessage's Summary, in characters.
const maxSummary = 200

// TaskNotificationMessage tells that a background task of the main
// agent's ended (completed, failed or stopped), with its result: seed
// shape {type: "system", subtype: "task_notification", task_id, status,
// output_file, summary, uuid, session_id} plus its error and usage.
// Query yields those that end while it runs; Options.OnTaskNotification
// is told of every one; the main agent reads
// each at its next model call, in this query or the next.
type TaskNotificationMessage struct {
	subagent.TaskNotification
}

// MessageType returns "system", its Type: a task notification is a system
// message of subtype "task_notification".
func (TaskNotificationMessage) MessageType() string { return "system" }

// ResultMessage ends every query: the main agent's answer and what the
// query spent, or why it failed.
type ResultMessage struct {
	// Text is the main agent's final answer (its last text, when the
	// query failed).
	Text string `json:"text"`
	// Usage is what the query spent: the main agent's model calls and
	// those of the agents it started, as far as they had spent when the
	// query ended.
	Usage model.Usage `json:"usage"`
	// Turns counts the main agent's model calls; ToolCalls its tool calls.
	Turns     int `json:"turns"`
	ToolCalls int `json:"tool_calls"`
	// Duration is how long the query took.
	Duration time.Duration `json:"duration"`
	// Err is why the query failed, nil when it succeeded.
	Err error `json:"-"`
}

// MessageType returns "result".
func (ResultMessage) MessageType() string { return "result" }

// IsError reports whether the query failed.
func (m ResultMessage) IsError() bool { return m.Err != nil }

// summary returns the first line of text, cut to maxSummary characters.
func summary(text string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(text), "\n")
	if r := []rune(line); len(r) > maxSummary {
		return string(r[:maxSummary-1]) + "…"
	}
	return line
}
