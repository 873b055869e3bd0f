// Package subagent is the engine both delegation front ends share — the
// dispatch_subagent tool and the Task tool. It runs a child agent in a
// session of its own, forked from a snapshot of the parent or fresh, on the
// parent's bus, with the parent's tools, a resolved model and limits: depth
// and cycles, concurrency per parent evaluation, a spawn budget per root
// run, a timeout and max turns. Whatever happens, the child session is
// closed afterwards and the parent's session is not written to at all.
//
// Limits belong to the run, not to a session: the engine keeps them in the
// runner.Scope of the evaluation that delegates (concurrency) and of its
// run's root (the spawn budget), so a long chat can delegate in every turn
// and two sessions that happen to share an id share nothing. The child's
// evaluation runs below the parent's scope, so the parent's token Budget
// bounds what its children spend and their spending counts in the
// parent's ChildUsage as it happens — also when the parent is cancelled.
package subagent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"time"

	"github.com/offshoot-dev/offshoot/internal/randid"

	"github.com/offshoot-dev/offshoot/bus"
	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
)

// Defaults of the engine's limits.
const (
	DefaultMaxDepth      = 3
	DefaultMaxConcurrent = 5
	DefaultMaxSpawns     = 100
	DefaultTimeout       = 10 * time.Minute
)

// Engine runs child agents. Create one with New; it is safe for concurrent
// use and holds no session.
type Engine struct {
	maxDepth, maxConcurrent, maxSpawns int
	timeout                            time.Duration
	setup                              func(*session.Session) error
	newID                              func() string
	clock                              func() time.Time
	logger                             *slog.Logger
}

// Option configures an Engine.
type Option func(*Engine)

// WithMaxDepth sets how deep delegation may nest (DefaultMaxDepth). A
// child at the limit runs without the delegating tools.
func WithMaxDepth(n int) Option { return func(e *Engine) { e.maxDepth = n } }

// WithMaxConcurrent sets how many children of one parent evaluation run at
// once (DefaultMaxConcurrent); more wait for a slot while their context
// allows.
func WithMaxConcurrent(n int) Option { return func(e *Engine) { e.maxConcurrent = n } }

// WithMaxSpawns sets how many children one root run may spawn in all
// (DefaultMaxSpawns).
func WithMaxSpawns(n int) Option { return func(e *Engine) { e.maxSpawns = n } }

// WithTimeout sets the time limit of one child run (DefaultTimeout).
func WithTimeout(d time.Duration) Option { return func(e *Engine) { e.timeout = d } }

// WithChildSetup runs setup on every child after hydration, before it runs
// — for derived reducers. If it fails the run aborts and the parent is
// untouched.
func WithChildSetup(setup func(child *session.Session) error) Option {
	return func(e *Engine) { e.setup = setup }
}

// WithIDGenerator sets how agent ids are made (random UUIDs by default).
func WithIDGenerator(gen func() string) Option { return func(e *Engine) { e.newID = gen } }

// WithClock sets the clock that times runs (time.Now by default).
func WithClock(clock func() time.Time) Option { return func(e *Engine) { e.clock = clock } }

// WithLogger sets the logger handed to the children's tools.
func WithLogger(l *slog.Logger) Option { return func(e *Engine) { e.logger = l } }

// New returns an engine with the given options. Limits below one fall back
// to their defaults.
func New(opts ...Option) *Engine {
	e := &Engine{newID: randid.New, clock: time.Now}
	for _, o := range opts {
		o(e)
	}
	if e.maxDepth < 1 {
		e.maxDepth = DefaultMaxDepth
	}
	if e.maxConcurrent < 1 {
		e.maxConcurrent = DefaultMaxConcurrent
	}
	if e.maxSpawns < 1 {
		e.maxSpawns = DefaultMaxSpawns
	}
	if e.timeout <= 0 {
		e.timeout = DefaultTimeout
	}
	if e.newID == nil {
		e.newID = randid.New
	}
	if e.clock == nil {
		e.clock = time.Now
	}
	return e
}

// MaxDepth returns the engine's depth limit.
func (e *Engine) MaxDepth() int { return e.maxDepth }

// Run runs one child to completion and tears it down. It returns the
// outcome, and an *Error when the child could not start or its evaluation
// failed (the outcome then holds what is known, such as the partial text at
// max turns). It never panics.
func (e *Engine) Run(ctx context.Context, spec Spec) (out *Outcome, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &Error{Kind: ErrPanic, Msg: fmt.Sprintf("Subagent run aborted: panic: %v", p)}
		}
	}()
	if err := checkSpec(spec); err != nil {
		return nil, err
	}
	chain := spec.Delegation
	if slices.Contains(chain, spec.Name) {
		return nil, cycleError(chain, spec.Name)
	}
	depth := max(len(chain), 1)
	maxDepth := e.maxDepth
	if spec.MaxDepth > 0 {
		maxDepth = spec.MaxDepth
	}
	if depth > maxDepth {
		return nil, depthError(maxDepth)
	}
	ctx, scope := inScope(ctx)
	if !e.spawn(scope.Root()) {
		return nil, budgetError(e.maxSpawns)
	}
	release, err := e.slot(ctx, scope)
	if err != nil {
		return nil, runError(err)
	}
	defer release()

	started := e.clock()
	child, err := e.hydrate(spec)
	if err != nil {
		return nil, err
	}
	defer func() { _ = child.Close() }()
	oc := &Outcome{AgentID: e.newID(), SessionID: child.ID(), Name: spec.Name, Depth: depth, ModelName: spec.ModelName}
	if err := e.setUp(child, spec); err != nil {
		return nil, err
	}
	oc.Start = child.Snapshot()
	if bus.Observed[Started](spec.Parent.Bus()) {
		publish(ctx, spec.Parent, Started{AgentID: oc.AgentID, Name: spec.Name, SessionID: child.ID(), ParentID: spec.Parent.ID(),
			Depth: depth, Mode: spec.Mode.String(), Model: spec.ModelName})
	}
	defer func() {
		if !bus.Observed[Finished](spec.Parent.Bus()) {
			return
		}
		fin := Finished{AgentID: oc.AgentID, Name: spec.Name, SessionID: child.ID(), ParentID: spec.Parent.ID(), Depth: depth,
			Duration: e.clock().Sub(started), Usage: oc.Usage.Total}
		for _, n := range oc.Usage.ToolCalls {
			fin.ToolCalls += n
		}
		if err != nil {
			fin.Error = err.Error()
		}
		publish(ctx, spec.Parent, fin)
	}()

	filter := spec.ToolFilter
	if depth >= maxDepth && len(spec.Withhold) > 0 {
		filter.Deny = append(slices.Clone(filter.Deny), spec.Withhold...)
	}
	p, err := Orient(spec.Prompt)
	if err != nil {
		return nil, runError(err)
	}
	timeout := e.timeout
	if spec.Timeout > 0 {
		timeout = spec.Timeout
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	resp, rerr := runner.Evaluate(cctx, runner.Request{
		Prompt: p, Params: spec.Params, Session: child, Messages: spec.Messages, UserMessage: spec.UserMessage,
		Model: spec.Model, ModelName: spec.ModelName, MaxTurns: spec.MaxTurns,
		ToolFilter: filter, InheritedTools: spec.Tools,
		Delegation: append(slices.Clone(chain), spec.Name), Logger: e.logger,
		// The parent's pending messages stay the parent's; nothing is
		// written into the child to say so.
		SkipPendingInbound: true,
	})
	oc.Final = child.Snapshot()
	oc.Duration = e.clock().Sub(started)
	oc.Response = resp
	e.account(oc, resp)
	if resp != nil {
		oc.Text, oc.Output = resp.Text, resp.Output
	}
	if rerr != nil {
		return oc, e.classify(ctx, cctx, rerr, timeout, spec)
	}
	return oc, nil
}

// publish tells the parent's bus observers about a child run.
func publish(ctx context.Context, parent *session.Session, event any) {
	parent.Bus().Publish(context.WithoutCancel(ctx), bus.Envelope{ParentSessionID: parent.ID(), Payload: event})
}

func checkSpec(spec Spec) error {
	var missing []string
	if spec.Name == "" {
		missing = append(missing, "Name")
	}
	if spec.Parent == nil {
		missing = append(missing, "Parent")
	}
	if spec.Prompt == nil {
		missing = append(missing, "Prompt")
	}
	if spec.Model == nil {
		missing = append(missing, "Model")
	}
	if len(missing) > 0 {
		return &Error{Kind: ErrInvalidSpec, Msg: fmt.Sprintf("subagent: the spec lacks %v", missing)}
	}
	return nil
}

// hydrate creates the child session.
func (e *Engine) hydrate(spec Spec) (*session.Session, error) {
	var opts []session.Option
	switch {
	case spec.Mode == Fresh:
		opts = append(opts, session.Fresh())
	case spec.Snapshot != nil:
		opts = append(opts, session.WithSnapshot(*spec.Snapshot))
	}
	child, err := spec.Parent.Fork(opts...)
	if err != nil {
		if errors.Is(err, session.ErrClosed) {
			return nil, &Error{Kind: ErrParentClosed, Msg: "Failed to initialize subagent: the parent session is closed", Err: err}
		}
		return nil, setupError(err)
	}
	return child, nil
}

func (e *Engine) setUp(child *session.Session, spec Spec) error {
	for _, setup := range []func(*session.Session) error{e.setup, spec.Setup} {
		if setup == nil {
			continue
		}
		if err := callSetup(setup, child); err != nil {
			return setupError(err)
		}
	}
	return nil
}

func callSetup(setup func(*session.Session) error, child *session.Session) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	return setup(child)
}

var toolInvokedType = reflect.TypeFor[runner.ToolInvoked]()

// account fills the outcome's usage from the child's response and records.
func (e *Engine) account(out *Outcome, resp *runner.Response) {
	out.Usage.ToolCalls = map[string]int{}
	if resp != nil {
		out.Usage.Own = resp.Usage
		out.Usage.Total = resp.Usage.Add(resp.ChildUsage)
		out.Usage.ModelCalls = resp.Turns
	}
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
	case errors.Is(err, runner.ErrMaxTurns):
		n := spec.MaxTurns
		if n <= 0 {
			n = runner.DefaultMaxTurns
		}
		return maxTurnsError(n, err)
	case ctx.Err() == nil && errors.Is(cctx.Err(), context.DeadlineExceeded):
		return timeoutError(timeout, err)
	}
	return runError(err)
}

// Orient returns p with the section that tells a child agent what it is
// (a subagent working on a delegated task: use only the tools it has, stay
// on the task, end with a concise result), or p itself when it has that
// section already. Run orients every child's prompt; a front end that runs
// one prompt many times orients it once and passes the result, which saves
// building a prompt per run.
func Orient(p *prompt.Prompt) (*prompt.Prompt, error) {
	if p == nil {
		return nil, errors.New("subagent: Orient needs a prompt")
	}
	if slices.Contains(p.ParamTypes(), orientationType) {
		return p, nil
	}
	return p.Extend(orientation)
}

// orientationParams marks a prompt as oriented: no other section takes
// them.
type orientationParams struct{}

var orientationType = reflect.TypeFor[orientationParams]()

// orientation tells a child what it is (appended to every child prompt).
var orientation = prompt.Markdown[orientationParams]("Subagent", `
	You are a subagent: another agent delegated one task to you. Work only on that task,
	use only the tools you have been given, and stop when it is done. The delegating agent
	sees only your final answer, not your intermediate steps, so end with a concise,
	self-contained result.`, prompt.WithKey("offshoot-subagent"))
