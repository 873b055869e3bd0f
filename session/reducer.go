package session

import (
	"github.com/offshoot-dev/offshoot/bus"
)

// Reducer folds one event of type E into the slice of type S. It must be
// pure: compute the new slice from the old one and the event, and return it
// (or an error, which rejects the whole dispatch). The context carries the
// envelope — time, seq, session ids — so a reducer can stamp times from the
// bus's injectable clock instead of reading the wall clock.
type Reducer[E, S any] func(rc ReducerContext, slice Slice[S], event E) (Slice[S], error)

// ReducerContext is what a reducer knows about the event it applies: the
// envelope with its Seq (the event's id), Time (from the bus clock),
// SessionID and ParentSessionID.
type ReducerContext struct {
	bus.Envelope
}

// AppendAll is the reducer that always appends the event.
func AppendAll[E any](_ ReducerContext, slice Slice[E], event E) (Slice[E], error) {
	return slice.Append(event), nil
}

// Append is the reducer that appends the event unless an equal value is
// already present. Use AppendFunc for values that are not comparable.
func Append[E comparable](_ ReducerContext, slice Slice[E], event E) (Slice[E], error) {
	for x := range slice.All() {
		if x == event {
			return slice, nil
		}
	}
	return slice.Append(event), nil
}

// AppendFunc returns a reducer that appends the event unless eq reports it
// equal to a value already present.
func AppendFunc[E any](eq func(a, b E) bool) Reducer[E, E] {
	return func(_ ReducerContext, slice Slice[E], event E) (Slice[E], error) {
		for x := range slice.All() {
			if eq(x, event) {
				return slice, nil
			}
		}
		return slice.Append(event), nil
	}
}

// ReplaceLatest is the reducer that makes the slice exactly [event]: for
// state that has one current value.
func ReplaceLatest[E any](_ ReducerContext, _ Slice[E], event E) (Slice[E], error) {
	return SliceOf(event), nil
}

// UpsertBy returns a reducer that replaces, in place, the first value with
// the event's key and drops later values with that key; with no such value
// it appends. Values 1, 1, 2 keyed by identity give [1, 2].
func UpsertBy[E any, K comparable](key func(E) K) Reducer[E, E] {
	return func(_ ReducerContext, slice Slice[E], event E) (Slice[E], error) {
		k := key(event)
		first := -1
		dups := false
		i := 0
		for x := range slice.All() {
			if key(x) == k {
				if first < 0 {
					first = i
				} else {
					dups = true
				}
			}
			i++
		}
		if first < 0 {
			return slice.Append(event), nil
		}
		out := slice.Set(first, event)
		if dups {
			i = 0
			out = out.Filter(func(x E) bool {
				keep := i <= first || key(x) != k
				i++
				return keep
			})
		}
		return out, nil
	}
}

// ReplaceLatestBy returns a reducer that removes every value with the
// event's key and appends the event at the end.
func ReplaceLatestBy[E any, K comparable](key func(E) K) Reducer[E, E] {
	return func(_ ReducerContext, slice Slice[E], event E) (Slice[E], error) {
		k := key(event)
		return slice.Filter(func(x E) bool { return key(x) != k }).Append(event), nil
	}
}
