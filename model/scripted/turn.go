package scripted

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/offshoot-dev/offshoot/model"
)

// Turn is one scripted answer: a fixed response, a function of the
// request, or an error. Build turns with Text, JSON, ToolCall, ToolCalls,
// Reply, Func and Fail; route them with When; keep one in place with
// Repeat. A Turn is an immutable value.
type Turn struct {
	desc    string
	respond func(ctx context.Context, req *model.Request) (*model.Response, error)
	usage   *model.Usage
	repeat  bool

	// A route (When) has a matcher and its own turns instead of respond.
	match Matcher
	turns []Turn
}

// String describes the turn, as error messages show it.
func (t Turn) String() string {
	if t.match != nil {
		return fmt.Sprintf("when %s: %d turns", t.match, len(t.turns))
	}
	if t.repeat {
		return t.desc + " (repeated)"
	}
	return t.desc
}

// WithUsage returns t reporting usage u instead of the estimate.
func (t Turn) WithUsage(u model.Usage) Turn {
	t.usage = &u
	return t
}

// Text returns a turn that answers with the assistant text s and finish
// reason stop. Its usage is a deterministic estimate:
// InputTokensPerMessage per request message, and one output token per four
// bytes of the answer.
func Text(s string) Turn {
	return Turn{
		desc: "text " + quote(s, 40),
		respond: func(_ context.Context, req *model.Request) (*model.Response, error) {
			return estimated(req, &model.Response{
				Message:      model.Message{Role: model.RoleAssistant, Content: s},
				FinishReason: model.FinishStop,
			}), nil
		},
	}
}

// JSON returns a turn that answers with v encoded as JSON text, as a
// structured-output answer. A value that cannot be encoded makes the turn
// fail with the encoding error.
func JSON(v any) Turn {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return Fail(fmt.Errorf("scripted: JSON turn: %w", err))
	}
	b := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	t := Text(string(b))
	t.desc = "JSON " + quote(string(b), 40)
	return t
}

// ToolCall returns a turn in which the assistant calls the tool name with
// the raw JSON arguments argsJSON ("{}" when empty). See ToolCalls for ids.
func ToolCall(name, argsJSON string) Turn {
	return ToolCalls(model.ToolCall{Name: name, Arguments: argsJSON})
}

// ToolCalls returns a turn in which the assistant makes the given calls,
// with finish reason tool_calls. A call without an ID gets a deterministic
// one, "call_<number of request messages>_<index>", unique within a
// conversation whichever order parallel callers run in. Usage is
// estimated as for Text.
func ToolCalls(calls ...model.ToolCall) Turn {
	desc := "tool calls"
	for i, c := range calls {
		if i > 0 {
			desc += ","
		}
		desc += " " + c.Name
	}
	return Turn{
		desc: desc,
		respond: func(_ context.Context, req *model.Request) (*model.Response, error) {
			out := make([]model.ToolCall, len(calls))
			for i, c := range calls {
				if c.ID == "" {
					c.ID = "call_" + strconv.Itoa(len(req.Messages)) + "_" + strconv.Itoa(i)
				}
				if c.Arguments == "" {
					c.Arguments = "{}"
				}
				out[i] = c
			}
			return estimated(req, &model.Response{
				Message:      model.Message{Role: model.RoleAssistant, ToolCalls: out},
				FinishReason: model.FinishToolCalls,
			}), nil
		},
	}
}

// Reply returns a turn that answers with a copy of resp, exactly as given
// (apart from an empty role, which becomes assistant, and an empty model).
func Reply(resp *model.Response) Turn {
	fixed := resp.Clone()
	return Turn{
		desc: "reply",
		respond: func(context.Context, *model.Request) (*model.Response, error) {
			if fixed == nil {
				return nil, errors.New("scripted: Reply was given a nil response")
			}
			return fixed.Clone(), nil
		},
	}
}

// Func returns a turn computed from the request by fn. fn runs outside the
// model's lock, so it may block (honouring ctx) or call other models.
func Func(fn func(ctx context.Context, req *model.Request) (*model.Response, error)) Turn {
	return Turn{desc: "func", respond: fn}
}

// Fail returns a turn that returns err, for testing error paths (for
// example a *model.RateLimitError).
func Fail(err error) Turn {
	return Turn{
		desc:    "error " + quote(fmt.Sprint(err), 40),
		respond: func(context.Context, *model.Request) (*model.Response, error) { return nil, err },
	}
}

// Repeat returns t as a turn that is never used up: it answers every
// request that reaches it. For a route (When), the route's last turn
// repeats.
func Repeat(t Turn) Turn {
	t.repeat = true
	return t
}

// When returns a route: requests that m matches are answered by turns, in
// order, from the route's own queue. Routes are tried in the order given
// to New, before the turns given outside any route; a route whose turns
// are used up is skipped. A When nested in another When matches only
// when both matchers do, and is tried before its parent.
func When(m Matcher, turns ...Turn) Turn {
	return Turn{match: m, turns: turns}
}

// InputTokensPerMessage is the input usage scripted turns estimate for
// each message of a request.
const InputTokensPerMessage = 10

// estimated fills in a deterministic estimate of the usage: a fixed
// InputTokensPerMessage per request message (cheap: scripted models must
// not cost more as conversations grow), and one output token per four
// bytes of the reply.
func estimated(req *model.Request, resp *model.Response) *model.Response {
	out := len(resp.Message.Content)
	for _, c := range resp.Message.ToolCalls {
		out += len(c.Name) + len(c.Arguments)
	}
	resp.Usage = model.Usage{InputTokens: InputTokensPerMessage * len(req.Messages), OutputTokens: tokens(out)}
	resp.Usage.TotalTokens = resp.Usage.InputTokens + resp.Usage.OutputTokens
	return resp
}

func tokens(n int) int { return (n + 3) / 4 }
