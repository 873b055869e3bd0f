package offshoot

import (
	"context"
	"fmt"
	"iter"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/offshoot-dev/offshoot/bus"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/subagent"
)

// Query sends prompt to the main agent and yields what happens, in order:
// TextDelta pieces as its model streams, an AssistantMessage for each of
// its model's answers, a ToolResultMessage for each of its tool calls, a
// TaskNotificationMessage for each of its background tasks that ends
// meanwhile, and last a ResultMessage with the answer and what the query
// spent — or why it failed (Err: the evaluation's error, ErrBusy, ErrClosed,
// ErrNothingToContinue).
//
// The conversation goes on across queries: the main agent sees everything
// said before, in this client's session. An empty prompt continues on
// what arrived since the last query — the notifications of background
// tasks that ended in between — and is ErrNothingToContinue when nothing
// did.
//
// Breaking out of the loop stops the query: its evaluation, and the agents
// it runs in the foreground, are cancelled, and Query returns once they
// have stopped. So does cancelling ctx.
//
// Background tasks outlive the query that starts them: they run under
// ctx, not under the query, so they go on after its ResultMessage (and
// after a break), and end when they finish, when ctx is cancelled, when
// the model stops them (TaskStop), or through Tasks (StopAll, at Close).
// Options.OnTaskNotification is told when each ends; the
// main agent reads the notification at its next model call — in this
// query if it is still running, else in the next (Query(ctx, "") to have
// it answer at once). A program that wants them all done waits with
// Tasks().Wait(ctx) before it exits.
func (c *Client) Query(ctx context.Context, prompt string) iter.Seq[Message] {
	return c.query(ctx, prompt, nil, "")
}

// query is Query, with the turn's options of a slash command when cmd is
// not nil: its text expanded, its allowed-tools and model for this query;
// or, when answer is not empty, Answer.
func (c *Client) query(ctx context.Context, prompt string, cmd *command, answer string) iter.Seq[Message] {
	return func(yield func(Message) bool) {
		started := time.Now()
		fail := func(err error) { yield(ResultMessage{Err: err, Duration: time.Since(started)}) }
		if c.closed.Load() {
			fail(ErrClosed)
			return
		}
		if !c.turn.TryLock() {
			fail(ErrBusy)
			return
		}
		defer c.turn.Unlock()
		cont := c.lastEvaluation()
		w, waiting := c.Waiting()
		switch {
		case answer != "" && !waiting:
			fail(ErrNotWaiting)
			return
		case answer != "":
			cont = w.Evaluation
		case waiting:
			fail(fmt.Errorf("offshoot: the session waits for an answer to its %s call: %q; answer it first (Client.Answer)", w.Tool, w.Question))
			return
		case strings.TrimSpace(prompt) == "" && !c.pendingInbound():
			fail(ErrNothingToContinue)
			return
		}
		inherited, err := c.serverTools(ctx)
		if err != nil {
			fail(err)
			return
		}
		if answer == "" { // an answer goes on with the query's skill
			if err := c.endSkill(ctx); err != nil {
				fail(err)
				return
			}
		}
		m, modelName, filter := c.model, c.modelName, c.toolFilter
		if cmd != nil {
			if m, modelName, filter, err = c.commandTurn(*cmd, inherited); err != nil {
				fail(err)
				return
			}
		}

		p := newPipe()
		// The query is one run: its background tasks end with ctx, not
		// with the turn, which stops when the reader goes away.
		turn, stop := context.WithCancel(subagent.WithRun(ctx))
		defer stop()
		c.mu.Lock()
		c.current, c.stop = p, stop
		c.mu.Unlock()
		defer func() {
			c.mu.Lock()
			c.current, c.stop = nil, nil
			c.mu.Unlock()
		}()
		if c.closed.Load() { // Close ran meanwhile
			fail(ErrClosed)
			return
		}
		obs := &observer{p: p, session: c.session.ID()}
		unsubscribe := c.session.Bus().SubscribeAll("offshoot.query", obs.observe)
		defer unsubscribe()

		var message string // an answer is no prompt: no UserPromptSubmit
		if answer == "" {
			if message, err = c.userPrompt(turn, prompt); err != nil {
				fail(err)
				return
			}
		}
		done := make(chan struct{})
		go func() {
			defer close(done)
			req := runner.Request{
				Prompt: c.main, Params: c.queryParams(), Session: c.session, UserMessage: message, Continue: cont, Answer: answer,
				Model: m, ModelName: modelName, MaxTurns: c.maxTurns, Tools: inherited, ToolFilter: filter,
				Approve: c.approve, AfterTool: c.afterTool, Logger: c.logger, Context: c.context,
			}
			resp, err := runner.Evaluate(turn, req)
			for blocks := 0; err == nil && resp != nil; blocks++ {
				var reason string
				if reason, err = c.stopped(turn, resp.Text, blocks); err != nil || reason == "" {
					break
				}
				// A Stop hook keeps the main agent working: its reason is
				// the next message of the same conversation.
				req.UserMessage, req.Continue, req.Answer = reason, resp.Evaluation, ""
				var next *runner.Response
				next, err = runner.Evaluate(turn, req)
				resp = sum(resp, next)
			}
			p.end(result(resp, err, time.Since(started)))
		}()
		defer func() {
			p.abandon()
			stop()
			<-done
		}()
		for {
			msg, ok := p.next()
			if !ok || !yield(msg) {
				return
			}
		}
	}
}

// result is the ResultMessage of an evaluation.
func result(resp *runner.Response, err error, d time.Duration) ResultMessage {
	r := ResultMessage{Err: err, Duration: d}
	if resp != nil {
		r.Text, r.Usage, r.Turns, r.ToolCalls = resp.Text, resp.Usage.Add(resp.ChildUsage), resp.Turns, resp.ToolCalls
	}
	return r
}

// sum is the response of a query that went on after a Stop hook blocked
// its end: next's, with what both spent.
func sum(prev, next *runner.Response) *runner.Response {
	if next == nil {
		return prev
	}
	out := *next
	out.Usage, out.ChildUsage = prev.Usage.Add(next.Usage), prev.ChildUsage.Add(next.ChildUsage)
	out.Turns, out.ToolCalls = prev.Turns+next.Turns, prev.ToolCalls+next.ToolCalls
	return &out
}

// lastEvaluation returns the id of the main agent's latest evaluation in
// the session, which the next query continues ("" for none).
func (c *Client) lastEvaluation() string {
	last := ""
	for r := range session.All[runner.PromptRendered](c.session) {
		if r.NS == promptNS && r.Key == promptKey {
			last = r.Evaluation
		}
	}
	return last
}

// pendingInbound reports whether messages for the main agent (task
// notifications) arrived that no model call has read yet.
func (c *Client) pendingInbound() bool {
	read, _ := session.Latest[runner.InboundRead](c.session)
	return session.Len[runner.Inbound](c.session) > read.Upto
}

// observer turns the runner's events on the client's session into
// messages.
type observer struct {
	p       *pipe
	session string
	turn    atomic.Int64 // the main agent's model calls so far
}

func (o *observer) observe(_ context.Context, env bus.Envelope) error {
	switch e := env.Payload.(type) {
	case runner.Delta:
		if e.SessionID == o.session && e.Text != "" {
			o.p.put(TextDelta{Text: e.Text, Turn: int(o.turn.Load()) + 1}, true)
		}
	case runner.ConversationMessage:
		if env.SessionID == o.session && e.Role == model.RoleAssistant {
			o.p.put(AssistantMessage{Text: e.Content, ToolCalls: slices.Clone(e.ToolCalls), Turn: int(o.turn.Add(1))}, true)
		}
	case runner.ToolInvoked:
		if env.SessionID == o.session {
			o.p.put(ToolResultMessage{CallID: e.CallID, Name: e.Name, Success: e.Success, Summary: summary(e.Result)}, true)
		}
	}
	return nil
}
