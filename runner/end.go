package runner

import (
	"context"
	"errors"

	"github.com/offshoot-dev/offshoot/bus"
	"github.com/offshoot-dev/offshoot/model"
)

// How an evaluation ended: PromptExecuted.Status.
const (
	statusSucceeded = "succeeded"
	statusFailed    = "failed"
	statusCancelled = "cancelled"
	statusAbandoned = "abandoned"
)

// panicError is the failure of an evaluation whose model, loop or
// observer panicked.
type panicError struct{ text string }

func (e *panicError) Error() string { return e.text }

// end records how the evaluation ended — its PromptExecuted, whatever the
// outcome — with the final answer's records when they wait, in one
// dispatch. Evaluate calls it once, on every way out: success, failure,
// panic, cancellation, abandon. It returns err, or the failure to record
// a success. The record is dispatched without the evaluation's
// cancellation, so that a cancelled evaluation's end is recorded too; when
// the session refuses it (closed, a reducer's error), the bus's observers
// are told it all the same, unrecorded, so that every evaluation ends
// with the event for them.
func (r *run) end(resp *Response, err error) error {
	rec := PromptExecuted{Evaluation: r.eval}
	switch {
	case r.rendered != nil:
		rec.NS, rec.Key = r.rendered.NS, r.rendered.Key
	case r.req.Rendered != nil:
		rec.NS, rec.Key = r.req.Rendered.NS, r.req.Rendered.Key
	case r.req.Prompt != nil:
		rec.NS, rec.Key = r.req.Prompt.NS(), r.req.Prompt.Key()
	}
	if resp != nil {
		rec.Usage, rec.ChildUsage, rec.Turns, rec.ToolCalls, rec.Duration = resp.Usage, resp.ChildUsage, resp.Turns, resp.ToolCalls, resp.Duration
	} else {
		rec.Duration = r.clock().Sub(r.start)
	}
	if err == nil {
		rec.Status, rec.Output = statusSucceeded, r.output
	} else {
		r.failed(&rec, err)
	}
	ctx := r.ctx
	if ctx.Err() != nil {
		ctx = context.WithoutCancel(ctx)
	}
	s := r.req.Session
	var cerr error
	answered := r.final != nil
	if answered {
		cerr = r.commitWith(ctx, append(r.final[:3], rec)...)
		r.final = nil
	} else if w := r.waitingOf(err); w != nil {
		cerr = r.commitWith(ctx, *w, rec)
	} else {
		cerr = r.commitWith(ctx, rec)
	}
	switch ee, ok := err.(*EvaluationError); {
	case cerr == nil:
		return err
	case err == nil:
		err = r.fail(PhaseRecord, cerr)
	case ok && answered: // the answer is not recorded either
		ee.Err = errors.Join(ee.Err, cerr)
	}
	rec.Output = nil
	r.failed(&rec, err)
	s.Bus().Publish(ctx, bus.Envelope{SessionID: s.ID(), ParentSessionID: s.ParentID(), Payload: rec})
	return err
}

// failed fills in rec's status and error for an evaluation that failed
// with err.
func (r *run) failed(rec *PromptExecuted, err error) {
	rec.Status, rec.Error, rec.ErrorType = statusFailed, err.Error(), errorKind(err)
	switch {
	case r.waitingOf(err) != nil:
		rec.Status, rec.ErrorType = statusWaiting, statusWaiting
	case errors.Is(err, ErrAbandoned):
		rec.Status = statusAbandoned
	case r.ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)):
		rec.Status = statusCancelled
	}
}

// errorKind is the kind of an evaluation's failure, PromptExecuted's
// ErrorType: the runner's own kinds, a model error's (model.ErrorKind),
// or the phase it failed in.
func errorKind(err error) string {
	switch {
	case errors.Is(err, ErrAbandoned):
		return "abandoned"
	case errors.Is(err, ErrMaxTurns):
		return "max_turns"
	case errors.Is(err, ErrBudgetExceeded):
		return "budget_exceeded"
	case isPanic(err):
		return "panic"
	case errors.Is(err, errGoexit), errors.Is(err, errLoopGoexit):
		return "goexit"
	}
	if kind := model.ErrorKind(err); kind != errorKindOther {
		return kind
	}
	if ee, ok := errors.AsType[*EvaluationError](err); ok {
		switch ee.Phase {
		case PhaseRender:
			return "render"
		case PhaseRecord:
			return "record"
		case PhaseResponse:
			return "invalid_output"
		}
	}
	return errorKindOther
}

// errorKindOther is model.ErrorKind's kind of an error it does not know.
const errorKindOther = "_OTHER"

// isPanic reports whether err is, or wraps, a panic's.
func isPanic(err error) bool {
	_, ok := errors.AsType[*panicError](err)
	return ok
}
