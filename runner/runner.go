// Package runner is the evaluation loop every agent and subagent uses:
// render a prompt, call the model, run the tools it asks for, and record
// everything as events on a session.
//
// Evaluate renders the prompt, installs its tools on the session, then
// loops: check the deadline and budget, add Inbound messages that arrived,
// call the model, and either finish (no tool calls) or run the calls and
// give their results back. Tool handlers never change the session directly:
// the events they return are dispatched with the call's ToolInvoked record,
// atomically. The runner knows nothing of subagents: an evaluation run
// with the ctx of another's tool call is nested in it (it counts against
// its Budget), and work done elsewhere reports back through Inbound
// (messages) and Spent (tokens) records.
package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/tools"
)

// DefaultMaxTurns bounds the model calls of an evaluation whose MaxTurns is
// zero.
const DefaultMaxTurns = 50

// defaultOutputRetries is the OutputRetries of a Request that sets none.
const defaultOutputRetries = 2

// defaultCancelGrace is the CancelGrace of a Request that sets none.
const defaultCancelGrace = 5 * time.Second

// Request is one evaluation.
type Request struct {
	// Prompt is rendered with Params (matched to its sections by type).
	Prompt *prompt.Prompt
	Params []any
	// Rendered, when set, is the prompt already rendered (see Render) and
	// is run as it is: Prompt, Params, Tools and ToolFilter are not used
	// then, and Prompt may be nil. A subagent prepared in one process and
	// run on a worker comes so.
	Rendered *prompt.Rendered
	// Session is the state the evaluation reads and records into.
	Session *session.Session
	// UserMessage, when not empty, follows the system message.
	UserMessage string
	// Messages, when given, continue an earlier conversation: they follow
	// the system message (and come before UserMessage). When the first is
	// a system message, they are the whole conversation so far and the
	// prompt's rendered text is not added: a fork that carries on its
	// parent's conversation sends it as the parent did, byte for byte, so
	// that the provider's prompt cache serves it (the prompt is still
	// rendered, for its tools and output).
	Messages []model.Message
	// Continue, when set, is the id of an evaluation recorded in Session
	// (Response.Evaluation) to carry on: its conversation, system message
	// included, is the start of this one, and new messages are recorded
	// under the same id. A tool call it left without a result is dropped.
	// The prompt is still rendered, for its tools and output. A session
	// restored from a snapshot continues like the one it was taken from.
	Continue string
	// Answer, when not empty, answers the tool call the evaluation
	// Continue names waits on (see Waiting): it is that call's result —
	// or, when Approve asked to wait, the call is approved again, Approve
	// reading the answer with AnswerOf — the calls of its turn that had
	// not run run, and the loop goes on.
	// It comes alone (no UserMessage, no Messages). Continuing an
	// evaluation that waits without an Answer, and an Answer when nothing
	// waits (or it was answered), are errors.
	Answer string
	// Model answers; ModelName is the route it was chosen by ("main",
	// "light", a configured name), as records (ModelCalled.Route) and tools
	// call it. The records name the model by its id too, when it says it
	// (model.Describe).
	Model     model.Model
	ModelName string
	// MaxTurns bounds the model calls (DefaultMaxTurns when zero).
	MaxTurns int
	// Budget bounds the tokens spent by this evaluation, the evaluations
	// nested in it (run with the ctx of one of its tool calls, as
	// subagents are) and the Spent records dispatched to its session
	// meanwhile; zero means no bound. An evaluation also stops when one it
	// is nested in is over its budget, or a budget of its ctx is spent (see
	// WithBudget).
	Budget int
	// ToolFilter narrows the rendered toolset by name or glob.
	ToolFilter tools.Filter
	// Tools are offered before the prompt's own tools (a delegating parent
	// hands its toolset down this way). A tool of the same name in both
	// must be the same tool.
	Tools tools.Toolset
	// Approve, when set, is asked before each tool call whether it may
	// run. A nil error lets it run. An error denies it: the tool is not
	// called, and the model reads "Permission to use the tool 'NAME' was
	// denied: <the error's text>" as the call's failed result; so does a
	// panic in Approve. It runs on the call's goroutine, possibly for
	// several calls at once. Give the same function to a program's main
	// evaluations and to its subagents (subagent.Options.Approve), so that one
	// set of rules covers them all. An error with a method
	// Arguments() json.RawMessage is no denial: the call runs with those
	// arguments instead of the model's (a PreToolUse hook's updated
	// input), checked as the model's are; its record keeps the model's.
	Approve func(ctx context.Context, inv *tools.Invocation, call model.ToolCall) error
	// AfterTool, when set, is told of each call that ran (not of one
	// Approve denied), with the text of its result, before the result is
	// recorded: what it returns, when not empty, is added to what the
	// model reads, after a blank line (a PostToolUse hook's reason or
	// context). It runs on the call's goroutine; a panic in it adds
	// nothing, and is logged.
	AfterTool func(ctx context.Context, inv *tools.Invocation, call model.ToolCall, result string) string
	// Logger is handed to tools (a discarding logger when nil), and warns
	// of tool calls abandoned after CancelGrace.
	Logger *slog.Logger
	// OutputRetries is how many times an answer that does not match the
	// prompt's declared output is sent back to the model, with what was
	// wrong, before the evaluation fails with the last error
	// (2 when 0, none when negative). Each retry is a
	// turn, and counts toward MaxTurns and the usage.
	OutputRetries int
	// CancelGrace is how long a cancelled evaluation waits for the tool
	// calls that run to return: past it, a tool that ignores its context
	// is abandoned — it goes on in the background until it returns, its
	// result is dropped — and Evaluate returns an error matching
	// ErrAbandoned and the context's error. 5s when 0.
	CancelGrace time.Duration
	// Clock times model and tool calls (the session bus's clock when nil).
	Clock func() time.Time
	// Context says how the conversation is kept within the model's context
	// window: automatic compaction by default (see ContextOptions).
	Context ContextOptions
	// CacheKey is sent with each model call (model.Request.CacheKey), for
	// providers that route requests with the same key to the same prompt
	// cache; the evaluation's id when empty. Tool calls see it
	// (tools.Invocation.CacheKey), so that a fork that carries on the
	// conversation sends the same key.
	CacheKey string
}

// Response is the result of an evaluation, complete or partial.
type Response struct {
	NS, Key string
	// Evaluation is the evaluation's id: its conversation is recorded in
	// the session under it (see Conversation and Request.Continue).
	Evaluation string
	// Text is the final assistant text (the last text seen, for a partial
	// response).
	Text string
	// Output is the parsed structured output (a value of the prompt's output
	// type) when the prompt declares one; see Output.
	Output any
	// Messages is the whole conversation, system message first.
	Messages []model.Message
	// Rendered is the rendered prompt with the toolset that was offered.
	Rendered *prompt.Rendered
	// Usage is what this evaluation's model calls spent; ChildUsage is what
	// the evaluations nested in it spent, and what Spent records
	// dispatched to its session while it ran reported.
	Usage      model.Usage
	ChildUsage model.Usage
	// Turns counts model calls; ToolCalls counts tool calls.
	Turns     int
	ToolCalls int
	// ToolsUsed names the tools called, distinct, in first-use order.
	ToolsUsed []string
	Duration  time.Duration
}

// Output returns the evaluation's structured output as an O. It fails when
// the prompt declared no output or declared another type.
func Output[O any](resp *Response) (O, error) {
	var zero O
	if resp == nil || resp.Output == nil {
		return zero, errors.New("runner: the response has no structured output; declare one with prompt.WithOutput")
	}
	o, ok := resp.Output.(O)
	if !ok {
		return zero, fmt.Errorf("runner: the structured output is a %T, not a %T", resp.Output, zero)
	}
	return o, nil
}

// Evaluate runs req to completion. On failure it returns an
// *EvaluationError and, once the prompt has rendered, the partial Response
// — the conversation and the usage so far — so callers can account for
// what a failed run spent. It never panics: a panic in the model or the
// loop becomes an error.
func Evaluate(ctx context.Context, req Request) (resp *Response, err error) {
	if req.Prompt == nil && req.Rendered == nil || req.Session == nil || req.Model == nil {
		return nil, errors.New("runner: a Request needs a Prompt, a Session and a Model (a Rendered prompt serves as its Prompt)")
	}
	if req.Logger == nil {
		req.Logger = discardLogger
	}
	r := &run{req: req, ctx: ctx}
	if req.Rendered != nil {
		r.prompt = req.Rendered.NS + "/" + req.Rendered.Key
	} else {
		r.prompt = req.Prompt.NS() + "/" + req.Prompt.Key()
	}
	r.onDelta = r.publishDelta
	returned := false
	defer func() {
		switch p := recover(); {
		case p != nil:
			resp, err = r.resp, r.fail(r.phase, &panicError{fmt.Sprintf("panic: %v", p)})
			r.settle()
		case !returned: // a model or an observer called runtime.Goexit
			resp, err = r.resp, r.fail(r.phase, errLoopGoexit)
			r.settle()
		}
		if r.eval != "" {
			err = r.end(resp, err)
		}
	}()
	resp, err = r.evaluate()
	returned = true
	return resp, err
}

// run is the state of one evaluation.
type run struct {
	req     Request
	phase   Phase // where the loop is, for a panic's error
	ctx     context.Context
	toolCtx context.Context // ctx carrying the evaluation's scope, for tool calls
	prompt  string
	clock   func() time.Time
	start   time.Time

	eval string // the evaluation's id
	// modelID and server are what the model says it calls (model.Describe),
	// for the records of its calls.
	modelID, server string
	cacheKey        string // Request.CacheKey, or eval
	scope           *scope
	onDelta         func(model.Delta) error
	rendered        *prompt.Rendered
	toolset         tools.Toolset
	specs           []model.ToolSpec
	modelReq        model.Request     // the model call's, reused each turn
	outputSpec      *model.OutputSpec // the declared output's, made once
	resp            *Response
	messages        []model.Message // the conversation as render starts it
	final           []any           // the final answer's records, and room for PromptExecuted
	output          json.RawMessage // the structured output's JSON, for PromptExecuted
	used            map[string]bool

	cx contextState // the conversation's size against the window

	inboundSeen, spentSeen int
	maxTurns               int
	outputRetries          int // left

	// answering is the parked call being answered, until its result is
	// recorded (see Waiting).
	answering *resumption

	// The calls of the turn being run: calls[next:] are not recorded yet.
	calls []model.ToolCall
	next  int
	// ownGoroutine says that the loop runs on a goroutine of its own (see
	// runOwn).
	ownGoroutine bool
	// oversized are the calls of the turn whose arguments were over
	// maxArgumentBytes, by call id, with their size.
	oversized map[string]int

	// abandonMu guards running and abandoned, which the caller's
	// goroutine reads when it abandons tool calls that ignore the
	// cancellation (see runOwn): while running is not empty, the loop is
	// inside tool calls and touches nothing else of the run.
	abandonMu sync.Mutex
	running   []model.ToolCall // the calls being made
	abandoned bool
}

func (r *run) fail(phase Phase, err error) error {
	return &EvaluationError{Phase: phase, Prompt: r.prompt, Err: err}
}

func (r *run) evaluate() (*Response, error) {
	s := r.req.Session
	r.clock = r.req.Clock
	if r.clock == nil {
		r.clock = s.Bus().Now
	}
	r.start = r.clock()
	r.phase = PhaseRender
	r.scope = &scope{parent: scopeOf(r.ctx), budget: int64(r.req.Budget)}
	var earlier []model.Message
	var resume *resumption
	r.eval = r.req.Continue
	if err := r.checkAnswer(); err != nil {
		return nil, r.fail(PhaseRender, err)
	}
	switch {
	case r.req.Answer != "":
		var err error
		if earlier, resume, err = resumed(s, r.eval); err != nil {
			return nil, r.fail(PhaseRender, err)
		}
	case r.eval != "":
		var err error
		if earlier, err = continued(s, r.eval); err != nil {
			return nil, r.fail(PhaseRender, err)
		}
	default:
		r.eval = s.NewID()
	}
	r.describeModel()
	if r.cacheKey = r.req.CacheKey; r.cacheKey == "" {
		r.cacheKey = r.eval
	}
	if err := r.render(earlier); err != nil {
		return nil, r.fail(PhaseRender, err)
	}
	r.toolCtx = withScope(r.ctx, r.scope)
	r.inboundSeen = inboundCursor(s)
	r.spentSeen = session.Len[Spent](s)
	r.resp = &Response{NS: r.rendered.NS, Key: r.rendered.Key, Evaluation: r.eval, Rendered: r.rendered, Messages: r.messages}
	r.setupContext()
	if resume != nil {
		if err := r.answer(resume); err != nil {
			return r.partial(PhaseRecord, err)
		}
	}

	r.maxTurns = r.req.MaxTurns
	if r.maxTurns <= 0 {
		r.maxTurns = DefaultMaxTurns
	}
	switch r.outputRetries = r.req.OutputRetries; {
	case r.outputRetries == 0:
		r.outputRetries = defaultOutputRetries
	case r.outputRetries < 0:
		r.outputRetries = 0
	}
	return r.loop()
}

// loop runs turns until the evaluation ends. All its state is in r, so
// that it can go on on another goroutine (see runOwn).
func (r *run) loop() (*Response, error) {
	for {
		if r.calls != nil {
			if !r.ownGoroutine {
				return r.runOwn()
			}
			r.phase = PhaseTool
			if err := r.runTools(); err != nil {
				if errors.Is(err, errAbandoned) {
					return nil, err // the caller is gone; touch nothing
				}
				return r.partial(PhaseTool, err)
			}
			r.calls = nil
		}
		if err := r.ctx.Err(); err != nil {
			return r.partial(PhaseRequest, err)
		}
		if r.overBudget() {
			return r.partial(PhaseLimit, ErrBudgetExceeded)
		}
		if r.resp.Turns >= r.maxTurns {
			return r.partial(PhaseLimit, fmt.Errorf("%w: the model was still calling tools after %d turns; raise MaxTurns or narrow the task", ErrMaxTurns, r.maxTurns))
		}
		if err := r.drainInbound(); err != nil {
			return r.partial(PhaseRecord, err)
		}
		if err := r.manageContext(); err != nil {
			return r.partial(PhaseRecord, err)
		}
		r.phase = PhaseRequest
		msg, err := r.callModel()
		if re, ok := errors.AsType[*recordError](err); ok {
			return r.partial(PhaseRecord, re.err)
		}
		if errors.Is(err, model.ErrContextLength) && msg.Role == "" {
			if err = r.overflowed(err); err == nil {
				continue // compacted: retry the call
			}
			if re, ok := errors.AsType[*recordError](err); ok {
				return r.partial(PhaseRecord, re.err)
			}
		}
		if msg.Role != "" {
			r.resp.Messages = append(r.resp.Messages, msg)
			if msg.Content != "" || len(msg.ToolCalls) == 0 {
				r.resp.Text = msg.Content
			}
		}
		if err != nil {
			return r.partial(PhaseRequest, err)
		}
		if len(msg.ToolCalls) == 0 {
			r.phase = PhaseResponse
			again, err := r.reask()
			if err != nil {
				return r.partial(PhaseRecord, err)
			}
			if again {
				continue
			}
			return r.finish()
		}
		if r.overBudget() {
			return r.partial(PhaseLimit, ErrBudgetExceeded)
		}
		r.calls, r.next = msg.ToolCalls, 0
	}
}

// drainInbound adds the Inbound messages not delivered yet, and records
// that they were.
func (r *run) drainInbound() error {
	in := session.Get[Inbound](r.req.Session)
	if r.inboundSeen >= in.Len() {
		return nil
	}
	events := make([]any, 0, 1+in.Len()-r.inboundSeen)
	for ; r.inboundSeen < in.Len(); r.inboundSeen++ {
		msg := model.UserMessage(in.At(r.inboundSeen).Text)
		r.resp.Messages = append(r.resp.Messages, msg)
		events = append(events, ConversationMessage{Evaluation: r.eval, Message: msg})
	}
	events = append(events, InboundRead{Upto: r.inboundSeen})
	return r.commit(events...)
}

// collectSpent charges the Spent records dispatched to the session since
// the last look to the evaluation's scope, but for those counted already
// as they were spent.
func (r *run) collectSpent() {
	sp := session.Get[Spent](r.req.Session)
	for ; r.spentSeen < sp.Len(); r.spentSeen++ {
		if u := sp.At(r.spentSeen); !u.Counted {
			r.scope.charge(u.Usage)
		}
	}
}

// overBudget reports whether this evaluation or one above it in its run
// has spent more than its budget.
func (r *run) overBudget() bool {
	r.collectSpent()
	return r.scope.exhausted()
}

// childUsage is what the scope spent beyond the evaluation's own calls.
func (r *run) childUsage() model.Usage {
	all, own := r.scope.spent(), r.resp.Usage
	return model.Usage{
		InputTokens: all.InputTokens - own.InputTokens, CachedInputTokens: all.CachedInputTokens - own.CachedInputTokens,
		CacheWriteTokens: all.CacheWriteTokens - own.CacheWriteTokens, OutputTokens: all.OutputTokens - own.OutputTokens, TotalTokens: all.TotalTokens - own.TotalTokens,
	}
}

// partial ends the evaluation with err: the partial Response and an
// *EvaluationError of phase. Evaluate records the end (see end).
func (r *run) partial(phase Phase, err error) (*Response, error) {
	r.settle()
	return r.resp, r.fail(phase, err)
}

// settle adds up what the evaluation spent and how long it took, into
// its Response (none before the prompt rendered).
func (r *run) settle() {
	if r.resp == nil {
		return
	}
	r.collectSpent()
	r.resp.ChildUsage = r.childUsage()
	r.resp.Duration = r.clock().Sub(r.start)
}

// finish parses structured output; Evaluate records the final answer and
// the evaluation's end, in one dispatch (see end).
func (r *run) finish() (*Response, error) {
	if err := r.ctx.Err(); err != nil {
		return r.partial(PhaseResponse, err)
	}
	if out := r.rendered.Output; out != nil {
		v, err := out.Parse(r.resp.Text)
		if err != nil {
			return r.partial(PhaseResponse, err)
		}
		r.resp.Output = v
		r.output, _ = json.Marshal(v)
	}
	r.settle()
	return r.resp, nil
}
