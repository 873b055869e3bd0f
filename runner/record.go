package runner

import (
	"context"
	"fmt"
	"strings"

	"github.com/offshoot-dev/offshoot/model"
)

// commit dispatches what the evaluation did to its session; a failure says
// what it means.
func (r *run) commit(events ...any) error {
	return r.commitWith(r.ctx, events...)
}

// commitWith is commit with ctx.
func (r *run) commitWith(ctx context.Context, events ...any) error {
	if err := r.req.Session.Dispatch(ctx, events...); err != nil {
		return fmt.Errorf("runner: recording the evaluation in session %s failed, so its conversation there is incomplete (a later Continue would not see this turn): %w", r.req.Session.ID(), err)
	}
	return nil
}

// recordError marks a failure to record, so the loop reports it in
// PhaseRecord.
type recordError struct{ err error }

func (e *recordError) Error() string { return e.err.Error() }
func (e *recordError) Unwrap() error { return e.err }

// reask sends an answer that does not match the declared output back to
// the model, with what was wrong, while retries and turns are left; it
// reports whether it did. The answer and the request are recorded like
// any turn.
func (r *run) reask() (bool, error) {
	out := r.rendered.Output
	if out == nil || r.outputRetries <= 0 || r.resp.Turns >= r.maxTurns || r.ctx.Err() != nil {
		return false, nil
	}
	_, err := out.Parse(r.resp.Text)
	if err == nil {
		return false, nil
	}
	r.outputRetries--
	what := strings.TrimPrefix(err.Error(), "prompt: structured output: ")
	ask := model.UserMessage("Your answer could not be used: " + what + ". Answer again with the whole result as JSON that matches the required output, and nothing else.")
	events := append(r.final[:3], ConversationMessage{Evaluation: r.eval, Message: ask})
	r.final = nil
	if err := r.commit(events...); err != nil {
		return false, err
	}
	r.resp.Messages = append(r.resp.Messages, ask)
	return true, nil
}
