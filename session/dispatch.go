package session

import (
	"context"
	"fmt"
	"reflect"

	"github.com/offshoot-dev/offshoot/bus"
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

// Dispatch commits events to the session, then tells the bus's observers.
// The session applies every reducer registered for each event's exact type
// atomically: if any reducer fails (error or panic), none of the events is
// applied and the *ReducerError says which failed and why. An event type
// with no reducer is recorded in the slice of its own type (AppendAll).
// The events get their Seq and Time when the session commits them, so a
// session's Seq order, time order and Revision order agree. After the
// commit, outside the session's lock and on the caller's goroutine, the
// bus's observers see the events, in order, with the new state in place.
//
// Dispatch returns reducer failures (*ReducerError) and ErrClosed only —
// never observers' errors, which bus observers handle. Writes to one
// session are applied one at a time, under its lock; reducers run under it
// and must be pure. A reducer must not write to the session it reduces (it
// would wait for its own lock forever, as a goroutine that locks a
// sync.Mutex twice does); observers run outside the lock and may call any
// method of any session.
func (s *Session) Dispatch(ctx context.Context, events ...any) error {
	if len(events) == 0 {
		return nil
	}
	// A batch of a few events (a runner's turn makes two of two and
	// three) is enveloped on the stack: the envelopes live until
	// Dispatch returns, and a journal gets a copy of its own (see commit).
	var room [4]bus.Envelope
	envs := room[:0]
	if len(events) > len(room) {
		envs = make([]bus.Envelope, 0, len(events))
	}
	envs = envs[:len(events)]
	for i, e := range events {
		if e == nil {
			return fmt.Errorf("session: event %d is nil; dispatch a value of a concrete type", i)
		}
		envs[i] = bus.Envelope{SessionID: s.id, ParentSessionID: s.parentID, Payload: e}
	}
	_, err := s.write(ctx, func(cur *state) (*state, error) {
		now := s.bus.Now()
		for i := range envs {
			envs[i].Seq = cur.seq + uint64(i) + 1
			envs[i].Time = now
		}
		next, err := cur.apply(envs)
		if err != nil {
			return nil, err
		}
		if err := s.commit(ctx, envs, next); err != nil {
			return nil, err
		}
		return next, nil
	})
	if err != nil {
		return err
	}
	s.bus.Publish(ctx, envs...)
	return nil
}

// write replaces the session's state by change(current), under the
// session's lock, which it waits for until ctx ends; change must not
// write to the session. It returns the new state, or change's error and
// the state unchanged.
func (s *Session) write(ctx context.Context, change func(cur *state) (*state, error)) (*state, error) {
	if err := s.lock(ctx); err != nil {
		return nil, err
	}
	defer s.unlock()
	if s.closed.Load() {
		return nil, ErrClosed
	}
	cur := s.state.Load()
	next, err := change(cur)
	if err != nil || next == cur {
		return cur, err
	}
	s.state.Store(next)
	if ts := cur.newTypes(next); len(ts) > 0 {
		s.registerTypes(ts...)
	}
	return next, nil
}

// lock takes the session's write lock, or returns ctx's error when ctx
// ends first: a writer waiting behind a slow journal can give up. A lock
// free is taken whatever ctx says, as a sync.Mutex would be.
func (s *Session) lock(ctx context.Context) error {
	select {
	case s.mu <- struct{}{}:
		return nil
	default:
	}
	select {
	case s.mu <- struct{}{}:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("session: waiting for session %s's other writes: %w", s.id, context.Cause(ctx))
	}
}

func (s *Session) unlock() { <-s.mu }
