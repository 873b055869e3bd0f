package httpcall

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/offshoot-dev/offshoot/model"
)

// Bound returns ctx bounded by limit, the Timeout of a whole call; the
// cause of its end is then a *model.TimeoutError.
func Bound(ctx context.Context, limit time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeoutCause(ctx, limit, &model.TimeoutError{Limit: limit})
}

// CallError is the error a call returns: a bound that fired is said as
// such (which bound, how to change it), after prefix (the adapter's
// name), rather than as the context error or the read error it caused;
// anything else is redacted.
func CallError(ctx context.Context, err error, prefix string, redact func(error) error) error {
	if err == nil {
		return nil
	}
	var te *model.TimeoutError
	if errors.As(err, &te) {
		return fmt.Errorf("%s: %w", prefix, te)
	}
	if ctx.Err() != nil && errors.As(context.Cause(ctx), &te) {
		return fmt.Errorf("%s: %w", prefix, te)
	}
	return redact(err)
}

// Watch cancels one attempt when the server stays silent for the
// StallTimeout: armed when a streamed request is sent (a whole answer may
// take the model minutes to write, so its wait is bounded by Timeout
// only), re-armed when the answer's headers arrive and at every read of
// its body.
type Watch struct {
	what   string
	limit  time.Duration
	cause  *model.TimeoutError
	ctx    context.Context
	cancel context.CancelCauseFunc

	mu    sync.Mutex
	timer *time.Timer
}

// NewWatch watches one attempt whose request goes with the returned
// context, for a StallTimeout of limit; what names the call in a stall's
// error (the adapter's name and the call's). A streamed request is
// watched from the start.
func NewWatch(ctx context.Context, limit time.Duration, stream bool, what string) (context.Context, *Watch) {
	w := &Watch{what: what, limit: limit, cause: &model.TimeoutError{Stall: true, Limit: limit}}
	w.ctx, w.cancel = context.WithCancelCause(ctx)
	if stream {
		w.arm()
	}
	return w.ctx, w
}

func (w *Watch) arm() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.timer == nil {
		w.timer = time.AfterFunc(w.limit, func() { w.cancel(w.cause) })
		return
	}
	w.timer.Reset(w.limit)
}

func (w *Watch) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.timer != nil {
		w.timer.Stop()
	}
}

// stalled reports whether the watch ended the attempt.
func (w *Watch) stalled() bool {
	return w.ctx.Err() != nil && context.Cause(w.ctx) == error(w.cause)
}

// Fail ends an attempt that got no answer: a stall is the error then, and
// is retried as a dropped connection is.
func (w *Watch) Fail(err error) error {
	w.stop()
	if w.stalled() {
		err = fmt.Errorf("%s: %w", w.what, w.cause)
	}
	w.cancel(nil)
	return err
}

// Body watches the reads of an answer's body.
func (w *Watch) Body(r io.ReadCloser) io.ReadCloser {
	w.arm()
	return &watchedBody{r: r, w: w}
}

type watchedBody struct {
	r io.ReadCloser
	w *Watch
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
