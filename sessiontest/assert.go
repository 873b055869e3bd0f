package sessiontest

import (
	"bytes"
	"maps"
	"slices"
	"testing"

	"github.com/offshoot-dev/offshoot/serde"
	"github.com/offshoot-dev/offshoot/session"
)

// AssertParity checks that every slice of child equals the one in snap —
// what must hold right after child was forked (or rolled back) from snap,
// before the child runs anything. It reports a diff and returns false when
// parity is broken. Options such as Ignore narrow the comparison.
func AssertParity(t testing.TB, snap session.Snapshot, child *session.Session, opts ...Option) bool {
	t.Helper()
	if d := diff(snap, child.Snapshot(), ignoring(opts)); d != "" {
		t.Errorf("snapshot parity broken: session %s differs from the snapshot of %s (- snapshot, + session):\n%s", child.ID(), snap.SessionID(), d)
		return false
	}
	return true
}

// AssertUnchanged checks that s holds exactly the slices it held when
// before was taken: the isolation check after a child ran. It reports a
// diff and returns false otherwise. Options such as Ignore narrow the
// comparison.
func AssertUnchanged(t testing.TB, before session.Snapshot, s *session.Session, opts ...Option) bool {
	t.Helper()
	if d := diff(before, s.Snapshot(), ignoring(opts)); d != "" {
		t.Errorf("session %s changed (- before, + now):\n%s", s.ID(), d)
		return false
	}
	return true
}

// RoundTrip encodes a snapshot of s with reg, decodes it again and checks
// that nothing was lost: identity fields and every slice equal, and a second
// encoding byte-for-byte the first. Use it to check that your own slice
// types survive snapshot JSON. It returns the decoded snapshot (the zero
// Snapshot after a failure).
func RoundTrip(t testing.TB, s *session.Session, reg *serde.Registry) session.Snapshot {
	t.Helper()
	snap := s.Snapshot()
	data, err := session.MarshalSnapshot(snap, reg)
	if err != nil {
		t.Errorf("round trip of session %s: encoding failed: %v", s.ID(), err)
		return session.Snapshot{}
	}
	back, err := session.UnmarshalSnapshot(data, reg)
	if err != nil {
		t.Errorf("round trip of session %s: decoding what was just encoded failed: %v\njson: %s", s.ID(), err, data)
		return session.Snapshot{}
	}
	ok := true
	if d := Diff(snap, back); d != "" {
		t.Errorf("round trip of session %s changed slices (- before, + after):\n%s", s.ID(), d)
		ok = false
	}
	if snap.SessionID() != back.SessionID() || snap.ParentID() != back.ParentID() ||
		!snap.CreatedAt().Equal(back.CreatedAt()) || !slices.Equal(snap.ChildIDs(), back.ChildIDs()) ||
		!maps.Equal(snap.Tags(), back.Tags()) {
		t.Errorf("round trip of session %s changed identity: before id=%q parent=%q created=%s children=%v tags=%v, after id=%q parent=%q created=%s children=%v tags=%v",
			s.ID(), snap.SessionID(), snap.ParentID(), snap.CreatedAt(), snap.ChildIDs(), snap.Tags(),
			back.SessionID(), back.ParentID(), back.CreatedAt(), back.ChildIDs(), back.Tags())
		ok = false
	}
	if !ok {
		return session.Snapshot{}
	}
	if again, err := session.MarshalSnapshot(back, reg); err != nil || !bytes.Equal(data, again) {
		t.Errorf("round trip of session %s is not stable: encoding the decoded snapshot gave different bytes (err %v)\nfirst:  %s\nsecond: %s", s.ID(), err, data, again)
		return session.Snapshot{}
	}
	return back
}
