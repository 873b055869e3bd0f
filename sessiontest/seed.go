package sessiontest

import "github.com/offshoot-dev/offshoot/session"

// Seed is session.Seed: it appends values to the slice of type S of s
// directly, without events or reducers, for setting up state in a test.
func Seed[S any](s *session.Session, values ...S) error { return session.Seed(s, values...) }

// Clear is session.Clear: it removes from the slice of type S of s every
// value for which pred reports true; a nil pred removes them all.
func Clear[S any](s *session.Session, pred func(S) bool) error { return session.Clear(s, pred) }

// Reset is s.Reset: it empties every slice of s and keeps its reducers,
// subscriptions, children and identity.
func Reset(s *session.Session) error { return s.Reset() }
