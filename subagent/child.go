package subagent

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/offshoot-dev/offshoot/bus"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/subagent/transcript"
	"github.com/offshoot-dev/offshoot/tools"
)

// child is one child run from its preparation to its teardown: what Run
// and Start share. prepare does what must happen before the caller gets
// an answer (checks, the spawn budget, hydration, setup); execute waits
// for a slot, runs the child and tears it down.
type child struct {
	e        *Engine
	spec     Spec
	id       string
	lineage  lineage // where the child stands in its tree (see Chain)
	depth    int
	maxDepth int
	// root is the id of the session at the root of the delegation tree,
	// which names the transcripts' folder.
	root    string
	run     *run
	session *session.Session
	// from is the state the child session was hydrated from.
	from session.Snapshot
	// resumed is the conversation a resumed agent continues; prior is
	// its transcript (its record, and where the transcript goes on).
	resumed []model.Message
	prior   *transcript.Transcript
	// background is set by Start.
	background bool

	// What the child's evaluations spent, and its latest text.
	own, children model.Usage
	turns         int
	text          string
	rec           *recorder
}

// rootKey marks a child's ctx with the id of its delegation tree's root
// session, so that a grandchild's transcript goes in the same folder.
type rootKey struct{}

// rootOf returns the id of the delegation tree's root session for a child
// of parent started with ctx.
func rootOf(ctx context.Context, parent *session.Session) string {
	if id, ok := ctx.Value(rootKey{}).(string); ok {
		return id
	}
	return parent.ID()
}

// prepare checks spec, counts the child against its run's spawn budget,
// hydrates and sets it up. It returns ctx as the child runs below it.
func (e *Engine) prepare(ctx context.Context, spec Spec) (*child, context.Context, error) {
	_, local := e.exec.(inProcess)
	if err := checkSpec(spec, local); err != nil {
		return nil, ctx, err
	}
	from := lineageFor(ctx, spec.Caller)
	if chain := from.chain(); slices.Contains(chain, spec.Name) {
		return nil, ctx, cycleError(chain, spec.Name)
	}
	c := &child{e: e, spec: spec, lineage: from.child(spec.Name), depth: len(from.agents) + 1, maxDepth: e.maxDepth, root: rootOf(ctx, spec.Parent)}
	if spec.MaxDepth > 0 {
		c.maxDepth = spec.MaxDepth
	}
	if spec.Resume != "" {
		if err := c.loadResumed(ctx); err != nil {
			return nil, ctx, err
		}
	}
	if c.depth > c.maxDepth {
		return nil, ctx, depthError(c.maxDepth)
	}
	ctx, c.run = runOf(ctx)
	if !e.spawn(c.run) {
		return nil, ctx, budgetError(e.maxSpawns)
	}
	c.id = spec.Resume
	if c.id == "" {
		c.id = e.newID()
	}
	s, start, err := e.hydrate(spec, c.tags())
	if err != nil {
		return nil, ctx, err
	}
	c.from = start
	if err := SetUp(ctx, s, e.setup, spec.Setup); err != nil {
		_ = s.Close()
		return nil, ctx, setupError(err)
	}
	c.session = s
	if !e.claim(c.id, spec.Resume != "") {
		_ = s.Close()
		return nil, ctx, stillRunning(c.id)
	}
	return c, ctx, nil
}

// SetUp sets a child's session up as the engine does before the child
// runs: each setup in turn (nil ones skipped; a panic is an error), then
// the inbound messages it inherited from its parent undelivered are
// marked read — they are the parent's (a background task's notification
// for it), not the child's. A worker that runs a child prepared
// elsewhere (package remote) sets the session it restored up with it, and
// the program's own setup (Options.ChildSetup).
func SetUp(ctx context.Context, child *session.Session, setups ...func(*session.Session) error) error {
	for _, setup := range setups {
		if setup == nil {
			continue
		}
		if err := callSetup(setup, child); err != nil {
			return err
		}
	}
	n := session.Len[runner.Inbound](child)
	if read, _ := session.Latest[runner.InboundRead](child); read.Upto >= n {
		return nil
	}
	return child.Dispatch(ctx, runner.InboundRead{Upto: n})
}

// hydrate creates the child session with tags: fresh for a fresh agent,
// forked otherwise — also when the agent is resumed, so a resumed forked
// agent works on its parent's state as it is now (or on Spec.Snapshot).
// It returns the state the child started from too.
func (e *Engine) hydrate(spec Spec, tags map[string]string) (*session.Session, session.Snapshot, error) {
	var from session.Snapshot
	switch {
	case spec.Mode == Fresh:
	case spec.Snapshot != nil:
		from = *spec.Snapshot
	default:
		from = spec.Parent.Snapshot()
	}
	child, err := spec.Parent.Fork(session.WithTags(tags), session.WithSnapshot(from))
	if err != nil {
		if errors.Is(err, session.ErrClosed) {
			return nil, from, &Error{Kind: ErrParentClosed, Msg: "Failed to initialize subagent: the parent session is closed", Err: err}
		}
		return nil, from, setupError(err)
	}
	return child, from, nil
}

func callSetup(setup func(*session.Session) error, child *session.Session) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	return setup(child)
}

// claim marks the agent id as running. Resuming an agent that is running
// fails.
func (e *Engine) claim(id string, resume bool) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if resume && e.live[id] > 0 {
		return false
	}
	e.live[id]++
	return true
}

func (e *Engine) release(id string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.live[id]--; e.live[id] <= 0 {
		delete(e.live, id)
	}
}

func (e *Engine) running(id string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.live[id] > 0
}

// execute waits for a slot, runs the child, and tears it down whatever
// happens: the transcript is completed, observers are told, the child
// session is closed. ctx is the child's whole life: when it is cancelled
// the child ends as stopped.
func (c *child) execute(ctx context.Context) (out *Outcome, status TaskStatus, err error) {
	e, spec := c.e, c.spec
	defer e.release(c.id)
	defer func() { _ = c.session.Close() }()
	defer func() { status = statusOf(ctx, err) }()

	release, err := e.slot(ctx, spec.Parent)
	if err != nil {
		return nil, "", runError(err)
	}
	defer release()

	started := e.clock()
	out = &Outcome{AgentID: c.id, SessionID: c.session.ID(), Name: spec.Name, Depth: c.depth, ModelName: spec.Request.ModelName, Start: c.session.Snapshot()}
	if bus.Observed[Started](spec.Parent.Bus()) {
		ev := Started{AgentID: c.id, Name: spec.Name, SessionID: c.session.ID(), ParentID: spec.Parent.ID(),
			Depth: c.depth, Mode: c.mode().String(), Model: spec.Request.ModelName, Route: spec.Request.ModelName,
			Description: spec.Description, Background: c.background}
		if id := model.Describe(spec.Request.Model).ID; id != "" {
			ev.Model = id
		}
		if spec.Caller != nil {
			ev.CallID = spec.Caller.CallID
		}
		publish(ctx, spec.Parent, ev)
	}
	defer func() {
		if !bus.Observed[Finished](spec.Parent.Bus()) {
			return
		}
		fin := Finished{AgentID: c.id, Name: spec.Name, SessionID: c.session.ID(), ParentID: spec.Parent.ID(), Depth: c.depth,
			Duration: e.clock().Sub(started), Usage: out.Usage.Total, ModelCalls: out.Usage.ModelCalls}
		for _, n := range out.Usage.ToolCalls {
			fin.ToolCalls += n
		}
		if err != nil {
			fin.Error = err.Error()
		}
		publish(ctx, spec.Parent, fin)
	}()
	c.rec = e.record(c, started)
	out.Transcript = c.rec.transcriptPath()
	defer func() { c.rec.finish(out, statusOf(ctx, err), err, e.clock()) }()
	defer func() {
		if p := recover(); p != nil {
			err = &Error{Kind: ErrPanic, Msg: fmt.Sprintf("Subagent run aborted: panic: %v", p)}
		}
	}()

	filter := spec.Request.ToolFilter
	if c.depth >= c.maxDepth && len(spec.Withhold) > 0 {
		filter.Deny = append(slices.Clone(filter.Deny), spec.Withhold...)
	}
	var refused tools.Filter
	if spec.KeepToolset {
		if err := filter.Validate(); err != nil {
			return out, "", runError(err)
		}
		refused, filter = filter, tools.Filter{}
	}
	p, err := Orient(spec.Request.Prompt)
	if err != nil {
		return out, "", runError(err)
	}
	timeout := e.timeout
	if spec.Timeout > 0 {
		timeout = spec.Timeout
	}
	cctx, cancel := context.WithTimeout(withLineage(context.WithValue(ctx, rootKey{}, c.root), c.lineage), timeout)
	defer cancel()
	req := spec.Request
	req.Prompt, req.Session, req.ToolFilter = p, c.session, filter
	if req.Logger == nil {
		req.Logger = e.logger
	}
	if req.Approve == nil {
		req.Approve = e.approve
	}
	if req.AfterTool == nil {
		req.AfterTool = e.afterTool
	}
	if spec.KeepToolset {
		req.Approve = refuse(spec.Name, refused, req.Approve)
	}
	resp, rerr := c.evaluate(cctx, req)
	out.Final = c.session.Snapshot()
	out.Duration = e.clock().Sub(started)
	out.Response = resp
	out.States = statesOf(spec.Request.Tools, resp)
	c.account(out)
	out.Text = c.text
	if resp != nil {
		out.Output = resp.Output
	}
	if rerr != nil {
		return out, "", e.classify(ctx, cctx, rerr, timeout, spec)
	}
	return out, "", nil
}

// refuse returns approve preceded by a refusal of the tools filter does
// not allow the agent name: the tool is not called, and the model reads
// why as the call's failed result.
func refuse(name string, filter tools.Filter, approve func(context.Context, *tools.Invocation, model.ToolCall) error) func(context.Context, *tools.Invocation, model.ToolCall) error {
	return func(ctx context.Context, inv *tools.Invocation, call model.ToolCall) error {
		if !filter.Allows(call.Name) {
			var allowed []string
			if inv != nil {
				allowed = slices.DeleteFunc(inv.Tools.Names(), func(n string) bool { return !filter.Allows(n) })
			}
			if len(allowed) == 0 {
				return fmt.Errorf("the %s agent may not use it; it may use no tool", name)
			}
			return fmt.Errorf("the %s agent may not use it; it may use only %s", name, strings.Join(allowed, ", "))
		}
		if approve == nil {
			return nil
		}
		return approve(ctx, inv, call)
	}
}

// statesOf returns the distinct states of a child's whole toolset: those
// of the tools it inherited, then those its prompt's own tools add (the
// rendered toolset of resp, nil when the child never rendered).
func statesOf(inherited tools.Toolset, resp *runner.Response) []tools.State {
	out := inherited.States()
	if resp == nil || resp.Rendered == nil {
		return out
	}
	for _, st := range resp.Rendered.Tools.States() {
		if !slices.Contains(out, st) {
			out = append(out, st)
		}
	}
	return out
}

// mode is how the child's session started.
func (c *child) mode() Mode { return c.spec.Mode }

// forkedContext reports whether the child carries on an earlier
// conversation (Spec.Request.Messages) rather than starting from its task alone.
func (c *child) forkedContext() bool { return c.spec.Resume == "" && len(c.spec.Request.Messages) > 0 }

// statusOf is how a run that ended with err under ctx ended.
func statusOf(ctx context.Context, err error) TaskStatus {
	switch {
	case err == nil:
		return TaskStatusCompleted
	case ctx.Err() != nil:
		return TaskStatusStopped
	}
	return TaskStatusFailed
}

// evaluate runs the child's evaluation and, for as long as a stop hook
// blocks its end (maxStopBlocks times at most), continues it with the
// hook's reason as the next user message.
func (c *child) evaluate(ctx context.Context, req runner.Request) (*runner.Response, error) {
	extra, err := c.e.starting(ctx, c)
	if err != nil {
		return nil, err
	}
	req.UserMessage = joinText(req.UserMessage, extra)
	if c.resumed != nil {
		req.Messages = c.resumed
	}
	c.rec.start(c.spec.TaskInPrompt && c.spec.Resume == "", len(c.resumed))
	if req.Rendered == nil {
		// Rendered once, here, wherever the executor runs it.
		if req.Rendered, err = runner.Render(req); err != nil {
			return nil, err
		}
	}
	resp, err := c.e.exec.Execute(ctx, c.job(req))
	c.add(resp)
	maxTurns := req.MaxTurns
	if maxTurns <= 0 {
		maxTurns = runner.DefaultMaxTurns
	}
	for blocks := 0; err == nil; blocks++ {
		reason, herr := c.e.stopping(ctx, c, resp.Text, blocks)
		if herr != nil {
			return resp, herr
		}
		if reason == "" {
			break
		}
		left := maxTurns - c.turns
		if left <= 0 {
			return resp, fmt.Errorf("%w: a stop hook asked for more work after %d turns", runner.ErrMaxTurns, maxTurns)
		}
		req.Continue, req.Messages, req.UserMessage, req.MaxTurns = resp.Evaluation, nil, reason, left
		next, nerr := c.e.exec.Execute(ctx, c.job(req))
		c.add(next)
		if next != nil {
			resp = next
		}
		err = nerr
	}
	return resp, err
}

// job is the child's evaluation req, for the engine's executor.
func (c *child) job(req runner.Request) *Job {
	j := &Job{ID: c.id, Name: c.spec.Name, Depth: c.depth, Root: c.root, RootPrompt: c.lineage.root,
		Agents: c.lineage.agents, From: c.from, Fresh: c.spec.Mode == Fresh, Request: req, Parent: c.spec.Parent.ID()}
	if c.spec.Caller != nil {
		j.CallID = c.spec.Caller.CallID
	}
	return j
}

// add counts what an evaluation spent and keeps its text.
func (c *child) add(resp *runner.Response) {
	if resp == nil {
		return
	}
	c.own = c.own.Add(resp.Usage)
	c.children = c.children.Add(resp.ChildUsage)
	c.turns += resp.Turns
	if resp.Text != "" {
		c.text = resp.Text
	}
}

func joinText(a, b string) string {
	switch {
	case b == "":
		return a
	case a == "":
		return b
	}
	return a + "\n\n" + b
}

var toolInvokedType = reflect.TypeFor[runner.ToolInvoked]()

// account fills the outcome's usage from what the child's evaluations
// spent and the tool calls it recorded.
func (c *child) account(out *Outcome) {
	out.Usage = Usage{Own: c.own, Total: c.own.Add(c.children), ModelCalls: c.turns, ToolCalls: map[string]int{}}
	i, base := 0, out.Start.Len(toolInvokedType)
	for x := range out.Final.Items(toolInvokedType) {
		if i >= base {
			out.Usage.ToolCalls[x.(runner.ToolInvoked).Name]++
		}
		i++
	}
}

// classify turns the child's evaluation error into the engine's.
func (e *Engine) classify(ctx, cctx context.Context, err error, timeout time.Duration, spec Spec) error {
	switch {
	case errors.Is(err, ErrHook):
		return err
	case errors.Is(err, runner.ErrMaxTurns):
		n := spec.Request.MaxTurns
		if n <= 0 {
			n = runner.DefaultMaxTurns
		}
		return maxTurnsError(n, err)
	case ctx.Err() == nil && errors.Is(cctx.Err(), context.DeadlineExceeded):
		return timeoutError(timeout, err)
	}
	return runError(err)
}
