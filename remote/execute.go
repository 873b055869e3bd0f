package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/offshoot-dev/offshoot/bus"
	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/subagent"
	"github.com/offshoot-dev/offshoot/tools"
)

// Execute runs the job's evaluation on a worker of the pool and waits for
// it (subagent.Executor): it stores the state the child started from,
// publishes the evaluation as the engine prepared it (its prompt
// rendered, its tools named), applies what the child
// records to its session as it arrives, and returns the response when the
// result comes — or, when ctx ends first, cancels the child on its worker
// and returns what it did so far.
func (x *Executor) Execute(ctx context.Context, job *subagent.Job) (*runner.Response, error) {
	req := job.Request
	if req.Session == nil || req.Prompt == nil && req.Rendered == nil {
		return nil, errors.New("remote: a job needs a Session and a Prompt (or a Rendered one)")
	}
	rendered := req.Rendered
	if rendered == nil { // not prepared by an engine: rendered here, as the engine would
		var err error
		if rendered, err = runner.Render(req); err != nil {
			return nil, err
		}
	}
	name := rendered.NS + "/" + rendered.Key
	failed := func(phase runner.Phase, err error) error {
		return &runner.EvaluationError{Phase: phase, Prompt: name, Err: err}
	}
	select {
	case <-x.gone:
		return nil, failed(runner.PhaseRequest, errGone)
	default:
	}
	x.mu.Lock()
	closed := x.closed
	x.mu.Unlock()
	if closed {
		return nil, failed(runner.PhaseRequest, errClosed)
	}
	// The child's session here is a copy of the one on its worker: it
	// applies what the evaluation records there, seeds included.
	child := req.Session
	sets := runner.Sets(rendered)
	for i := range sets {
		sets[i].Seed = nil
	}
	if err := child.Install(ctx, sets...); err != nil {
		return nil, failed(runner.PhaseRender, err)
	}
	j, err := x.job(ctx, job, rendered)
	if err != nil {
		return nil, failed(runner.PhaseRender, err)
	}
	w := newWaiter()
	w.job, w.child = j, child
	// The child's calls as the parent's approver and AfterTool know them.
	inv := &tools.Invocation{Session: child, Bus: child.Bus(), PromptNS: rendered.NS, PromptKey: rendered.Key, Tools: rendered.Tools,
		Model: req.Model, ModelName: req.ModelName, CacheKey: req.CacheKey, Logger: req.Logger}
	if j.Approve != "" {
		stop, err := x.answerApprovals(ctx, j, w, inv, req.Approve)
		if err != nil {
			return nil, failed(runner.PhaseRender, err)
		}
		defer stop()
	}
	if j.AfterTool != "" {
		logger := req.Logger
		if logger == nil {
			logger = x.setup.Logger
		}
		stop, err := x.answerAfterTool(ctx, j, w, inv, logger, req.AfterTool)
		if err != nil {
			return nil, failed(runner.PhaseRender, err)
		}
		defer stop()
	}
	start := child.Snapshot()
	run := &remoteRun{x: x, ctx: ctx, child: child, start: start, agent: job.ID, attempts: map[string]*attempt{}}

	x.mu.Lock()
	if x.closed { // closed meanwhile: no reply would reach it
		x.mu.Unlock()
		return nil, failed(runner.PhaseRequest, errClosed)
	}
	x.waiting[j.Token] = w
	x.mu.Unlock()
	defer func() {
		x.mu.Lock()
		delete(x.waiting, j.Token)
		for seq, tok := range x.bySeq {
			if tok == j.Token {
				delete(x.bySeq, seq)
			}
		}
		x.mu.Unlock()
	}()
	data, err := json.Marshal(j)
	if err != nil {
		return nil, failed(runner.PhaseRender, err)
	}
	msg := &nats.Msg{Subject: jobsSubject(x.pool), Data: data, Header: nats.Header{}}
	tctx := ctx
	if x.traceContext != nil && job.CallID != "" {
		tctx = x.traceContext(ctx, job.Parent, job.CallID)
	}
	inject(tctx, msg.Header)
	ack, err := x.js.PublishMsg(ctx, msg, jetstream.WithMsgID(j.key()))
	if err != nil {
		return nil, failed(runner.PhaseRequest, fmt.Errorf("publishing the subagent's job to pool %q: %w", x.pool, err))
	}
	x.mu.Lock()
	x.bySeq[ack.Sequence] = j.Token
	x.mu.Unlock()

	var res *result
	cancelled := false
	var grace, missing, recheck <-chan time.Time
	var suspect *notice // a notice the server's state did not confirm yet
	done, gone, lost := ctx.Done(), x.gone, false
	for res == nil {
		select {
		case <-w.signal:
		case <-done:
			// Cancel on the worker (or in the queue), and wait a while for
			// what the child did until it stopped.
			done, cancelled = nil, true
			x.cancel(j)
			_ = x.in.jobs.DeleteMsg(context.WithoutCancel(ctx), ack.Sequence)
			g := req.CancelGrace
			if g <= 0 {
				g = 5 * time.Second
			}
			t := time.NewTimer(g)
			defer t.Stop()
			grace = t.C
			continue
		case <-grace:
			return run.partial(rendered, failed(runner.PhaseRequest, context.Cause(ctx)))
		case <-missing:
			return run.partial(rendered, failed(runner.PhaseRecord, fmt.Errorf(
				"the worker's result counts %d batches of the subagent's, and some never arrived within %s of it (their messages were lost); its work is incomplete", run.pending.Batches, x.missingWait)))
		case <-recheck:
			if x.confirmed(ctx, j, suspect) {
				return run.partial(rendered, failed(runner.PhaseRequest, x.gaveUp(suspect)))
			}
			recheck = time.After(x.setup.AckWait)
		case <-gone:
			// Nothing arrives after this: what came before is taken below.
			gone, lost = nil, true
		}
		for _, r := range w.take() {
			switch {
			case r.closed:
				return run.partial(rendered, failed(runner.PhaseRequest, errors.New("the remote executor was closed while the subagent ran")))
			case r.delta != nil:
				publishDelta(w.child, *r.delta)
			case r.notice != nil:
				if x.confirmed(ctx, j, r.notice) {
					return run.partial(rendered, failed(runner.PhaseRequest, x.gaveUp(r.notice)))
				}
				if suspect == nil {
					x.tell("notice")
					recheck = time.After(x.setup.AckWait)
				}
				suspect = r.notice
			case r.result:
				var rr result
				if err := json.Unmarshal(r.data, &rr); err != nil {
					continue
				}
				if len(rr.Tail) > 0 {
					if err := run.add(rr.Attempt, rr.Worker, rr.PID, rr.Delivery, rr.Tail); err != nil {
						return run.partial(rendered, failed(runner.PhaseRecord, err))
					}
				}
				if run.complete(&rr) {
					res = &rr
				} else {
					run.pending = &rr
					if missing == nil {
						t := time.NewTimer(x.missingWait)
						defer t.Stop()
						missing = t.C
					}
				}
			default:
				var p progress
				if err := json.Unmarshal(r.data, &p); err != nil {
					continue
				}
				if err := run.add(p.Attempt, p.Worker, p.PID, p.Delivery, p.Batches); err != nil {
					return run.partial(rendered, failed(runner.PhaseRecord, err))
				}
				if run.pending != nil && run.complete(run.pending) {
					res = run.pending
				}
			}
			if res != nil {
				break
			}
		}
		if res == nil && lost {
			if cancelled {
				return run.partial(rendered, failed(runner.PhaseRequest, context.Cause(ctx)))
			}
			return run.partial(rendered, failed(runner.PhaseRequest, errGone))
		}
		if run.budgetSpent && !cancelled {
			cancelled = true
			x.cancel(j)
		}
	}
	if suspect != nil {
		// The job's worker finished it: the notice was not the server's.
		x.reject(j, w, "a notice that the server gave up on the job, which the pool's state did not confirm")
	}
	if err := run.settle(res.Attempt); err != nil {
		return run.partial(rendered, failed(runner.PhaseRecord, err))
	}
	resp, err := run.response(rendered, res)
	if cancelled && ctx.Err() != nil && err == nil {
		err = failed(runner.PhaseRequest, context.Cause(ctx))
	}
	return resp, err
}

// cancel asks the worker of j, if any, to stop it, with a cancel signed
// by j's secret.
func (x *Executor) cancel(j *job) {
	_ = x.nc.PublishMsg(&nats.Msg{Subject: cancelSubject(j.key()), Header: replyHeader(j.Secret, macCancel, j.key(), nil)})
}

// job is the wire form of job: the evaluation as the engine prepared it.
func (x *Executor) job(ctx context.Context, sj *subagent.Job, rendered *prompt.Rendered) (*job, error) {
	req := sj.Request
	j := &job{V: wireVersion, Token: x.jobToken(sj), Secret: newSecret(), ID: sj.ID, Name: sj.Name, Root: sj.Root, RootPrompt: sj.RootPrompt,
		Agents: sj.Agents, Schema: session.SchemaVersion, Fingerprint: x.fp, Session: req.Session.ID(),
		NS: rendered.NS, Key: rendered.Key, Text: rendered.Text, Tools: rendered.Tools.Names(), Messages: req.Messages,
		UserMessage: req.UserMessage, Continue: req.Continue, ModelName: req.ModelName, MaxTurns: req.MaxTurns, Budget: req.Budget,
		OutputRetries: req.OutputRetries, CancelGrace: req.CancelGrace, CacheKey: req.CacheKey}
	if out := rendered.Output; out != nil {
		j.Output = typeKey(out.Type())
	}
	j.Needs = x.index.needs(sj.Name, rendered)
	j.Reply = x.replyPrefix() + j.Token
	if dl, ok := ctx.Deadline(); ok {
		j.Deadline = dl.Add(time.Second) // the parent cancels at its deadline; the worker's is a backstop
	}
	if !sj.Fresh {
		name, err := x.storeSnapshot(ctx, req.Session, sj.From)
		if err != nil {
			return nil, err
		}
		j.Snapshot = name
	}
	if req.Approve != nil {
		j.Approve = "offshoot.approve." + x.id + "." + j.Token
	}
	if req.AfterTool != nil {
		j.AfterTool = "offshoot.aftertool." + x.id + "." + j.Token
	}
	if bus.Observed[runner.Delta](req.Session.Bus()) {
		j.Deltas = deltaSubject(x.id, j.Token)
	}
	return j, nil
}
