package sessiontest

import "github.com/offshoot-dev/offshoot/session"

// Seed appends values to the slice of type S of s directly, without events
// or reducers: for setting up state in a test. It is a Rollback to the
// current state plus the values, so it bumps the revision once and tells
// no observer.
func Seed[S any](s *session.Session, values ...S) error {
	snap := s.Snapshot()
	sl := session.SliceOfSnapshot[S](snap)
	for _, v := range values {
		sl = sl.Append(v)
	}
	return s.Rollback(session.ReplaceSlice(snap, sl))
}

// Clear removes from the slice of type S of s every value for which pred
// reports true; a nil pred removes them all.
func Clear[S any](s *session.Session, pred func(S) bool) error {
	snap := s.Snapshot()
	var sl session.Slice[S]
	if pred != nil {
		sl = session.SliceOfSnapshot[S](snap).Filter(func(x S) bool { return !pred(x) })
	}
	return s.Rollback(session.ReplaceSlice(snap, sl))
}

// Reset empties every slice of s and keeps its reducers, subscriptions,
// children and identity.
func Reset(s *session.Session) error { return s.Rollback(session.Snapshot{}) }
