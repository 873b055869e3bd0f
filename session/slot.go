package session

import (
	"sync/atomic"
	"time"

	"github.com/offshoot-dev/offshoot/bus"
	"github.com/offshoot-dev/offshoot/internal/pvec"
)

// reentryWait is how long a write waits for a reducer call of the session
// to return before it takes itself for that reducer's own write, which
// would otherwise wait for itself forever.
const reentryWait = 100 * time.Millisecond

// writeSlot serializes the writes of one session: a write holds the slot
// while it stamps, reduces and commits. No code of the caller's runs while
// the slot is held except reducers (and the bus clock); observers, install
// functions and setup functions run outside it. So a write that finds the
// slot taken waits — and the only way it could be waiting for itself is a
// reducer of this session writing to it. Go gives no way to ask which
// goroutine holds a lock, so that case is recognized by its one symptom: the
// holder stays inside a single reducer call for reentryWait while the write
// waits. The write then returns ErrReentrant instead of a deadlock. Every
// other wait ends as soon as the holder finishes.
type writeSlot struct {
	ch   chan struct{} // holds one value while the slot is taken
	user userCode
}

func newWriteSlot() writeSlot { return writeSlot{ch: make(chan struct{}, 1)} }

// acquire takes the slot, or returns ErrReentrant (see writeSlot).
func (w *writeSlot) acquire() error {
	select {
	case w.ch <- struct{}{}:
		return nil
	default:
	}
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		calls := w.user.calls.Load()
		if calls%2 == 0 {
			// The holder is running none of the caller's code, so it
			// is not the caller: wait for it.
			w.ch <- struct{}{}
			return nil
		}
		if timer == nil {
			timer = time.NewTimer(reentryWait)
		} else {
			timer.Reset(reentryWait)
		}
		select {
		case w.ch <- struct{}{}:
			return nil
		case <-timer.C:
			if w.user.calls.Load() == calls {
				return ErrReentrant
			}
		}
	}
}

func (w *writeSlot) release() { <-w.ch }

// userCode counts the calls the slot holder makes into the caller's code:
// odd while one runs.
type userCode struct {
	calls atomic.Uint64
}

// reduce runs one reducer, turning a panic into a *bus.PanicError.
func (u *userCode) reduce(e reducerEntry, rc ReducerContext, v pvec.Vector, payload any) (out pvec.Vector, err error) {
	u.calls.Add(1)
	defer func() {
		u.calls.Add(1)
		if p := recover(); p != nil {
			out, err = pvec.Vector{}, &bus.PanicError{Value: p}
		}
	}()
	return e.apply(rc, v, payload)
}

// stamp calls the bus's stamp, whose clock is the caller's code.
func (u *userCode) stamp(stamp func([]bus.Envelope), envs []bus.Envelope) {
	u.calls.Add(1)
	defer u.calls.Add(1)
	stamp(envs)
}
