package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/internal/httpcall"
)

// timeZero is the time an error read from a body is classified at: it
// carries no retry-after date to compare with.
var timeZero time.Time

// Stream sends req with "stream": true and calls fn with each piece of
// the answer as it arrives: text, thinking (Delta.Thinking) and tool call
// fragments (a call's id and name with its first fragment, its input JSON
// across many). It returns the complete answer, as Generate would, with
// the usage of message_start and message_delta.
//
// Failures before the answer starts are retried as for Generate; once the
// server has answered, nothing is. When the stream breaks, fn fails or ctx
// is done after pieces were delivered, Stream returns what was received
// (with an empty FinishReason) and the error. A stream that ends before
// message_stop is a "response body invalid" *model.APIError; an error
// event (overloaded, say) is mapped as an error status is.
func (m *Model) Stream(ctx context.Context, req *model.Request, fn func(model.Delta) error) (*model.Response, error) {
	if req == nil {
		return nil, errors.New("anthropic: Stream needs a request")
	}
	if fn == nil {
		fn = func(model.Delta) error { return nil }
	}
	ctx, cancel := m.bound(ctx)
	defer cancel()
	if m.cfg.NoStream {
		answer, err := m.generate(ctx, req)
		if err != nil {
			return nil, m.callError(ctx, err)
		}
		resp, err := deliverWhole(ctx, req, answer, fn)
		return resp, m.callError(ctx, err)
	}
	resp, err := m.stream(ctx, req, fn)
	return resp, m.callError(ctx, err)
}

func (m *Model) stream(ctx context.Context, req *model.Request, fn func(model.Delta) error) (*model.Response, error) {
	body, err := m.render(req, true)
	if err != nil {
		return nil, err
	}
	resp, err := m.send(ctx, body, true)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt == "application/json" {
		a, err := readMessage(resp, m.redact)
		if err != nil {
			return nil, err
		}
		return deliverWhole(ctx, req, a.response(req), fn)
	}
	s := streamState{req: req, fn: fn, status: resp.StatusCode, limit: maxBody, redact: m.redact}
	if err := s.read(newEventReader(resp.Body)); err != nil {
		if cerr := ctx.Err(); cerr != nil {
			err = fmt.Errorf("anthropic: %w while streaming the answer: %w", cerr, err)
		}
		return s.partial(), err
	}
	return s.answer.response(req), nil
}

// deliverWhole hands a whole answer to fn as a stream would, in pieces.
func deliverWhole(ctx context.Context, req *model.Request, answer *model.Response, fn func(model.Delta) error) (*model.Response, error) {
	return model.Stream(ctx, model.Func(func(context.Context, *model.Request) (*model.Response, error) {
		return answer, nil
	}), req, fn)
}

// streamState assembles a streamed answer and delivers its pieces.
type streamState struct {
	req    *model.Request
	fn     func(model.Delta) error
	status int
	redact func(string) string
	limit  int // the most size may reach

	answer    answer
	blocks    []streamBlock
	size      int
	done      bool // message_stop seen
	delivered bool
	events    int
}

// streamBlock is a content block being assembled.
type streamBlock struct {
	index int    // the server's index
	kind  string // text, tool_use, thinking, redacted_thinking, or other
	call  int    // the position in answer.calls of a tool_use block
	args  []byte
	// thinking and signature of a thinking block.
	thinking, signature []byte
}

// read consumes the events until message_stop or the end of the body.
func (s *streamState) read(r *httpcall.EventReader) error {
	for !s.done {
		data, err := r.Next()
		if errors.Is(err, io.EOF) {
			return invalidBody(s.status, "the stream ended before the answer was complete (no message_stop)", io.ErrUnexpectedEOF)
		}
		if err != nil {
			return invalidBody(s.status, fmt.Sprintf("reading the stream failed after %d events: %v", s.events, err), err)
		}
		s.events++
		if err := s.event(data); err != nil {
			return err
		}
	}
	return nil
}

// event handles the data of one event.
func (s *streamState) event(data []byte) error {
	if !gjson.ValidBytes(data) {
		return invalidBody(s.status, fmt.Sprintf("event %d of the stream is not valid JSON: %q", s.events, truncate(string(data), 200)), nil)
	}
	v := gjson.ParseBytes(data)
	switch v.Get("type").Str {
	case "message_start":
		msg := v.Get("message")
		s.answer.id, s.answer.model = msg.Get("id").String(), msg.Get("model").String()
		s.answer.usage.fromJSON(msg.Get("usage"))
	case "content_block_start":
		return s.start(v.Get("index"), v.Get("content_block"))
	case "content_block_delta":
		return s.delta(v.Get("index"), v.Get("delta"))
	case "content_block_stop":
		return s.stop(v.Get("index"))
	case "message_delta":
		if r := v.Get("delta.stop_reason"); r.Type == gjson.String {
			s.answer.stop = r.Str
		}
		s.answer.usage.fromJSON(v.Get("usage"))
	case "message_stop":
		s.done = true
	case "error":
		return eventError(v.Get("error"), s.redact)
	}
	return nil
}

func (s *streamState) grow(n int) error {
	s.size += n
	if s.size > s.limit {
		return invalidBody(s.status, fmt.Sprintf("the streamed answer is larger than %d MiB", s.limit>>20), nil)
	}
	return nil
}

// block returns the block the server's index names.
func (s *streamState) block(index gjson.Result) (*streamBlock, error) {
	i := int(index.Int())
	for k := len(s.blocks) - 1; k >= 0; k-- {
		if s.blocks[k].index == i {
			return &s.blocks[k], nil
		}
	}
	return nil, invalidBody(s.status, fmt.Sprintf("event %d of the stream adds to content block %d, which did not start", s.events, i), nil)
}

func (s *streamState) start(index, cb gjson.Result) error {
	if len(s.blocks) >= maxBlocks {
		return invalidBody(s.status, fmt.Sprintf("the streamed answer has more than %d content blocks", maxBlocks), nil)
	}
	if !index.Exists() {
		return invalidBody(s.status, fmt.Sprintf("event %d of the stream starts a content block without an index", s.events), nil)
	}
	b := streamBlock{index: int(index.Int()), kind: cb.Get("type").Str, call: -1}
	switch b.kind {
	case "text":
		s.blocks = append(s.blocks, b)
		return s.text(cb.Get("text").Str)
	case "tool_use":
		if err := s.grow(len(cb.Raw)); err != nil {
			return err
		}
		id := cb.Get("id").Str
		if id == "" {
			first := []model.ToolCall{{}}
			model.FillToolCallIDs(s.req, first)
			id = strings.TrimSuffix(first[0].ID, "0") + strconv.Itoa(len(s.answer.calls))
		}
		b.call = len(s.answer.calls)
		s.answer.calls = append(s.answer.calls, model.ToolCall{ID: id, Name: cb.Get("name").Str})
		s.blocks = append(s.blocks, b)
		s.delivered = true
		return s.deliver(model.Delta{ToolCall: &model.ToolCallDelta{Index: b.call, ID: id, Name: cb.Get("name").Str}})
	case "thinking":
		s.blocks = append(s.blocks, b)
		return s.think(&s.blocks[len(s.blocks)-1], cb.Get("thinking").Str)
	case "redacted_thinking":
		if err := s.grow(len(cb.Raw)); err != nil {
			return err
		}
		s.answer.reasoning = append(s.answer.reasoning, json.RawMessage(cb.Raw))
	}
	s.blocks = append(s.blocks, b)
	return nil
}

func (s *streamState) delta(index, d gjson.Result) error {
	b, err := s.block(index)
	if err != nil {
		return err
	}
	switch d.Get("type").Str {
	case "text_delta":
		return s.text(d.Get("text").Str)
	case "input_json_delta":
		if b.kind != "tool_use" {
			return nil
		}
		piece := d.Get("partial_json").Str
		if err := s.grow(len(piece)); err != nil {
			return err
		}
		b.args = append(b.args, piece...)
		if piece == "" {
			return nil
		}
		return s.deliver(model.Delta{ToolCall: &model.ToolCallDelta{Index: b.call, Arguments: piece}})
	case "thinking_delta":
		return s.think(b, d.Get("thinking").Str)
	case "signature_delta":
		sig := d.Get("signature").Str
		if err := s.grow(len(sig)); err != nil {
			return err
		}
		b.signature = append(b.signature, sig...)
	}
	return nil
}

// stop completes a block: a tool call's input, a thinking block kept as
// the API will want it back.
func (s *streamState) stop(index gjson.Result) error {
	b, err := s.block(index)
	if err != nil {
		return err
	}
	switch b.kind {
	case "tool_use":
		args := string(b.args)
		if strings.TrimSpace(args) == "" {
			args = "{}"
		}
		s.answer.calls[b.call].Arguments = args
	case "thinking":
		raw, err := json.Marshal(struct {
			Type      string `json:"type"`
			Thinking  string `json:"thinking"`
			Signature string `json:"signature"`
		}{"thinking", string(b.thinking), string(b.signature)})
		if err != nil {
			return invalidBody(s.status, "a thinking block cannot be kept: "+err.Error(), err)
		}
		s.answer.reasoning = append(s.answer.reasoning, raw)
	}
	return nil
}

func (s *streamState) text(piece string) error {
	if piece == "" {
		return nil
	}
	if err := s.grow(len(piece)); err != nil {
		return err
	}
	s.answer.text = append(s.answer.text, piece...)
	s.delivered = true
	return s.deliver(model.Delta{Text: piece})
}

func (s *streamState) think(b *streamBlock, piece string) error {
	if piece == "" {
		return nil
	}
	if err := s.grow(len(piece)); err != nil {
		return err
	}
	b.thinking = append(b.thinking, piece...)
	return s.deliver(model.Delta{Thinking: piece})
}

func (s *streamState) deliver(d model.Delta) error {
	if err := s.fn(d); err != nil {
		return fmt.Errorf("anthropic: streaming stopped by the delta callback: %w", err)
	}
	return nil
}

// partial is what was received of an answer the stream did not complete,
// or nil when nothing was.
func (s *streamState) partial() *model.Response {
	if !s.delivered {
		return nil
	}
	msg := s.answer.message()
	msg.Reasoning = nil // an unfinished thinking block cannot be sent back
	return &model.Response{Message: msg, Usage: s.answer.usage.model(), Model: s.answer.model, ID: s.answer.id}
}
