package runner

import (
	"fmt"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/session"
)

// ConversationMessage is one message of an evaluation's conversation, as
// the runner records it in the session: the system message, the user
// message, earlier messages a request carried, every assistant reply with
// its tool calls, every tool result and every Inbound message delivered, in
// order. So a snapshot holds each conversation: MarshalSnapshot saves it,
// Conversation reads it back, and Request.Continue carries it on.
type ConversationMessage struct {
	// Evaluation is the id of the evaluation the message belongs to
	// (Response.Evaluation).
	Evaluation string `json:"evaluation"`
	model.Message
}

// Conversation returns the messages of the evaluation with the given id
// recorded in snap, in order, or nil when snap holds none. It reads the
// recorded messages twice (to count, then to copy) and allocates once.
func Conversation(snap session.Snapshot, evaluation string) []model.Message {
	recorded := session.SliceOfSnapshot[ConversationMessage](snap)
	n := 0
	for m := range recorded.All() {
		if m.Evaluation == evaluation {
			n++
		}
	}
	if n == 0 {
		return nil
	}
	out := make([]model.Message, 0, n)
	for m := range recorded.All() {
		if m.Evaluation == evaluation {
			out = append(out, m.Message)
		}
	}
	return out
}

// Evaluations returns the ids of the evaluations recorded in snap, in the
// order they started.
func Evaluations(snap session.Snapshot) []string {
	var out []string
	for r := range session.SliceOfSnapshot[PromptRendered](snap).All() {
		if r.Evaluation != "" && (len(out) == 0 || out[len(out)-1] != r.Evaluation) {
			out = append(out, r.Evaluation)
		}
	}
	return out
}

// continued returns the conversation of evaluation id to continue from: the
// recorded messages, less any tool call left without its result (the
// evaluation stopped before running it), which no provider would accept.
func continued(s *session.Session, id string) ([]model.Message, error) {
	msgs := Conversation(s.Snapshot(), id)
	if len(msgs) == 0 {
		return nil, fmt.Errorf("runner: session %s holds no evaluation %q to continue; pass the Evaluation of an earlier Response on this session (or on the session it was restored from)", s.ID(), id)
	}
	return repairToolCalls(msgs), nil
}

// repairToolCalls drops the tool calls that no tool message answers, and
// an assistant message left with neither text nor calls. It filters msgs
// in place (the caller owns the slice, not the tool calls it shares with
// the session) and returns it unchanged when every call has its answer.
func repairToolCalls(msgs []model.Message) []model.Message {
	answered := map[string]bool{}
	for _, m := range msgs {
		if m.Role == model.RoleTool {
			answered[m.ToolCallID] = true
		}
	}
	if allAnswered(msgs, answered) {
		return msgs
	}
	out := msgs[:0]
	for _, m := range msgs {
		if m.Role == model.RoleAssistant && len(m.ToolCalls) > 0 {
			calls := m.ToolCalls[:0:0]
			for _, c := range m.ToolCalls {
				if answered[c.ID] {
					calls = append(calls, c)
				}
			}
			if len(calls) != len(m.ToolCalls) {
				m.ToolCalls = calls
				if len(calls) == 0 && m.Content == "" {
					continue
				}
			}
		}
		out = append(out, m)
	}
	return out
}

// allAnswered reports whether every tool call in msgs has its answer.
func allAnswered(msgs []model.Message, answered map[string]bool) bool {
	for _, m := range msgs {
		for _, c := range m.ToolCalls {
			if !answered[c.ID] {
				return false
			}
		}
	}
	return true
}
