package session

import (
	"iter"
	"reflect"
)

// Get returns the session's slice of type S: one atomic load and a map
// lookup, never blocked by writers, never half of a dispatch. A type the
// session has no slice for gives an empty slice.
func Get[S any](s *Session) Slice[S] {
	return Slice[S]{v: s.state.Load().get(reflect.TypeFor[S]())}
}

// All yields the values of the session's slice of type S.
func All[S any](s *Session) iter.Seq[S] { return Get[S](s).All() }

// Latest returns the last value of the session's slice of type S.
func Latest[S any](s *Session) (S, bool) { return Get[S](s).Latest() }

// Len returns the number of values in the session's slice of type S.
func Len[S any](s *Session) int { return Get[S](s).Len() }

// Where yields the values of the session's slice of type S for which pred
// reports true.
func Where[S any](s *Session, pred func(S) bool) iter.Seq[S] {
	sl := Get[S](s)
	return func(yield func(S) bool) {
		for x := range sl.All() {
			if pred(x) && !yield(x) {
				return
			}
		}
	}
}
