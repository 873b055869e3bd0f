package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
)

// remoteRun is the parent's side of one job: the child's session, kept
// equal to the child's on the worker of the latest attempt.
type remoteRun struct {
	x       *Executor
	ctx     context.Context
	child   *session.Session
	start   session.Snapshot
	agent   string
	pending *result // a result waiting for batches still on their way

	attempts    map[string]*attempt
	applied     string // the attempt whose batches the child holds
	n           int    // how many of them
	budgetSpent bool
}

// attempt is one delivery of the job to a worker: its batches by number.
type attempt struct {
	batches   map[int]*batch
	charged   map[int]bool
	announced bool
}

// add takes an attempt's batches and applies what can be applied in
// order.
func (r *remoteRun) add(id, worker string, pid, delivery int, batches []batch) error {
	a := r.attempts[id]
	if a == nil {
		a = &attempt{batches: map[int]*batch{}, charged: map[int]bool{}}
		r.attempts[id] = a
	}
	if !a.announced {
		a.announced = true
		publishRan(r.ctx, r.child, Ran{AgentID: r.agent, Worker: worker, PID: pid, Attempt: max(delivery, 1)})
	}
	first := false
	for i := range batches {
		b := &batches[i]
		if b.N < 1 || a.batches[b.N] != nil {
			continue
		}
		a.batches[b.N] = b
		first = first || b.N == 1
	}
	if r.applied != id {
		// A new attempt: its worker started the child again from its start.
		if r.applied != "" && !first {
			return nil // wait for its first batch
		}
		if err := r.switchTo(id); err != nil {
			return err
		}
	}
	return r.catchUp(a)
}

// switchTo makes the child's state the start again, for attempt id.
func (r *remoteRun) switchTo(id string) error {
	if r.n > 0 {
		if err := r.child.Rollback(r.start); err != nil {
			return fmt.Errorf("the subagent's worker changed and its state could not be reset: %w", err)
		}
	}
	r.applied, r.n = id, 0
	return nil
}

// catchUp applies the attempt's batches that follow those applied.
func (r *remoteRun) catchUp(a *attempt) error {
	for {
		p := a.batches[r.n+1]
		if p == nil {
			return nil
		}
		events := p.Events
		if p.Object != "" {
			raw, err := readObject(r.ctx, r.x.in.objects, p.Object, r.x.setup.MaxSnapshotBytes)
			if err != nil {
				return fmt.Errorf("reading batch %d of the subagent: %w", p.N, err)
			}
			if err := json.Unmarshal(raw, &events); err != nil {
				return fmt.Errorf("reading batch %d of the subagent: %w", p.N, err)
			}
		}
		evs, err := decodeEvents(r.child.Registry(), events)
		if err != nil {
			return err
		}
		if err := r.child.Dispatch(context.WithoutCancel(r.ctx), evs...); err != nil {
			return fmt.Errorf("applying batch %d of the subagent: %w", p.N, err)
		}
		if !a.charged[p.N] {
			a.charged[p.N] = true
			for _, e := range evs {
				if mc, ok := e.(runner.ModelCalled); ok && runner.Charge(r.ctx, mc.Usage) {
					r.budgetSpent = true
				}
			}
		}
		r.n++
	}
}

// complete reports whether the child holds every batch of res's attempt.
func (r *remoteRun) complete(res *result) bool {
	if res.Batches == 0 {
		return true
	}
	a := r.attempts[res.Attempt]
	if a == nil || len(a.batches) < res.Batches {
		return false
	}
	for i := 1; i <= res.Batches; i++ {
		if a.batches[i] == nil {
			return false
		}
	}
	return true
}

// settle makes the child hold exactly the batches of the attempt whose
// result came.
func (r *remoteRun) settle(id string) error {
	a := r.attempts[id]
	if a == nil {
		if r.n > 0 {
			return r.switchTo(id)
		}
		return nil
	}
	if r.applied != id {
		if err := r.switchTo(id); err != nil {
			return err
		}
	}
	return r.catchUp(a)
}

// response is the child's response, read from what it recorded, with
// the counts of the worker's run (a continued evaluation's records hold
// those of its earlier runs too), and the worker's error.
func (r *remoteRun) response(rendered *prompt.Rendered, res *result) (*runner.Response, error) {
	name := rendered.NS + "/" + rendered.Key
	var resp *runner.Response
	if wr := res.Response; wr != nil {
		var err error
		resp, err = runner.Recorded(r.child.Snapshot(), wr.Evaluation, rendered)
		resp.Text, resp.Usage, resp.ChildUsage, resp.Turns, resp.ToolCalls, resp.ToolsUsed, resp.Duration =
			wr.Text, wr.Usage, wr.ChildUsage, wr.Turns, wr.ToolCalls, wr.ToolsUsed, wr.Duration
		if err == nil && res.Error == nil && rendered.Output != nil && resp.Output == nil {
			err = errors.New("the worker's child ended without recording its structured output")
		}
		if err != nil && res.Error == nil {
			return resp, &runner.EvaluationError{Phase: runner.PhaseResponse, Prompt: name, Err: err}
		}
	}
	if e := res.Error; e != nil {
		phase := runner.Phase(e.Phase)
		if phase == "" {
			phase = runner.PhaseRequest
		}
		if e.Kind == kindMismatch || e.Kind == kindWorker {
			return resp, &runner.EvaluationError{Phase: phase, Prompt: name, Err: &workerError{kind: e.Kind, msg: "worker " + res.Worker + ": " + e.Message}}
		}
		return resp, &runner.EvaluationError{Phase: phase, Prompt: name, Err: &workerError{kind: e.Kind, msg: e.Message}}
	}
	return resp, nil
}

// partial is the response so far, with err, read from what the child
// holds of its latest evaluation, so that a child stopped on its worker
// keeps its work, as one stopped in process does.
func (r *remoteRun) partial(rendered *prompt.Rendered, err error) (*runner.Response, error) {
	snap := r.child.Snapshot()
	evals := runner.Evaluations(snap)
	if len(evals) == 0 || r.applied == "" {
		return nil, err
	}
	resp, _ := runner.Recorded(snap, evals[len(evals)-1], rendered)
	return resp, err
}

// workerError is an evaluation's failure on a worker: its text, and what
// it matches (errors.Is) as the error it was there.
type workerError struct {
	kind, msg string
}

func (e *workerError) Error() string { return e.msg }

func (e *workerError) Is(target error) bool {
	switch e.kind {
	case kindMaxTurns:
		return target == runner.ErrMaxTurns
	case kindBudget:
		return target == runner.ErrBudgetExceeded
	case kindCanceled:
		return target == context.Canceled
	case kindDeadline:
		return target == context.DeadlineExceeded
	case kindMismatch:
		return target == ErrMismatch
	}
	return false
}

// ErrMismatch is matched (errors.Is) by the error of a child whose
// worker runs another build of the program — another snapshot schema
// version or registry fingerprint (see Setup). The error's text names
// both sides' versions.
var ErrMismatch = errors.New("remote: the worker runs another build of the program")
