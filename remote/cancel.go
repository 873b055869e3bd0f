package remote

import (
	"context"
	"errors"
	"sync/atomic"

	"github.com/nats-io/nats.go"
)

// errCancelled is the cause of a child stopped because its parent
// cancelled it.
var errCancelled = errors.New("the parent cancelled the subagent")

// remembered is how many cancels of jobs it does not run a worker
// remembers, for a job it has taken and not started yet.
const remembered = 4096

// macsPerCancel is how many cancels of one job a worker remembers before
// it starts: a cancel's MAC is checked only when the job, which carries
// its secret, arrives, so a forged one must not take the place of the
// parent's.
const macsPerCancel = 4

// running is a job that runs here: its secret, to check its cancels, and
// what stops it.
type running struct {
	secret []byte
	cancel context.CancelCauseFunc
}

// onCancel stops the job a cancel names if it runs here and the cancel
// carries the MAC of the job's secret, and otherwise remembers the
// cancel's MAC, in case the job was taken and not started yet.
func (w *worker) onCancel(m *nats.Msg) {
	key := m.Subject[len(cancelSubject("")):]
	w.mu.Lock()
	r, ok := w.running[key]
	if !ok {
		w.remember(key, m.Header)
	}
	w.mu.Unlock()
	if ok {
		if authentic(m.Header, r.secret, macCancel, key, m.Data) {
			r.cancel(errCancelled)
		} else {
			w.forged(key, 1)
		}
	}
	if hooks.cancelSeen != nil {
		hooks.cancelSeen(key)
	}
}

// remember keeps the headers of a cancel of the job of key, which does
// not run here. w.mu is held.
func (w *worker) remember(key string, h nats.Header) {
	if _, ok := w.cancelled[key]; !ok {
		if len(w.cancelOrder) == remembered {
			delete(w.cancelled, w.cancelOrder[0])
			w.cancelOrder = w.cancelOrder[1:]
		}
		w.cancelOrder = append(w.cancelOrder, key)
	}
	if len(w.cancelled[key]) < macsPerCancel {
		w.cancelled[key] = append(w.cancelled[key], h)
	}
}

// hold records that the job of the key, of secret, runs here, stopped by
// cancel, unless a cancel of it with the MAC of its secret came first:
// then it reports false, and the job must not start.
func (w *worker) hold(key string, secret []byte, cancel context.CancelCauseFunc) bool {
	w.mu.Lock()
	cancels := w.cancelled[key]
	delete(w.cancelled, key) // its place in cancelOrder goes when it is the oldest
	stop, forged := false, 0
	for _, h := range cancels {
		if authentic(h, secret, macCancel, key, nil) {
			stop = true
		} else {
			forged++
		}
	}
	if !stop {
		w.running[key] = running{secret: secret, cancel: cancel}
	}
	w.mu.Unlock()
	if !stop && forged > 0 {
		w.forged(key, forged)
	}
	return !stop
}

// release records that the job of the key no longer runs here.
func (w *worker) release(key string) {
	w.mu.Lock()
	delete(w.running, key)
	w.mu.Unlock()
}

// forged counts n cancels of the job of key that do not carry the MAC
// of the job's secret, and logs the first one.
func (w *worker) forged(key string, n int) {
	w.stats.ignoredCancels.Add(uint64(n))
	if w.warnedCancel.CompareAndSwap(false, true) {
		w.setup.Logger.Warn("remote: ignored a cancel of a job that does not come from the job's parent; later ones are ignored silently (see Stats.IgnoredCancels)",
			"job", key)
	}
}

// Stats counts what a worker (Serve) did that a program may watch: give
// one to Setup.Stats and read it while Serve runs or after it returns.
// The zero value is ready; its methods are safe for concurrent use.
type Stats struct {
	ignoredCancels atomic.Uint64
}

// IgnoredCancels returns how many cancels of jobs the worker held it
// ignored because they did not carry the MAC of the job's secret: sent by
// someone else on the server. A cancel of a job the worker never held
// cannot be checked and is not counted.
func (s *Stats) IgnoredCancels() uint64 { return s.ignoredCancels.Load() }
