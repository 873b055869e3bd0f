package remote

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// watch returns the worker's life: a context that ends when ctx does, or
// with a cause that is nats.ErrConnectionClosed (closedCause) when the
// connection closes for good (no reconnection left) — the children running then stop and their
// jobs go back to the pool. It sets w.drain, the context in which the
// worker sends what finished children recorded and their results: it
// ends when the connection closes for good, or drainGrace after ctx
// does, so that a worker asked to stop still sends the results it has,
// and never waits for ever for a server that is away. lose ends the life;
// stop ends the watching and the drain.
func (w *worker) watch(ctx context.Context) (life context.Context, lose context.CancelCauseFunc, stop func()) {
	life, lose = context.WithCancelCause(ctx)
	drain, endDrain := context.WithCancelCause(context.Background())
	w.drain = drain
	closed := w.nc.StatusChanged(nats.CLOSED)
	done := make(chan struct{})
	var watching sync.WaitGroup
	watching.Go(func() {
		if st, ok := <-closed; ok && st == nats.CLOSED {
			cause := w.closedCause()
			lose(cause)
			endDrain(cause)
		}
	})
	watching.Go(func() {
		select {
		case <-ctx.Done():
		case <-done:
			return
		}
		t := time.NewTimer(drainGrace)
		defer t.Stop()
		select {
		case <-t.C:
			endDrain(errors.New("the worker stopped before it could send the result"))
		case <-done:
		}
	})
	if w.nc.IsClosed() { // before the listener was there
		cause := w.closedCause()
		lose(cause)
		endDrain(cause)
	}
	return life, lose, func() {
		w.nc.RemoveStatusListener(closed)
		close(done)
		watching.Wait()
		endDrain(nil)
	}
}

// closedCause says why the worker's connection closed: the server
// unreachable for as long as the connection tries to reconnect
// (Connection.Reconnect), or closed by the program.
func (w *worker) closedCause() error {
	if errors.Is(w.nc.LastError(), nats.ErrNoServers) {
		return &unreachable{window: time.Duration(w.nc.Opts.MaxReconnect) * w.nc.Opts.ReconnectWait}
	}
	return nats.ErrConnectionClosed
}

// unreachable is why a worker's connection closed after it tried to
// reconnect for as long as it may.
type unreachable struct{ window time.Duration }

func (e *unreachable) Error() string {
	return fmt.Sprintf("the NATS server was unreachable for about %s, as long as the connection tries to reconnect (%v)",
		e.window, nats.ErrConnectionClosed)
}

// Is makes errors.Is see nats.ErrConnectionClosed in it.
func (e *unreachable) Is(target error) bool { return target == nats.ErrConnectionClosed }

// drainGrace is how long a worker asked to stop still sends what its
// finished children recorded.
const drainGrace = 5 * time.Second

// fetchWait is how long a request for jobs waits on the server when
// there is none. It is under 10 seconds so that the request goes without
// idle heartbeats: a heartbeat missed on a busy machine made the client
// give up a request the server still held, and a job delivered to it was
// lost to the worker until the ack wait gave it again. The connection's
// own pings tell a server that is gone.
var fetchWait = 5 * time.Second

// take waits for a free slot and takes it with all the others free: the
// worker asks for as many jobs as it can start at once, never more, so
// that every job it holds runs (a job held without running would be given
// again after the ack wait, and run twice).
func (w *worker) take(ctx context.Context, slots chan struct{}) (int, error) {
	select {
	case slots <- struct{}{}:
	case <-ctx.Done():
		return 0, ctx.Err()
	}
	n := 1
	for n < cap(slots) {
		select {
		case slots <- struct{}{}:
			n++
		default:
			return n, nil
		}
	}
	return n, nil
}

// gone reports whether a fetch error means the worker can take no more
// jobs: its connection closed for good, or its pool's consumer deleted.
func gone(ctx context.Context, pool jetstream.Consumer, err error) bool {
	if errors.Is(err, nats.ErrConnectionClosed) || errors.Is(err, jetstream.ErrConnectionClosed) ||
		errors.Is(err, jetstream.ErrConsumerNotFound) || errors.Is(err, jetstream.ErrConsumerDeleted) {
		return true
	}
	_, err = pool.Info(ctx)
	return errors.Is(err, jetstream.ErrConsumerNotFound) || errors.Is(err, nats.ErrConnectionClosed)
}
