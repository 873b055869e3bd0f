// Package subagent is the engine both delegation front ends share — the
// dispatch_subagent tool and the Task tool. It runs a child agent in a
// session of its own, forked from a snapshot of the parent or fresh, on the
// parent's bus, with the parent's tools, a resolved model and limits: depth
// and cycles, concurrency per parent session, a spawn budget per run
// (WithRun), a timeout and max turns. Whatever happens, the child session is
// closed afterwards, and the parent's session is not written to while the
// child runs: the front end records what the child spent
// (Outcome.Spent) with its tool's result, and a background child, when it
// ends, adds one runner.Inbound message telling the parent how it went,
// with that record.
//
// Run runs a child to completion; Start runs it in the background and
// returns a Task at once (Tasks finds it again by id). Options extend
// every run: hooks at a child's start and stop (Options.StartHooks,
// StopHooks), an approver asked before each of its tool calls
// (Options.Approve), transcripts on disk (Options.Transcripts, read back with
// package transcript), from which a fresh agent can be resumed (Spec.Resume,
// Agent), and handlers of background tasks' notifications
// (Options.OnTaskNotification).
//
// The spawn budget belongs to a run (WithRun), not to a session, so a
// long chat can delegate in every turn. A child's evaluation is nested in
// its parent's (it runs with the delegating tool call's context), so the
// parent's token Budget bounds what its children spend, and their
// spending counts in the parent's ChildUsage as it happens — also when
// the parent is cancelled.
package subagent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"sync"
	"time"

	"github.com/offshoot-dev/offshoot/internal/randid"

	"github.com/offshoot-dev/offshoot/bus"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/store"
	"github.com/offshoot-dev/offshoot/subagent/transcript"
	"github.com/offshoot-dev/offshoot/tools"
)

// Defaults of the engine's limits.
const (
	defaultMaxDepth      = 3
	defaultMaxConcurrent = 5
	defaultMaxSpawns     = 100
	defaultTimeout       = 10 * time.Minute
)

// Engine runs child agents. Create one with New; it is safe for concurrent
// use and holds no session.
type Engine struct {
	maxDepth, maxConcurrent, maxSpawns int
	depthSet                           bool // Options.MaxDepth gave the depth limit
	timeout                            time.Duration
	setup                              func(*session.Session) error
	newID                              func() string
	clock                              func() time.Time
	logger                             *slog.Logger

	transcripts transcript.Dir // "" when off
	store       store.Store    // nil when off
	startHooks  []StartHook
	stopHooks   []StopHook
	approve     func(context.Context, *tools.Invocation, model.ToolCall) error
	afterTool   func(context.Context, *tools.Invocation, model.ToolCall, string) string
	notify      []func(context.Context, TaskNotification)
	tasks       *Manager
	exec        Executor

	mu    sync.Mutex
	live  map[string]int              // ids of the agents running now
	slots map[*session.Session]*slots // by parent session, while in use
}

// Options configure an Engine. The zero value is an engine with the
// default limits, no transcripts and no hooks.
type Options struct {
	// MaxDepth is how deep delegation may nest (3 when 0). A child at the
	// limit runs without the delegating tools.
	MaxDepth int
	// MaxConcurrent is how many children of one parent session run at
	// once (5 when 0); more wait for a slot while their context allows.
	MaxConcurrent int
	// MaxSpawns is how many children one run may spawn in all (100 when
	// 0; see WithRun).
	MaxSpawns int
	// Timeout is the time limit of one child run (10 minutes when 0).
	Timeout time.Duration
	// ChildSetup runs on every child after hydration, before it runs —
	// for derived reducers. If it fails the run aborts and the parent is
	// untouched.
	ChildSetup func(child *session.Session) error
	// NewID makes agent ids (random UUIDs when nil).
	NewID func() string
	// Clock times runs (time.Now when nil).
	Clock func() time.Time
	// Logger is handed to the children's tools, and the engine reports
	// problems that do not stop a run with it — a transcript it could not
	// write, a notification it could not deliver (slog.Default() when
	// nil).
	Logger *slog.Logger
	// Transcripts, when set, is the directory the engine keeps a
	// transcript of every child under: <dir>/<root session id>/subagents/
	// agent-<id>.jsonl holds the child's conversation, one JSON message
	// per line — the task prompt first: the first user message, or the
	// system message when the task is in the prompt (Spec.TaskInPrompt),
	// otherwise left out — appended as the child goes;
	// agent-<id>.meta.json says what the agent is and how it ended
	// (transcript.Meta); a background task's output goes to
	// agent-<id>.output. Ids are written in a form safe for file names.
	// Resuming an agent needs its transcript. Writing happens beside the
	// child, never in its way: a write that fails is logged and the run
	// goes on. Read the files back with the transcript.Dir's methods.
	Transcripts transcript.Dir
	// Store, when set, is the store the parents' sessions are kept in
	// (offshoot.Options.Store sets it): every child's session is stored
	// under its parent's with tags that name the agent, and resuming an
	// agent reads its conversation from there — also in a later process.
	// Transcripts are then an export; an agent the store does not hold
	// is looked up in them.
	Store store.Store
	// StartHooks run before each child's first model call, in order;
	// their texts are joined (see StartHook).
	StartHooks []StartHook
	// StopHooks run when a child is about to finish, in order; every
	// reason given blocks, joined (see StopHook).
	StopHooks []StopHook
	// Approve is asked before each of a child's tool calls, as
	// runner.Request.Approve is for an evaluation: a nil error lets the
	// call run; an error denies it, and the child's model reads
	// "Permission to use the tool 'NAME' was denied: <the error's text>"
	// as the call's failed result and carries on. A spec's own
	// Request.Approve wins. Give the same function to the program's main
	// evaluations, so that one set of rules covers the whole tree;
	// Chain(ctx) tells a child's call (the chain of agents that led to it)
	// from the main agent's (empty).
	Approve func(ctx context.Context, inv *tools.Invocation, call model.ToolCall) error
	// AfterTool is told of each of a child's tool calls that ran, as
	// runner.Request.AfterTool is for an evaluation (a PostToolUse hook);
	// a spec's own Request.AfterTool wins.
	AfterTool func(ctx context.Context, inv *tools.Invocation, call model.ToolCall, result string) string
	// OnTaskNotification are called when a background task ends, after
	// its notification was published and its status became final. They
	// run on the task's goroutine: return soon. A panic in one is logged.
	OnTaskNotification []func(ctx context.Context, n TaskNotification)
	// Executor runs the children's evaluations (in this process when
	// nil). Package remote's runs them on worker processes; everything
	// else — limits, hooks, usage, transcripts — stays here and behaves
	// the same with either.
	Executor Executor
}

// New returns an engine configured by opts. Limits below one fall back to
// their defaults.
func New(opts Options) *Engine {
	e := &Engine{
		maxDepth: opts.MaxDepth, maxConcurrent: opts.MaxConcurrent, maxSpawns: opts.MaxSpawns, timeout: opts.Timeout,
		setup: opts.ChildSetup, newID: opts.NewID, clock: opts.Clock, logger: opts.Logger, transcripts: opts.Transcripts, store: opts.Store,
		approve: opts.Approve, afterTool: opts.AfterTool, tasks: newManager(), live: map[string]int{}, slots: map[*session.Session]*slots{},
		exec: opts.Executor,
	}
	if e.exec == nil {
		e.exec = inProcess{}
	}
	for _, h := range opts.StartHooks {
		if h != nil {
			e.startHooks = append(e.startHooks, h)
		}
	}
	for _, h := range opts.StopHooks {
		if h != nil {
			e.stopHooks = append(e.stopHooks, h)
		}
	}
	for _, h := range opts.OnTaskNotification {
		if h != nil {
			e.notify = append(e.notify, h)
		}
	}
	e.depthSet = e.maxDepth >= 1
	if !e.depthSet {
		e.maxDepth = defaultMaxDepth
	}
	if e.maxConcurrent < 1 {
		e.maxConcurrent = defaultMaxConcurrent
	}
	if e.maxSpawns < 1 {
		e.maxSpawns = defaultMaxSpawns
	}
	if e.timeout <= 0 {
		e.timeout = defaultTimeout
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

// MaxDepthConfigured reports whether the engine's depth limit was set with
// Options.MaxDepth rather than left at the default (3) — for a front end with
// a default of its own (the Task tool's is 1), which follows a limit the
// program chose and keeps its own otherwise.
func (e *Engine) MaxDepthConfigured() bool { return e.depthSet }

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
	c, ctx, err := e.prepare(ctx, spec)
	if err != nil {
		return nil, err
	}
	out, _, err = c.execute(ctx)
	return out, err
}

// log is the logger the engine reports to.
func (e *Engine) log() *slog.Logger {
	if e.logger != nil {
		return e.logger
	}
	return slog.Default()
}

// publish tells the parent's bus observers about a child run.
func publish(ctx context.Context, parent *session.Session, event any) {
	parent.Bus().Publish(context.WithoutCancel(ctx), bus.Envelope{ParentSessionID: parent.ID(), Payload: event})
}

// checkSpec checks that spec has what a child needs: a model too when
// it runs in process (local).
func checkSpec(spec Spec, local bool) error {
	var missing []string
	if spec.Name == "" {
		missing = append(missing, "Name")
	}
	if spec.Parent == nil {
		missing = append(missing, "Parent")
	}
	if spec.Request.Prompt == nil {
		missing = append(missing, "Prompt")
	}
	if local && spec.Request.Model == nil {
		missing = append(missing, "Model")
	}
	if len(missing) > 0 {
		return &Error{Kind: ErrInvalidSpec, Msg: fmt.Sprintf("subagent: the spec lacks %v", missing)}
	}
	return nil
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
