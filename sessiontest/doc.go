// Package sessiontest holds helpers for testing code built on sessions, as
// httptest does for handlers: snapshot parity after a fork, "nothing
// changed" checks that prove isolation, JSON round trips for your own slice
// types, and New for a session that is the same on every run (fixed ids
// and clock, a registry of its own). (To set up state directly, use
// session.Seed, session.Clear and Session.Reset.) Every assertion fails
// with a readable diff and none of
// them panics, whatever the values hold.
//
// The helpers cannot be fooled by shared memory. Capture records a
// session's state deeply when it is taken, so a child that mutates a map, a
// slice or a pointee it shares with its parent makes AssertUnchanged fail;
// slice identity is used as a shortcut only where it proves equality.
//
// Two items are equal when the item type's Equal method says so (func (T)
// Equal(T) bool, such as time.Time's), else when they are equal field by
// field — unexported fields included, Equal methods of nested values
// honoured, a nil slice or map equal to an empty one. Equality judges what
// snapshot JSON carries, so that a faithful round trip is no change: a
// json.RawMessage is compared as the JSON it holds, and a number held in
// an interface value equals the json.Number a snapshot restores it as.
package sessiontest
