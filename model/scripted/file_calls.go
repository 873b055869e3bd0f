package scripted

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/offshoot-dev/offshoot/model"
)

// This file reads a turn of tool calls, and the text that may go with them.

// toolCallsTurn reads "tool_calls", with "text" when the turn has one.
func (p *scriptParser) toolCallsTurn(f map[string]scriptSpan, field string) (Turn, error) {
	path := scriptPath(field, "tool_calls")
	els, err := p.list(f["tool_calls"], path, `must be a list of calls, such as [{"name": "read_file", "arguments": {"file_path": "a.go"}}]`)
	if err != nil {
		return Turn{}, err
	}
	if len(els) == 0 {
		return Turn{}, p.fail(f["tool_calls"], path, `is empty; give at least one call, or answer with "text" instead`)
	}
	calls := make([]model.ToolCall, 0, len(els))
	for i, el := range els {
		c, err := p.toolCall(el, fmt.Sprintf("%s[%d]", path, i))
		if err != nil {
			return Turn{}, err
		}
		calls = append(calls, c)
	}
	text, hasText := f["text"]
	if !hasText {
		return ToolCalls(calls...), nil
	}
	s, err := p.str(text, scriptPath(field, "text"))
	if err != nil {
		return Turn{}, err
	}
	return textAndCalls(s, calls), nil
}

// textAndCalls is a turn that answers with text and tool calls together.
// Like ToolCalls it gives a call without an id "call_<number of request
// messages>_<index>", and like Text it estimates the usage:
// InputTokensPerMessage per request message, one output token per four
// bytes of the text and the calls.
func textAndCalls(text string, calls []model.ToolCall) Turn {
	return Func(func(_ context.Context, req *model.Request) (*model.Response, error) {
		out := slices.Clone(calls)
		size := len(text)
		for i := range out {
			if out[i].ID == "" {
				out[i].ID = fmt.Sprintf("call_%d_%d", len(req.Messages), i)
			}
			size += len(out[i].Name) + len(out[i].Arguments)
		}
		in := InputTokensPerMessage * len(req.Messages)
		outTokens := (size + 3) / 4
		return &model.Response{
			Message:      model.AssistantMessage(text, out...),
			FinishReason: model.FinishToolCalls,
			Usage:        model.Usage{InputTokens: in, OutputTokens: outTokens, TotalTokens: in + outTokens},
		}, nil
	})
}

func (p *scriptParser) toolCall(v scriptSpan, field string) (model.ToolCall, error) {
	ms, err := p.object(v, field, `must be an object such as {"name": "read_file", "arguments": {"file_path": "a.go"}}`)
	if err != nil {
		return model.ToolCall{}, err
	}
	var c model.ToolCall
	for _, m := range ms {
		path := scriptPath(field, m.key)
		switch m.key {
		case "name":
			if c.Name, err = p.str(m.val, path); err != nil {
				return model.ToolCall{}, err
			}
			if strings.TrimSpace(c.Name) == "" {
				return model.ToolCall{}, p.fail(m.val, path, "is empty; give the name of the tool to call")
			}
		case "id":
			if c.ID, err = p.str(m.val, path); err != nil {
				return model.ToolCall{}, err
			}
		case "arguments":
			switch scriptFirst(m.val.raw) {
			case '{':
				var b bytes.Buffer
				if err := json.Compact(&b, m.val.raw); err != nil {
					return model.ToolCall{}, p.fail(m.val, path, "not valid JSON: %v", err)
				}
				c.Arguments = b.String()
			case '"':
				if c.Arguments, err = p.str(m.val, path); err != nil {
					return model.ToolCall{}, err
				}
			default:
				return model.ToolCall{}, p.fail(m.val, path, `must be a JSON object, or a string holding the raw arguments (such as "{\"path\": 1"), not %s`, scriptKind(m.val.raw))
			}
		default:
			return model.ToolCall{}, p.fail(m.val, path, `unknown key; a tool call has "name", "arguments" and "id"`)
		}
	}
	if c.Name == "" {
		return model.ToolCall{}, p.fail(v, scriptPath(field, "name"), "missing; give the name of the tool to call")
	}
	return c, nil
}
