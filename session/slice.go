package session

import (
	"iter"

	"github.com/offshoot-dev/offshoot/internal/pvec"
)

// Slice is an immutable, persistent sequence of values of type S: one slice
// of a session's state. Every method leaves the receiver unchanged; the ones
// that "modify" return a new Slice sharing structure with the old one, so
// keeping old versions is free. The zero Slice is empty and ready to use.
//
// Values are stored as they are given: use value types (structs, strings,
// numbers) and treat them as immutable, since a pointer stored in a slice is
// shared by every snapshot and fork that holds the slice.
type Slice[S any] struct {
	v pvec.Vector
}

// SliceOf returns a slice holding values, in order.
func SliceOf[S any](values ...S) Slice[S] {
	var v pvec.Vector
	for _, x := range values {
		v = v.Append(x)
	}
	return Slice[S]{v: v}
}

// Len returns the number of values.
func (s Slice[S]) Len() int { return s.v.Len() }

// At returns the value at index i; it panics when i is out of range, as
// indexing a Go slice does.
func (s Slice[S]) At(i int) S { return s.v.At(i).(S) }

// All yields the values in order.
func (s Slice[S]) All() iter.Seq[S] {
	return func(yield func(S) bool) {
		for x := range s.v.All() {
			if !yield(x.(S)) {
				return
			}
		}
	}
}

// Backward yields the values from last to first with their indexes.
func (s Slice[S]) Backward() iter.Seq2[int, S] {
	return func(yield func(int, S) bool) {
		for i, x := range s.v.Backward() {
			if !yield(i, x.(S)) {
				return
			}
		}
	}
}

// Latest returns the last value, and false when the slice is empty.
func (s Slice[S]) Latest() (S, bool) {
	if s.v.Len() == 0 {
		var zero S
		return zero, false
	}
	return s.v.At(s.v.Len() - 1).(S), true
}

// Values returns the values as a new Go slice (O(n)).
func (s Slice[S]) Values() []S {
	out := make([]S, 0, s.v.Len())
	for x := range s.v.All() {
		out = append(out, x.(S))
	}
	return out
}

// Append returns a slice with v added at the end (amortized O(1)).
func (s Slice[S]) Append(v S) Slice[S] { return Slice[S]{v: s.v.Append(v)} }

// Set returns a slice whose value at index i is v (O(log n)); it panics when
// i is out of range.
func (s Slice[S]) Set(i int, v S) Slice[S] { return Slice[S]{v: s.v.Set(i, v)} }

// Filter returns the values for which keep reports true. When keep accepts
// every value, Filter returns s itself.
func (s Slice[S]) Filter(keep func(S) bool) Slice[S] {
	return Slice[S]{v: s.v.Filter(func(x any) bool { return keep(x.(S)) })}
}

// Same reports whether s and o are the same version of a slice: an O(1)
// identity check that holds, for example, between a parent's slice and a
// fresh fork's.
func (s Slice[S]) Same(o Slice[S]) bool { return s.v == o.v || (s.v.Len() == 0 && o.v.Len() == 0) }
