package session

import (
	"reflect"

	"github.com/offshoot-dev/offshoot/internal/pvec"
)

// Seed appends values to the session's slice of type S directly, without
// events or reducers: for setting up state in tests and programs. A type
// with no reducer is then recorded with AppendAll, as Dispatch does.
func Seed[S any](s *Session, values ...S) error {
	t := reflect.TypeFor[S]()
	return s.write(t, func(v *pvec.Vector) *pvec.Vector {
		for _, x := range values {
			v = pvec.Append(v, x)
		}
		return v
	})
}

// Clear removes from the session's slice of type S every value for which
// pred reports true; a nil pred removes them all.
func Clear[S any](s *Session, pred func(S) bool) error {
	t := reflect.TypeFor[S]()
	return s.write(t, func(v *pvec.Vector) *pvec.Vector {
		if pred == nil {
			return nil
		}
		return v.Filter(func(x any) bool { return !pred(x.(S)) })
	})
}

// Reset empties every slice and keeps reducers, subscriptions, children and
// identity.
func (s *Session) Reset() error {
	if err := s.lock(); err != nil {
		return err
	}
	defer s.mu.Unlock()
	if s.closed.Load() {
		return ErrClosed
	}
	cur := s.state.Load()
	s.state.Store(&state{layout: cur.layout, vecs: make([]*pvec.Vector, len(cur.layout.types)), revision: cur.revision + 1})
	return nil
}

// write replaces the slice of type t with change(old) under the write lock.
func (s *Session) write(t reflect.Type, change func(*pvec.Vector) *pvec.Vector) error {
	if err := s.lock(); err != nil {
		return err
	}
	defer s.mu.Unlock()
	if s.closed.Load() {
		return ErrClosed
	}
	if !s.table.slices[t] {
		s.table = s.table.withImplicit(t)
		s.registerTypes(t)
	}
	cur := s.state.Load()
	d := newDraft(cur)
	d.set(t, change(d.get(t)))
	s.state.Store(d.commit())
	return nil
}
