package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/tidwall/gjson"

	"github.com/offshoot-dev/offshoot/model"
)

// answer is an assistant message as it is read: from a whole message or
// assembled from a stream.
type answer struct {
	id, model, stop string
	text            []byte
	reasoning       []json.RawMessage
	calls           []model.ToolCall
	usage           usage
}

// usage is Anthropic's: input_tokens counts neither the tokens read from
// the cache nor those written to it.
type usage struct {
	input, read, write, output int
}

// fromJSON reads a usage object; fields it lacks keep their value (a
// stream's message_delta repeats only some).
func (u *usage) fromJSON(v gjson.Result) {
	v.ForEach(func(key, n gjson.Result) bool {
		switch key.Str {
		case "input_tokens":
			u.input = int(n.Int())
		case "cache_read_input_tokens":
			u.read = int(n.Int())
		case "cache_creation_input_tokens":
			u.write = int(n.Int())
		case "output_tokens":
			u.output = int(n.Int())
		}
		return true
	})
}

// model is the usage as offshoot counts it: every prompt token in
// InputTokens, of which CachedInputTokens were read from the cache and
// CacheWriteTokens written to it.
func (u usage) model() model.Usage {
	in := u.input + u.read + u.write
	return model.Usage{
		InputTokens:       in,
		CachedInputTokens: u.read,
		CacheWriteTokens:  u.write,
		OutputTokens:      u.output,
		TotalTokens:       in + u.output,
		Unreported:        in == 0 && u.output == 0,
	}
}

// message is the assistant message read so far.
func (a *answer) message() model.Message {
	return model.Message{Role: model.RoleAssistant, Content: string(a.text), ToolCalls: a.calls, Reasoning: a.reasoning}
}

// response is the complete answer to req.
func (a *answer) response(req *model.Request) *model.Response {
	msg := a.message()
	model.FillToolCallIDs(req, msg.ToolCalls)
	reason := finishReason(a.stop)
	if len(msg.ToolCalls) > 0 && (reason == model.FinishStop || reason == "") {
		reason = model.FinishToolCalls
	}
	return &model.Response{Message: msg, FinishReason: reason, Usage: a.usage.model(), Model: a.model, ID: a.id}
}

// finishReason maps Anthropic's stop reasons; pause_turn (a long turn the
// API paused: send the conversation again to let it go on) and any other
// pass through unchanged.
func finishReason(r string) model.FinishReason {
	switch sdk.StopReason(r) {
	case sdk.StopReasonEndTurn, sdk.StopReasonStopSequence:
		return model.FinishStop
	case sdk.StopReasonToolUse:
		return model.FinishToolCalls
	case sdk.StopReasonMaxTokens, sdk.StopReasonModelContextWindowExceeded:
		return model.FinishLength
	case sdk.StopReasonRefusal:
		return model.FinishRefusal
	}
	return model.FinishReason(r)
}

// readMessage reads and decodes a whole message answer.
func readMessage(resp *http.Response, redact func(string) string) (*answer, error) {
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	switch {
	case err != nil:
		return nil, invalidBody(resp.StatusCode, fmt.Sprintf("reading it failed after %d bytes: %v", len(data), err), err)
	case len(data) > maxBody:
		return nil, invalidBody(resp.StatusCode, fmt.Sprintf("it is larger than %d MiB", maxBody>>20), nil)
	}
	return parseMessage(resp.StatusCode, data, redact)
}

// maxBlocks bounds the content blocks of one answer.
const maxBlocks = 1024

// parseMessage decodes a message object: {"type":"message","content":[…],
// "stop_reason":…,"usage":{…}}. An error object is mapped as an error
// status would be.
func parseMessage(status int, data []byte, redact func(string) string) (*answer, error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, invalidBody(status, "the body is empty", io.ErrUnexpectedEOF)
	}
	if !gjson.ValidBytes(trimmed) || trimmed[0] != '{' {
		return nil, invalidBody(status, fmt.Sprintf("the body is not a message: %q", truncate(string(trimmed), 200)), nil)
	}
	v := gjson.ParseBytes(trimmed)
	if v.Get("type").Str == "error" {
		return nil, eventError(v.Get("error"), redact)
	}
	content := v.Get("content")
	if v.Get("type").Str != "message" || !content.IsArray() {
		return nil, invalidBody(status, fmt.Sprintf("the body is not a message (no \"content\" list): %q", truncate(string(trimmed), 200)), nil)
	}
	a := &answer{id: v.Get("id").String(), model: v.Get("model").String(), stop: v.Get("stop_reason").String()}
	a.usage.fromJSON(v.Get("usage"))
	var err error
	n := 0
	content.ForEach(func(_, blk gjson.Result) bool {
		if n++; n > maxBlocks {
			err = invalidBody(status, fmt.Sprintf("the message has more than %d content blocks", maxBlocks), nil)
			return false
		}
		switch blk.Get("type").Str {
		case "text":
			a.text = append(a.text, blk.Get("text").Str...)
		case "tool_use":
			input := blk.Get("input")
			args := "{}"
			if input.IsObject() {
				args = input.Raw
			}
			a.calls = append(a.calls, model.ToolCall{ID: blk.Get("id").Str, Name: blk.Get("name").Str, Arguments: args})
		case "thinking", "redacted_thinking":
			a.reasoning = append(a.reasoning, json.RawMessage(strings.Clone(blk.Raw)))
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	return a, nil
}

// eventError maps an error object the API sent in a body or a stream:
// {"type":"overloaded_error","message":"Overloaded"}.
func eventError(v gjson.Result, redact func(string) string) error {
	e := &model.APIError{Code: v.Get("type").String(), Message: v.Get("message").String()}
	if e.Message == "" {
		e.Message = "the server reported an error: " + truncate(v.Raw, 500)
	}
	if redact != nil {
		e.Message = redact(e.Message)
	}
	switch e.Code {
	case "overloaded_error":
		e.StatusCode = statusOverloaded
	case "api_error":
		e.StatusCode = http.StatusInternalServerError
	case "rate_limit_error":
		e.StatusCode = http.StatusTooManyRequests
	}
	return classify(e, nil, timeZero)
}
