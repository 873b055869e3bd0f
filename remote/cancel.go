package remote

import (
	"context"
	"errors"

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
			w.forged(key)
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
	stop := false
	for _, h := range cancels {
		stop = stop || authentic(h, secret, macCancel, key, nil)
	}
	if !stop {
		w.running[key] = running{secret: secret, cancel: cancel}
	}
	w.mu.Unlock()
	if !stop && len(cancels) > 0 {
		w.forged(key)
	}
	return !stop
}

// release records that the job of the key no longer runs here.
func (w *worker) release(key string) {
	w.mu.Lock()
	delete(w.running, key)
	w.mu.Unlock()
}

// forged counts a cancel of the job of key that does not carry the MAC
// of the job's secret, and logs the first one.
func (w *worker) forged(key string) {
	if w.rejected.Add(1) == 1 {
		w.setup.Logger.Warn("remote: ignored a cancel of a job that does not come from the job's parent; later ones are ignored silently",
			"job", key)
	}
}
