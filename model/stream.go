package model

import (
	"context"
	"errors"
	"strconv"
)

// Streamer is implemented by models that can deliver an answer while they
// generate it. It is optional, like io.WriterTo beside io.Reader: every
// Model works with Stream, which uses a model's Stream method when it has
// one and falls back to Generate otherwise.
type Streamer interface {
	// Stream generates the answer to req as Generate does, calling fn with
	// each piece of it, in order, on the caller's goroutine, as the pieces
	// arrive; then it returns the complete Response, with usage.
	//
	// Concatenating the Text of the deltas gives the text as the provider
	// generated it; the Response may rewrite it (a structured answer is
	// mapped back to the caller's schema, as with Generate). Each tool call
	// arrives as fragments that share an Index; its ID and Name come with
	// its first fragment.
	//
	// If fn returns an error, generation stops and Stream returns that
	// error. A call that fails after pieces were delivered (fn's error, ctx
	// done, a broken stream) is never retried: Stream returns a Response
	// holding what was received, with an empty FinishReason, together with
	// the error. Before the first piece it may retry as Generate does.
	Stream(ctx context.Context, req *Request, fn func(Delta) error) (*Response, error)
}

// Delta is one piece of a streamed answer: a piece of the assistant's text,
// of its reasoning, or a fragment of one of its tool calls.
type Delta struct {
	// Text is the next piece of the assistant's text; empty in a tool-call
	// fragment.
	Text string `json:"text,omitempty"`
	// Thinking is the next piece of the model's reasoning, for a display
	// (shown dimmed by the offshoot command), where the provider streams
	// it (Anthropic's extended thinking). The answer's Message keeps the
	// reasoning in Reasoning.
	Thinking string `json:"thinking,omitempty"`
	// ToolCall is a fragment of a tool call; nil in a piece of text.
	ToolCall *ToolCallDelta `json:"tool_call,omitempty"`
}

// ToolCallDelta is a fragment of a tool call in a streamed answer.
type ToolCallDelta struct {
	// Index is the call's position in the answer's Message.ToolCalls.
	Index int `json:"index"`
	// ID and Name are the call's id and tool name, set in its first
	// fragment only.
	ID   string `json:"id,omitempty"`
	Name string `json:"name,omitempty"`
	// Arguments is the next piece of the call's arguments, JSON text.
	Arguments string `json:"arguments,omitempty"`
}

// Stream asks m to answer req and calls fn with the answer's pieces as
// they arrive. When m is a Streamer, it calls m.Stream. Otherwise it calls
// m.Generate and then delivers the whole answer at once: its text as one
// delta, then each tool call as one fragment. A nil fn receives nothing.
// It returns what the model returned; an error of fn stops the delivery
// and is returned with the response.
func Stream(ctx context.Context, m Model, req *Request, fn func(Delta) error) (*Response, error) {
	if m == nil {
		return nil, errors.New("model: Stream needs a model")
	}
	if fn == nil {
		fn = func(Delta) error { return nil }
	}
	if s, ok := m.(Streamer); ok {
		return s.Stream(ctx, req, fn)
	}
	resp, err := m.Generate(ctx, req)
	if err != nil || resp == nil {
		return resp, err
	}
	if resp.Message.Content != "" {
		if err := fn(Delta{Text: resp.Message.Content}); err != nil {
			return resp, err
		}
	}
	for i, c := range resp.Message.ToolCalls {
		if err := fn(Delta{ToolCall: &ToolCallDelta{Index: i, ID: c.ID, Name: c.Name, Arguments: c.Arguments}}); err != nil {
			return resp, err
		}
	}
	return resp, nil
}

// FillToolCallIDs gives every call in calls that has no ID the id
// "call_<turn>_<i>", where turn is the number of this model call in req's
// conversation (one more than its assistant messages) and i the call's
// index in calls. Some servers omit the ids; without them the tool results
// answering the calls could not be sent back. The ids are deterministic,
// so a recorded conversation replays, and distinct within a conversation.
func FillToolCallIDs(req *Request, calls []ToolCall) {
	turn := 0
	for i := range calls {
		if calls[i].ID != "" {
			continue
		}
		if turn == 0 {
			turn = 1
			if req != nil {
				for _, m := range req.Messages {
					if m.Role == RoleAssistant {
						turn++
					}
				}
			}
		}
		calls[i].ID = "call_" + strconv.Itoa(turn) + "_" + strconv.Itoa(i)
	}
}
