package session

import (
	"context"
	"fmt"
	"reflect"

	"github.com/offshoot-dev/offshoot/bus"
	"github.com/offshoot-dev/offshoot/internal/pvec"
)

// Seed appends values to the session's slice of type S directly, without
// events or reducers: for setting up state in tests and programs. It is one
// write: it bumps the revision once, emits no events and tells no observer.
// The slice is created when the session has none of type S. Like every
// write it returns ErrClosed after Close.
func Seed[S any](s *Session, values ...S) error {
	t := reflect.TypeFor[S]()
	if t.Kind() == reflect.Interface {
		return fmt.Errorf("session: Seed[%s]: the slice type must be concrete; slices are keyed by exact Go type", t)
	}
	if s.journal != nil {
		return errJournaled("Seed")
	}
	_, err := s.write(context.Background(), func(cur *state) (*state, error) {
		v := cur.get(t)
		for _, x := range values {
			v = v.Append(x)
		}
		return cur.withSlice(t, v), nil
	})
	return err
}

// Clear removes from the session's slice of type S every value for which
// pred reports true; a nil pred removes them all. It is one write (the
// revision is bumped once) and emits no events. pred runs under the
// session's lock, like a reducer, so it must not write to the session; a
// panic in pred is returned as a *bus.PanicError and changes nothing.
func Clear[S any](s *Session, pred func(S) bool) error {
	t := reflect.TypeFor[S]()
	if s.journal != nil {
		return errJournaled("Clear")
	}
	_, err := s.write(context.Background(), func(cur *state) (*state, error) {
		if _, ok := cur.layout.index[t]; !ok {
			return cur, nil // nothing to clear
		}
		if pred == nil {
			return cur.withSlice(t, pvec.Vector{}), nil
		}
		var kept pvec.Vector
		err := safely(func() {
			kept = cur.get(t).Filter(func(x any) bool { return !pred(x.(S)) })
		})
		if err != nil {
			return nil, fmt.Errorf("session: Clear[%s]: the predicate failed: %w", t, err)
		}
		return cur.withSlice(t, kept), nil
	})
	return err
}

// Reset empties every slice of the session (they stay, empty) and keeps its
// reducers, installs, subscriptions, children and identity. It is one write
// (the revision is bumped once) and emits no events.
func (s *Session) Reset() error {
	if s.journal != nil {
		return errJournaled("Reset")
	}
	_, err := s.write(context.Background(), func(cur *state) (*state, error) {
		next := newState(len(cur.layout.types))
		next.table, next.layout, next.revision, next.seq = cur.table, cur.layout, cur.revision+1, cur.seq
		return next, nil
	})
	return err
}

// withSlice returns st with its slice of type t replaced by (or, when st has
// none, added as) v, and the next revision.
func (st *state) withSlice(t reflect.Type, v pvec.Vector) *state {
	d := draft{layout: st.layout, vecs: st.vecs}
	d.set(t, v)
	return d.state(st.table, st.revision+1, st.seq)
}

// safely calls f, turning a panic into a *bus.PanicError.
func safely(f func()) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &bus.PanicError{Value: p}
		}
	}()
	f()
	return nil
}
