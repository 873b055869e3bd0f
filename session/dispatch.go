package session

import (
	"context"
	"fmt"
	"reflect"
	"runtime"
	"strings"

	"github.com/offshoot-dev/offshoot/bus"
	"github.com/offshoot-dev/offshoot/internal/pvec"
)

// ReducerError says which reducer rejected a dispatch and why. When Dispatch
// returns one, none of the call's events was applied.
type ReducerError struct {
	// Index is the position of the failing event among the dispatched ones.
	Index int
	// Event and Slice are the reducer's event and slice types.
	Event, Slice reflect.Type
	// Err is the reducer's error, or a *bus.PanicError when it panicked.
	Err error
}

// Error names the reducer's types, the event's position and the cause.
func (e *ReducerError) Error() string {
	return fmt.Sprintf("session: reducer %s -> %s failed on event %d: %v", e.Event, e.Slice, e.Index, e.Err)
}

// Unwrap returns the reducer's error.
func (e *ReducerError) Unwrap() error { return e.Err }

// Dispatch publishes events on the session's bus addressed to this session.
// The session applies every reducer registered for each event's exact type,
// under its write lock, atomically: if any reducer fails (error or panic),
// none of the events is applied and the *ReducerError says which failed and
// why. An event type with no reducer is recorded in its own slice with
// AppendAll. Only then do observers see the events, in order, with the new
// state in place.
//
// Dispatch returns reducer failures (*ReducerError), ErrClosed and
// ErrReentrant only — never observers' errors, which bus observers handle.
func (s *Session) Dispatch(ctx context.Context, events ...any) error {
	if len(events) == 0 {
		return nil
	}
	envs := make([]bus.Envelope, len(events))
	for i, e := range events {
		if e == nil {
			return fmt.Errorf("session: event %d is nil; dispatch a value of a concrete type", i)
		}
		envs[i] = bus.Envelope{SessionID: s.id, ParentSessionID: s.parentID, Payload: e}
	}
	return s.bus.Deliver(ctx, (*target)(s), envs).Rejected
}

// target is the session as the bus sees it.
type target Session

// Reduce applies a batch of envelopes addressed to the session.
func (t *target) Reduce(_ context.Context, envs []bus.Envelope) error {
	s := (*Session)(t)
	if err := s.lock(); err != nil {
		return err
	}
	defer s.mu.Unlock()
	if s.closed.Load() {
		return ErrClosed
	}
	tbl := s.table
	d := newDraft(s.state.Load())
	var newTypes []reflect.Type
	for i := range envs {
		payload := envs[i].Payload
		et := reflect.TypeOf(payload)
		entries, ok := tbl.byEvent[et]
		if !ok {
			tbl = tbl.withImplicit(et)
			entries = tbl.byEvent[et]
			newTypes = append(newTypes, et)
		}
		rc := ReducerContext{Envelope: envs[i]}
		for _, e := range entries {
			v := d.get(e.slice)
			if e.apply == nil {
				d.set(e.slice, pvec.Append(v, payload))
				continue
			}
			out, err := s.apply(e, rc, v, payload)
			if err != nil {
				return &ReducerError{Index: i, Event: e.event, Slice: e.slice, Err: err}
			}
			if out != v {
				d.set(e.slice, out)
			}
		}
	}
	// Every applied dispatch is a new revision, even one whose reducers
	// left the slices as they were.
	s.table = tbl
	s.state.Store(d.commit())
	if len(newTypes) > 0 {
		s.registerTypes(newTypes...)
	}
	return nil
}

// apply runs one reducer with reentrancy marking and panic capture.
func (s *Session) apply(e reducerEntry, rc ReducerContext, v *pvec.Vector, payload any) (out *pvec.Vector, err error) {
	s.reducing.Store(true)
	defer func() {
		s.reducing.Store(false)
		if p := recover(); p != nil {
			out, err = nil, &bus.PanicError{Value: p}
		}
	}()
	return runReducer(e, rc, v, payload)
}

// runReducer is the frame that marks "a reducer is running" on a
// goroutine's stack; see lock.
//
//go:noinline
func runReducer(e reducerEntry, rc ReducerContext, v *pvec.Vector, payload any) (*pvec.Vector, error) {
	return e.apply(rc, v, payload)
}

const runReducerName = "github.com/offshoot-dev/offshoot/session.runReducer"

// lock takes the session's write lock, or returns ErrReentrant when the
// caller is a reducer of this very session (which holds the lock and would
// otherwise deadlock). The check walks the stack only when the lock is held
// by a goroutine that is running a reducer, so uncontended writes pay
// nothing for it.
func (s *Session) lock() error {
	if s.mu.TryLock() {
		return nil
	}
	if s.reducing.Load() && insideReducer() {
		return ErrReentrant
	}
	s.mu.Lock()
	return nil
}

// insideReducer reports whether the calling goroutine is running a reducer.
func insideReducer() bool {
	var pcs [64]uintptr
	for skip := 2; ; skip += len(pcs) {
		n := runtime.Callers(skip, pcs[:])
		frames := runtime.CallersFrames(pcs[:n])
		for {
			f, more := frames.Next()
			if f.Function == runReducerName || strings.HasPrefix(f.Function, runReducerName+"[") {
				return true
			}
			if !more {
				break
			}
		}
		if n < len(pcs) {
			return false
		}
	}
}
