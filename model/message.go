package model

import (
	"encoding/json"
	"slices"
)

// Role says who wrote a message.
type Role string

// The roles of a conversation.
const (
	// RoleSystem is the instructions that frame the conversation.
	RoleSystem Role = "system"
	// RoleUser is the user's (or the calling program's) turn.
	RoleUser Role = "user"
	// RoleAssistant is the model's turn: text and/or tool calls.
	RoleAssistant Role = "assistant"
	// RoleTool is the result of one tool call, answering ToolCallID.
	RoleTool Role = "tool"
)

// Valid reports whether r is one of the four roles.
func (r Role) Valid() bool {
	switch r {
	case RoleSystem, RoleUser, RoleAssistant, RoleTool:
		return true
	}
	return false
}

// Message is one turn of a conversation.
type Message struct {
	// Role says who wrote the message.
	Role Role `json:"role"`
	// Content is the text of the message. For a tool message it is the
	// result the model sees.
	Content string `json:"content,omitempty"`
	// ToolCalls are the calls an assistant message makes.
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// ToolCallID is, for a tool message, the id of the call it answers.
	ToolCallID string `json:"tool_call_id,omitempty"`
	// Name is an optional author name (user, assistant), or for a tool
	// message the name of the tool that produced it (informational: not
	// every provider sends it).
	Name string `json:"name,omitempty"`
	// Failed is set on a tool message whose call failed (an unknown
	// tool, invalid arguments, an error of the tool): its Content says
	// why. Providers that take the flag (Anthropic's is_error) are told.
	Failed bool `json:"failed,omitempty"`
	// Reasoning is, in an assistant message, the model's reasoning before
	// its answer exactly as the provider sent it (for Anthropic, the
	// thinking and redacted_thinking blocks with their signatures): an
	// adapter for that provider sends it back unchanged, as the provider
	// requires within a tool loop; others leave it out. It is the
	// provider's data: show it, never parse it for decisions.
	Reasoning []json.RawMessage `json:"reasoning,omitempty"`
	// Cache asks a provider that caches prompts by breakpoints (Anthropic)
	// to cache the conversation up to and including this message, so
	// that later requests which begin with it read it at a fraction of
	// the price: a program's own mark, beside those an adapter places by
	// rule (see model/anthropic). Providers that cache on their own
	// ignore it.
	Cache bool `json:"cache,omitempty"`
}

// ToolCall is the model's request to call one tool.
type ToolCall struct {
	// ID identifies the call; the tool message answering it carries it as
	// ToolCallID.
	ID string `json:"id"`
	// Name is the tool's name.
	Name string `json:"name"`
	// Arguments is the raw JSON text of the arguments object, exactly as
	// the model produced it (it may be malformed: validate before use).
	Arguments string `json:"arguments"`
}

// SystemMessage returns a system message with the given text.
func SystemMessage(text string) Message { return Message{Role: RoleSystem, Content: text} }

// UserMessage returns a user message with the given text.
func UserMessage(text string) Message { return Message{Role: RoleUser, Content: text} }

// AssistantMessage returns an assistant message with text and tool calls.
func AssistantMessage(text string, calls ...ToolCall) Message {
	return Message{Role: RoleAssistant, Content: text, ToolCalls: calls}
}

// ToolMessage returns the tool message answering the call with id callID
// made to the tool name.
func ToolMessage(callID, name, content string) Message {
	return Message{Role: RoleTool, ToolCallID: callID, Name: name, Content: content}
}

// Clone returns a copy of m that shares no slices with it.
func (m Message) Clone() Message {
	m.ToolCalls = slices.Clone(m.ToolCalls)
	if m.Reasoning != nil {
		r := make([]json.RawMessage, len(m.Reasoning))
		for i, b := range m.Reasoning {
			r[i] = slices.Clone(b)
		}
		m.Reasoning = r
	}
	return m
}

// Clone returns a copy of r that shares no slices with it, so it can be kept
// after the caller reuses or mutates its own request.
func (r *Request) Clone() *Request {
	if r == nil {
		return nil
	}
	c := *r
	c.Messages = make([]Message, len(r.Messages))
	for i, m := range r.Messages {
		c.Messages[i] = m.Clone()
	}
	if r.Messages == nil {
		c.Messages = nil
	}
	c.Tools = slices.Clone(r.Tools)
	for i := range c.Tools {
		c.Tools[i].Parameters = slices.Clone(c.Tools[i].Parameters)
	}
	if r.Output != nil {
		o := *r.Output
		o.Schema = slices.Clone(o.Schema)
		c.Output = &o
	}
	c.Temperature = clonePtr(r.Temperature)
	c.TopP = clonePtr(r.TopP)
	c.Seed = clonePtr(r.Seed)
	c.Stop = slices.Clone(r.Stop)
	return &c
}

// Clone returns a copy of r that shares no slices with it.
func (r *Response) Clone() *Response {
	if r == nil {
		return nil
	}
	c := *r
	c.Message = r.Message.Clone()
	return &c
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}
