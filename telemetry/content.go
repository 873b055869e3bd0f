package telemetry

import (
	"encoding/json"

	"github.com/offshoot-dev/offshoot/model"
)

// What Options.RecordContent records, in the JSON shapes the GenAI
// conventions give gen_ai.input.messages, gen_ai.output.messages and
// gen_ai.system_instructions: messages of typed parts.

// contentMessage is one message of a conversation.
type contentMessage struct {
	Role         string        `json:"role"`
	Parts        []contentPart `json:"parts"`
	FinishReason string        `json:"finish_reason,omitempty"`
}

// contentPart is text, a tool call, or a tool call's response.
type contentPart struct {
	Type      string          `json:"type"`
	Content   string          `json:"content,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Response  string          `json:"response,omitempty"`
}

// contentOf returns m as the conventions write a message.
func contentOf(m model.Message) contentMessage {
	if m.Role == model.RoleTool {
		return contentMessage{Role: string(m.Role), Parts: []contentPart{{Type: "tool_call_response", ID: m.ToolCallID, Response: m.Content}}}
	}
	out := contentMessage{Role: string(m.Role), Parts: make([]contentPart, 0, 1+len(m.ToolCalls))}
	if m.Content != "" {
		out.Parts = append(out.Parts, contentPart{Type: "text", Content: m.Content})
	}
	for _, c := range m.ToolCalls {
		out.Parts = append(out.Parts, contentPart{Type: "tool_call", ID: c.ID, Name: c.Name, Arguments: arguments(c.Arguments)})
	}
	return out
}

// arguments returns a call's arguments as JSON: as they are when they are
// valid JSON, as a JSON string otherwise.
func arguments(args string) json.RawMessage {
	if json.Valid([]byte(args)) {
		return json.RawMessage(args)
	}
	s, _ := json.Marshal(args)
	return s
}

// messagesJSON returns msgs as a JSON array.
func messagesJSON(msgs []contentMessage) string {
	if msgs == nil {
		msgs = []contentMessage{}
	}
	b, err := json.Marshal(msgs)
	if err != nil {
		return "[]"
	}
	return string(b)
}

// instructionsJSON returns a system prompt as gen_ai.system_instructions
// writes it: one text part.
func instructionsJSON(text string) string {
	b, _ := json.Marshal([]contentPart{{Type: "text", Content: text}})
	return string(b)
}

// finishReason returns an output message's finish_reason in the
// conventions' words.
func finishReason(r model.FinishReason) string {
	switch r {
	case "":
		return ""
	case model.FinishToolCalls:
		return "tool_call"
	}
	return string(r)
}

// finalAnswer returns an evaluation's answer: its last assistant message,
// or text, the final text records made before the runner left it out of
// PromptExecuted carry.
func finalAnswer(msgs []contentMessage, text string) (contentMessage, bool) {
	if text != "" {
		return contentMessage{Role: "assistant", Parts: []contentPart{{Type: "text", Content: text}}, FinishReason: "stop"}, true
	}
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == string(model.RoleAssistant) {
			answer := msgs[i]
			answer.FinishReason = "stop"
			return answer, true
		}
	}
	return contentMessage{}, false
}
