// Package scripted provides deterministic models for tests, examples and
// demos — it is to model.Model what net/http/httptest is to net/http.
//
// New builds a Model from a script of turns: fixed responses (Text, JSON,
// ToolCall, Reply), functions of the request (Func) or errors (Fail).
// Turns are served in order, and When routes requests by what they contain
// (SystemContains, LastUserContains, HasToolResult, …) to queues of their
// own, so subagents running in parallel get their answers whatever order
// they arrive in. A request the script did not expect is an error matching
// ErrUnexpectedRequest that says what the script had and summarizes the
// request. Models, recorders and replayers are model.Streamers: Stream
// delivers an answer in deterministic pieces (word by word, or as
// SetChunking says, with an optional pause for demos).
//
// Record wraps any Model and writes every request/response pair to a JSONL
// cassette; Replay serves a cassette back, matching each request by the
// SHA-256 of its canonical JSON rather than by position, so parallel
// callers replay deterministically.
package scripted

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/offshoot-dev/offshoot/model"
)

// Model is a scripted model.Model. It is safe for concurrent use.
type Model struct {
	mu       sync.Mutex
	routes   []*queue
	inline   *queue
	calls    callLog
	seq      int // calls started
	chunking Chunking
	name     string // see Named; "" for defaultName
}

// callLog stores calls in fixed-size chunks, so that recording stays cheap
// however many calls a long run makes (no copying of a growing slice).
type callLog struct {
	chunks [][]Call
	n      int
}

const callChunk = 256

func (l *callLog) add(c Call) {
	if len(l.chunks) == 0 || len(l.chunks[len(l.chunks)-1]) == callChunk {
		l.chunks = append(l.chunks, make([]Call, 0, callChunk))
	}
	last := len(l.chunks) - 1
	l.chunks[last] = append(l.chunks[last], c)
	l.n++
}

func (l *callLog) all() []Call {
	out := make([]Call, 0, l.n)
	for _, c := range l.chunks {
		out = append(out, c...)
	}
	return out
}

var (
	_ model.Model     = (*Model)(nil)
	_ model.Streamer  = (*Model)(nil)
	_ model.Describer = (*Model)(nil)
)

// defaultName is what a scripted model is called unless Named says
// otherwise: its model id, the one its answers carry when the request
// names none; and its provider.
const defaultName = "scripted"

// Named sets the model id m describes itself by (Describe) and its answers
// carry when the request names none, "scripted" by default — so that a
// test or a demo can tell its models apart as a user's configured models
// are ("gpt-4.1", "gpt-4.1-mini"). It returns m.
func (m *Model) Named(id string) *Model {
	m.mu.Lock()
	m.name = id
	m.mu.Unlock()
	return m
}

// Describe says what m is: the model "scripted" (or Named's id), of the
// provider "scripted", on no server.
func (m *Model) Describe() model.Description {
	return model.Description{ID: m.id(), Provider: defaultName}
}

func (m *Model) id() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.name == "" {
		return defaultName
	}
	return m.name
}

// Call records one call to a scripted Model, for assertions.
type Call struct {
	// Request is a shallow copy of the request as passed: its messages are
	// those at call time as long as the caller only appends to its slice.
	Request *model.Request
	// Response is a copy of the response returned, nil on error.
	Response *model.Response
	// Err is the error returned, if any.
	Err error
	// Route says which queue answered: "in order", or "when <matcher>".
	// Empty for an unexpected request.
	Route string
}

// queue is the ordered turns of one route, or of the inline script.
type queue struct {
	match Matcher // nil for the inline queue
	label string  // "in order" or "when <matcher>"
	turns []Turn
	next  int
}

func (q *queue) name() string { return q.label }

func (q *queue) ready() bool { return q.next < len(q.turns) }

func (q *queue) pop() Turn {
	t := q.turns[q.next]
	if !t.repeat {
		q.next++
	}
	return t
}

// New returns a Model that answers with turns. Plain turns are served in
// the order given; routes (When) are tried first, in the order given, each
// serving its own turns in order. See When and Repeat.
func New(turns ...Turn) *Model {
	m := &Model{inline: &queue{label: "in order"}}
	for _, t := range turns {
		if t.match != nil {
			m.addRoute(t.match, t.turns, t.repeat)
			continue
		}
		m.inline.turns = append(m.inline.turns, t)
	}
	return m
}

func (m *Model) addRoute(match Matcher, turns []Turn, repeatLast bool) {
	q := &queue{match: match, label: "when " + match.String()}
	for _, t := range turns {
		if t.match != nil {
			m.addRoute(All(match, t.match), t.turns, t.repeat)
			continue
		}
		q.turns = append(q.turns, t)
	}
	if repeatLast && len(q.turns) > 0 {
		q.turns[len(q.turns)-1].repeat = true
	}
	m.routes = append(m.routes, q)
}

// Generate answers req with the next turn of the first route that matches
// it and has turns left, or else with the next inline turn. With no turn
// left for it, it returns an error matching ErrUnexpectedRequest.
func (m *Model) Generate(ctx context.Context, req *model.Request) (*model.Response, error) {
	rec, route, resp, err := m.answer(ctx, req)
	if rec != nil {
		m.record(Call{Request: rec, Response: resp.Clone(), Err: err, Route: route})
	}
	return resp, err
}

// answer computes the answer to req. rec is the request as the call log
// keeps it (nil for a nil request, which is not logged); an unexpected
// request is logged here, others by the caller with route.
func (m *Model) answer(ctx context.Context, req *model.Request) (rec *model.Request, route string, resp *model.Response, err error) {
	if req == nil {
		return nil, "", nil, errors.New("scripted: Generate needs a request")
	}
	if err := ctx.Err(); err != nil {
		return nil, "", nil, err
	}
	c := *req // see Call.Request
	c.Messages = c.Messages[:len(c.Messages):len(c.Messages)]
	rec = &c

	m.mu.Lock()
	m.seq++
	q := m.pick(req)
	if q == nil {
		err := m.unexpected(req)
		m.calls.add(Call{Request: rec, Err: err})
		m.mu.Unlock()
		return nil, "", nil, err
	}
	turn := q.pop()
	m.mu.Unlock()

	resp, err = turn.respond(ctx, req)
	if err == nil && resp == nil {
		err = fmt.Errorf("scripted: turn %s returned neither a response nor an error", turn)
	}
	if err != nil {
		return rec, q.name(), nil, err
	}
	if resp.Message.Role == "" {
		resp.Message.Role = model.RoleAssistant
	}
	if resp.Model == "" {
		resp.Model = req.Model
	}
	if resp.Model == "" {
		resp.Model = m.id()
	}
	if turn.usage != nil {
		resp.Usage = *turn.usage
	}
	return rec, q.name(), resp, nil
}

func (m *Model) record(c Call) {
	m.mu.Lock()
	m.calls.add(c)
	m.mu.Unlock()
}

func (m *Model) pick(req *model.Request) *queue {
	for _, q := range m.routes {
		if q.ready() && q.match.Match(req) {
			return q
		}
	}
	if m.inline.ready() {
		return m.inline
	}
	return nil
}

// Calls returns the calls made so far, in the order they completed.
func (m *Model) Calls() []Call {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.calls.all()
}

// Verify returns an error naming every route with turns left unused
// (repeated turns do not count), or nil when the script was played out.
// Call it at the end of a test, like gomock's Finish.
func (m *Model) Verify() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	var left []string
	for _, q := range slices.Concat(m.routes, []*queue{m.inline}) {
		var unused []string
		for _, t := range q.turns[q.next:] {
			if !t.repeat {
				unused = append(unused, t.String())
			}
		}
		if len(unused) > 0 {
			left = append(left, fmt.Sprintf("%s: %s", q.name(), strings.Join(unused, ", ")))
		}
	}
	if len(left) == 0 {
		return nil
	}
	return fmt.Errorf("scripted: %s never used: %s", plural(len(left), "script queue"), strings.Join(left, "; "))
}

// ErrUnexpectedRequest is matched (errors.Is) by the error of a request
// the script had no turn for; its message says what the script had and
// summarizes the request.
var ErrUnexpectedRequest = errors.New("scripted: unexpected request")

// unexpectedRequestError reports a request the script had no turn for.
type unexpectedRequestError struct {
	// Call is the 1-based number of the call.
	Call int
	// Request summarizes the request.
	Request string
	// Expected describes each queue of the script and its state.
	Expected []string
}

// Error says what the script expected and what came.
func (e *unexpectedRequestError) Error() string {
	return fmt.Sprintf("scripted: unexpected request (call %d): no scripted turn is left for it\n  request: %s\n  script:\n    %s",
		e.Call, e.Request, strings.Join(e.Expected, "\n    "))
}

// Is reports whether target is ErrUnexpectedRequest.
func (e *unexpectedRequestError) Is(target error) bool { return target == ErrUnexpectedRequest }

func (m *Model) unexpected(req *model.Request) error {
	var expected []string
	for _, q := range m.routes {
		state := "does not match"
		if q.match.Match(req) {
			state = "matches, but all its " + plural(len(q.turns), "turn") + " were used"
		}
		expected = append(expected, q.name()+": "+state)
	}
	if len(m.inline.turns) == 0 {
		expected = append(expected, "in order: no turns")
	} else {
		expected = append(expected, "in order: all "+plural(len(m.inline.turns), "turn")+" were used")
	}
	return &unexpectedRequestError{Call: m.seq, Request: summarize(req), Expected: expected}
}
