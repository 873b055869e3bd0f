package openai

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	gopenai "github.com/sashabaranov/go-openai"
	"github.com/tidwall/gjson"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/internal/httpcall"
)

// maxToolCalls bounds the tool calls one streamed answer may make.
const maxToolCalls = 1024

// Stream sends req with "stream": true (and stream_options.include_usage)
// and calls fn with each piece of the answer as it arrives: text, and tool
// call fragments assembled by their index (a call's id and name come with
// its first fragment, its arguments across many; a call without an id gets
// model.FillToolCallIDs's). It returns the complete answer, mapped as
// Generate maps it, with the usage the server reports at the end.
//
// Failures before the answer starts are retried as for Generate; once the
// server has answered, nothing is. When the stream breaks, fn fails or ctx
// is done after pieces were delivered, Stream returns what was received
// (with an empty FinishReason) and the error — ctx's error, promptly, when
// ctx ended it. A stream that ends without a finish reason or [DONE], or
// whose answer has neither content nor tool calls, is a "response body
// invalid" *model.APIError. A server that answers with a
// whole chat completion instead of a stream is accepted: its answer is
// delivered as one text delta and one fragment per tool call.
func (m *Model) Stream(ctx context.Context, req *model.Request, fn func(model.Delta) error) (*model.Response, error) {
	if req == nil {
		return nil, errors.New("openai: Stream needs a request")
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
	return resp, m.callError(ctx, streamHint(err))
}

func (m *Model) stream(ctx context.Context, req *model.Request, fn func(model.Delta) error) (*model.Response, error) {
	body, out, err := m.chatRequest(req, true)
	if err != nil {
		return nil, err
	}
	resp, err := m.send(ctx, body, true)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt == "application/json" {
		return m.wholeAnswer(ctx, req, resp, out, fn)
	} else if mt == "text/html" {
		return nil, webPage(resp.StatusCode)
	}
	s := streamState{req: req, fn: fn, status: resp.StatusCode, now: m.cfg.Now, limit: maxBody, redact: m.redact}
	err = s.read(newEventReader(resp.Body))
	if err != nil {
		if cerr := ctx.Err(); cerr != nil {
			err = fmt.Errorf("openai: %w while streaming the answer: %w", cerr, err)
		}
		return s.partial(), err
	}
	return s.response(out), nil
}

// streamHint adds to the error of a streamed request that the server
// refused or answered unreadably how to turn streaming off, since some
// servers handle only whole answers well.
func streamHint(err error) error {
	var api *model.APIError
	if err == nil || !errors.As(err, &api) || errors.Is(err, model.ErrAuth) || errors.Is(err, model.ErrRateLimited) ||
		errors.Is(err, model.ErrQuota) || errors.Is(err, model.ErrContextLength) || errors.Is(err, model.ErrTimeout) ||
		api.StatusCode >= 500 || api.StatusCode == http.StatusNotFound {
		return err
	}
	return fmt.Errorf("%w; if this server mishandles streamed requests, turn streaming off (\"stream\": false in the model's configuration, or LLM_STREAM=false)", err)
}

// deliverWhole hands a whole answer to fn as a stream would, in pieces.
func deliverWhole(ctx context.Context, req *model.Request, answer *model.Response, fn func(model.Delta) error) (*model.Response, error) {
	return model.Stream(ctx, model.Func(func(context.Context, *model.Request) (*model.Response, error) {
		return answer, nil
	}), req, fn)
}

// wholeAnswer handles a server that ignored "stream": true.
func (m *Model) wholeAnswer(ctx context.Context, req *model.Request, resp *http.Response, out *outputMapping, fn func(model.Delta) error) (*model.Response, error) {
	cr, err := readCompletion(resp)
	if err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return nil, fmt.Errorf("openai: %w while reading the answer: %w", cerr, err)
		}
		return nil, err
	}
	answer, err := convertResponse(req, cr, out)
	if err != nil {
		return nil, err
	}
	return deliverWhole(ctx, req, answer, fn)
}

// streamState assembles a streamed answer and delivers its pieces.
type streamState struct {
	req    *model.Request
	fn     func(model.Delta) error
	status int
	now    func() time.Time
	redact func(string) string // hides secrets a server echoes

	text, refusal []byte
	content       bool // a delta had a content that is not null
	calls         []streamCall
	idPrefix      string // of the ids given to calls without one
	size          int    // bytes of text and arguments so far
	limit         int    // the most size may reach
	finish        string
	done          bool // [DONE] seen
	modelID       string
	answerID      string // the chunks' id
	usage         model.Usage
	delivered     bool
	events        int
}

// streamCall is a tool call being assembled.
type streamCall struct {
	index    int // the server's index; negative for servers that send none
	id, name string
	args     []byte
}

var doneMarker = []byte("[DONE]")

// read consumes the events until [DONE] or the end of the body.
func (s *streamState) read(r *httpcall.EventReader) error {
	for !s.done {
		data, err := r.Next()
		if errors.Is(err, io.EOF) {
			if s.finish == "" {
				return invalidBody(s.status, "the stream ended before the answer was complete (no finish reason, no [DONE])", io.ErrUnexpectedEOF)
			}
			break
		}
		if err != nil {
			return invalidBody(s.status, fmt.Sprintf("reading the stream failed after %d events: %v", s.events, err), err)
		}
		s.events++
		if err := s.event(data); err != nil {
			return err
		}
	}
	if !s.content && len(s.calls) == 0 && len(s.refusal) == 0 {
		return noAnswer(s.status, s.finish)
	}
	return nil
}

// event handles the data of one event: a chat.completion.chunk, [DONE],
// or an error the server reports in the stream.
func (s *streamState) event(data []byte) error {
	if string(data) == string(doneMarker) {
		s.done = true
		return nil
	}
	if !gjson.ValidBytes(data) {
		return invalidBody(s.status, fmt.Sprintf("event %d of the stream is not valid JSON: %q", s.events, truncate(string(data), 200)), nil)
	}
	var err error
	gjson.Parse(string(data)).ForEach(func(key, v gjson.Result) bool {
		switch key.Str {
		case "choices":
			v.ForEach(func(_, choice gjson.Result) bool {
				err = s.choice(choice)
				return err == nil
			})
		case "usage":
			if v.IsObject() {
				s.usage = model.Usage{
					InputTokens:  int(v.Get("prompt_tokens").Int()),
					OutputTokens: int(v.Get("completion_tokens").Int()),
					TotalTokens:  int(v.Get("total_tokens").Int()),
					// What the provider read from its prompt cache.
					CachedInputTokens: int(v.Get("prompt_tokens_details.cached_tokens").Int()),
				}
			}
		case "model":
			if s.modelID == "" {
				s.modelID = v.String()
			}
		case "id":
			if s.answerID == "" {
				s.answerID = v.String()
			}
		case "error":
			if v.Type != gjson.Null {
				err = s.streamError(v)
			}
		}
		return err == nil
	})
	return err
}

// choice handles a choice of a chunk; only the first (index 0) is asked
// for.
func (s *streamState) choice(choice gjson.Result) error {
	var delta, finish gjson.Result
	first := true
	choice.ForEach(func(key, v gjson.Result) bool {
		switch key.Str {
		case "index":
			first = v.Int() == 0
		case "delta":
			delta = v
		case "finish_reason":
			finish = v
		}
		return true
	})
	if !first {
		return nil
	}
	var err error
	delta.ForEach(func(key, v gjson.Result) bool {
		switch key.Str {
		case "content":
			s.content = s.content || v.Type != gjson.Null
			err = s.addText(&s.text, v.String())
		case "refusal":
			err = s.addText(&s.refusal, v.String())
		case "tool_calls":
			v.ForEach(func(_, frag gjson.Result) bool {
				err = s.addCall(frag)
				return err == nil
			})
		}
		return err == nil
	})
	if finish.Type == gjson.String && finish.Str != "" {
		s.finish = finish.Str
	}
	return err
}

func (s *streamState) grow(n int) error {
	s.size += n
	if s.size > s.limit {
		return invalidBody(s.status, fmt.Sprintf("the streamed answer is larger than %d MiB", s.limit>>20), nil)
	}
	return nil
}

func (s *streamState) addText(buf *[]byte, piece string) error {
	if piece == "" {
		return nil
	}
	if err := s.grow(len(piece)); err != nil {
		return err
	}
	*buf = append(*buf, piece...)
	s.delivered = true
	return s.deliver(model.Delta{Text: piece})
}

func (s *streamState) addCall(frag gjson.Result) error {
	id, fn := frag.Get("id").String(), frag.Get("function")
	name, argsR := fn.Get("name").String(), fn.Get("arguments")
	args := argsR.String()
	if argsR.IsObject() { // some servers send the arguments as an object
		args = argsR.Raw
	}
	pos, err := s.callFor(frag.Get("index"), id, name)
	if err != nil {
		return err
	}
	if err := s.grow(len(args)); err != nil {
		return err
	}
	c := &s.calls[pos]
	d := &model.ToolCallDelta{Index: pos, Arguments: args}
	if c.name == "" && name != "" {
		c.name, d.Name = name, name
	}
	if c.id == "" {
		c.id = id
		if c.id == "" {
			c.id = s.missingID(pos)
		}
		d.ID = c.id
	}
	c.args = append(c.args, args...)
	if d.ID == "" && d.Name == "" && d.Arguments == "" {
		return nil
	}
	s.delivered = true
	return s.deliver(model.Delta{ToolCall: d})
}

// missingID returns the id model.FillToolCallIDs gives the call at pos.
func (s *streamState) missingID(pos int) string {
	if s.idPrefix == "" {
		first := []model.ToolCall{{}}
		model.FillToolCallIDs(s.req, first)
		s.idPrefix = strings.TrimSuffix(first[0].ID, "0")
	}
	return s.idPrefix + strconv.Itoa(pos)
}

// callFor returns the position of the call a fragment belongs to, adding
// a call for a new one. Fragments are matched by index; for servers that
// send none, a fragment continues the last call unless it brings another
// id, or a name when the last call has one.
func (s *streamState) callFor(index gjson.Result, id, name string) (int, error) {
	n := len(s.calls)
	if index.Exists() {
		i := int(index.Int())
		for pos := range s.calls {
			if s.calls[pos].index == i {
				return pos, nil
			}
		}
		if i < 0 {
			i = -1 - n
		}
		return s.addSlot(i)
	}
	if n > 0 {
		last := &s.calls[n-1]
		if (id == "" || id == last.id) && (name == "" || last.name == "" || name == last.name && id == last.id) {
			return n - 1, nil
		}
	}
	return s.addSlot(-1 - n)
}

func (s *streamState) addSlot(index int) (int, error) {
	if len(s.calls) >= maxToolCalls {
		return 0, invalidBody(s.status, fmt.Sprintf("the streamed answer makes more than %d tool calls", maxToolCalls), nil)
	}
	s.calls = append(s.calls, streamCall{index: index})
	return len(s.calls) - 1, nil
}

func (s *streamState) deliver(d model.Delta) error {
	if err := s.fn(d); err != nil {
		return fmt.Errorf("openai: streaming stopped by the delta callback: %w", err)
	}
	return nil
}

// streamError maps an error the server sent inside the stream.
func (s *streamState) streamError(v gjson.Result) error {
	e := &model.APIError{Message: v.String()}
	var kind string
	if v.IsObject() {
		e.Message, kind = v.Get("message").String(), v.Get("type").String()
		if c := v.Get("code"); c.Exists() && c.Type != gjson.Null {
			e.Code = c.String()
		}
	}
	if e.Message == "" {
		e.Message = "the server reported an error in the stream: " + truncate(v.Raw, 500)
	}
	if s.redact != nil {
		e.Message = s.redact(e.Message)
	}
	return classify(e, kind, nil, s.now())
}

// reported is the usage the stream reported, marked unreported when it
// sent none.
func (s *streamState) reported() model.Usage {
	u := s.usage
	if u.InputTokens == 0 && u.OutputTokens == 0 && u.TotalTokens == 0 {
		u.Unreported = true
	}
	return u
}

// message returns the assistant message received so far.
func (s *streamState) message() model.Message {
	msg := model.Message{Role: model.RoleAssistant, Content: string(s.text)}
	if len(s.calls) > 0 {
		msg.ToolCalls = make([]model.ToolCall, len(s.calls))
		for i, c := range s.calls {
			msg.ToolCalls[i] = model.ToolCall{ID: c.id, Name: c.name, Arguments: string(c.args)}
		}
	}
	return msg
}

// response is the complete answer.
func (s *streamState) response(out *outputMapping) *model.Response {
	r := finish(s.req, s.message(), string(s.refusal), finishReason(gopenai.FinishReason(s.finish)), s.reported(), s.modelID, out)
	r.ID = s.answerID
	return r
}

// partial is what was received of an answer the stream did not complete,
// or nil when nothing was.
func (s *streamState) partial() *model.Response {
	if !s.delivered {
		return nil
	}
	msg := s.message()
	if msg.Content == "" {
		msg.Content = string(s.refusal)
	}
	return &model.Response{Message: msg, Usage: s.reported(), Model: s.modelID, ID: s.answerID}
}
