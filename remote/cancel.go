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

// onCancel stops the job a cancel names if it runs here, and otherwise
// remembers the cancel, in case the job was taken and not started yet.
func (w *worker) onCancel(m *nats.Msg) {
	key := m.Subject[len(cancelSubject("")):]
	w.mu.Lock()
	cancel := w.running[key]
	if cancel == nil && !w.cancelled[key] {
		if len(w.cancelOrder) == remembered {
			delete(w.cancelled, w.cancelOrder[0])
			w.cancelOrder = w.cancelOrder[1:]
		}
		w.cancelled[key] = true
		w.cancelOrder = append(w.cancelOrder, key)
	}
	w.mu.Unlock()
	if cancel != nil {
		cancel(errCancelled)
	}
	if hooks.cancelSeen != nil {
		hooks.cancelSeen(key)
	}
}

// hold records that the job of the key runs here, stopped by cancel,
// unless a cancel of it came first: then it reports false, and the job
// must not start.
func (w *worker) hold(key string, cancel context.CancelCauseFunc) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.cancelled[key] {
		delete(w.cancelled, key) // its place in cancelOrder goes when it is the oldest
		return false
	}
	w.running[key] = cancel
	return true
}

// release records that the job of the key no longer runs here.
func (w *worker) release(key string) {
	w.mu.Lock()
	delete(w.running, key)
	w.mu.Unlock()
}
