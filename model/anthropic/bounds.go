package anthropic

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/offshoot-dev/offshoot/model"
)

// bound returns ctx bounded by the Timeout of a whole call; the cause of
// its end is then a *model.TimeoutError.
func (m *Model) bound(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeoutCause(ctx, m.cfg.Timeout, &model.TimeoutError{Limit: m.cfg.Timeout})
}

// callError is the error a call returns: a bound that fired is said as
// such (which bound, how to change it) rather than as the context error
// or the read error it caused; anything else is redacted.
func (m *Model) callError(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	var te *model.TimeoutError
	if errors.As(err, &te) {
		return fmt.Errorf("anthropic: %w", te)
	}
	if ctx.Err() != nil && errors.As(context.Cause(ctx), &te) {
		return fmt.Errorf("anthropic: %w", te)
	}
	return m.redactError(err)
}

// stallWatch cancels one attempt when the server stays silent for the
// StallTimeout: armed when a streamed request is sent (a whole answer may
// take the model minutes to write, so its wait is bounded by Timeout
// only), re-armed when the answer's headers arrive and at every read of
// its body.
type stallWatch struct {
	limit  time.Duration
	cause  *model.TimeoutError
	ctx    context.Context
	cancel context.CancelCauseFunc

	mu    sync.Mutex
	timer *time.Timer
}

func (m *Model) watch(ctx context.Context, stream bool) (context.Context, *stallWatch) {
	w := &stallWatch{limit: m.cfg.StallTimeout, cause: &model.TimeoutError{Stall: true, Limit: m.cfg.StallTimeout}}
	w.ctx, w.cancel = context.WithCancelCause(ctx)
	if stream {
		w.arm()
	}
	return w.ctx, w
}

func (w *stallWatch) arm() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.timer == nil {
		w.timer = time.AfterFunc(w.limit, func() { w.cancel(w.cause) })
		return
	}
	w.timer.Reset(w.limit)
}

func (w *stallWatch) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.timer != nil {
		w.timer.Stop()
	}
}

// stalled reports whether the watch ended the attempt.
func (w *stallWatch) stalled() bool {
	return w.ctx.Err() != nil && context.Cause(w.ctx) == error(w.cause)
}

// fail ends an attempt that got no answer: a stall is the error then, and
// is retried as a dropped connection is.
func (w *stallWatch) fail(err error) error {
	w.stop()
	if w.stalled() {
		err = fmt.Errorf("anthropic: chat completion: %w", w.cause)
	}
	w.cancel(nil)
	return err
}

// body watches the reads of an answer's body.
func (w *stallWatch) body(r io.ReadCloser) io.ReadCloser {
	w.arm()
	return &watchedBody{r: r, w: w}
}

type watchedBody struct {
	r io.ReadCloser
	w *stallWatch
}

func (b *watchedBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if n > 0 {
		b.w.arm()
	}
	if err != nil && err != io.EOF && b.w.stalled() {
		err = b.w.cause
	}
	return n, err
}

func (b *watchedBody) Close() error {
	b.w.stop()
	err := b.r.Close()
	b.w.cancel(nil)
	return err
}
