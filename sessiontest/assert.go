package sessiontest

import (
	"bytes"
	"maps"
	"reflect"
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
	if d := Diff(snap, child.Snapshot(), opts...); d != "" {
		t.Errorf("snapshot parity broken: session %s differs from the snapshot of %s (- snapshot, + session):\n%s", child.ID(), snap.SessionID(), d)
		return false
	}
	return true
}

// AssertUnchanged checks that s holds exactly what before captured: the
// isolation check after a child ran. Take before with Capture when the
// check should start. It reports a diff and returns false otherwise —
// also when an item changed through memory it shares with another session
// (a map, a slice, a pointee), which a shallow comparison would miss.
// Options such as Ignore narrow the comparison.
func AssertUnchanged(t testing.TB, before Captured, s *session.Session, opts ...Option) bool {
	t.Helper()
	if d := before.Changes(s.Snapshot(), opts...); d != "" {
		t.Errorf("session %s changed (- before, + now):\n%s", s.ID(), d)
		return false
	}
	return true
}

// Changes returns "" when now holds what the capture recorded, compared
// deeply as AssertUnchanged compares (a change made through memory the
// captured items share shows), otherwise one paragraph per changed slice
// type (- captured, + now). It is AssertUnchanged for a program rather
// than a test: a demo, or a check in production code.
func (before Captured) Changes(now session.Snapshot, opts ...Option) string {
	ignored := ignoring(opts)
	var out bytes.Buffer
	for _, t := range unionTypes(before.snap.Types(), now.Types()) {
		if ignored[t] || (valueOnly(t) && before.snap.Same(now, t)) {
			continue
		}
		captured := before.slices[t]
		was := collect(before.snap, t)
		is := collect(now, t)
		equalTo := equalMethodOf(t)
		out.WriteString(diffItems(t, before.snap.Has(t), now.Has(t), len(captured), len(is), func(i int) (string, string, bool) {
			var a, b string
			var eq bool
			var cur []byte
			if i < len(is) {
				b, cur = show(is[i]), canonical(is[i])
			}
			if i < len(captured) {
				intact := bytes.Equal(canonical(was[i]), captured[i])
				a = showCanonical(captured[i])
				if intact {
					a = show(was[i])
				}
				if i < len(is) {
					eq = bytes.Equal(captured[i], cur) || (intact && equalTo && equal(was[i], is[i]))
				}
			}
			return a, b, eq
		}))
	}
	return out.String()
}

func equalMethodOf(t reflect.Type) bool {
	_, ok := equalMethod(t)
	return ok
}

// RoundTrip encodes a snapshot of s with reg, decodes it again and checks
// that nothing was lost: identity fields and every item equal (see the
// package doc: an unexported field JSON does not carry is lost), and a
// second encoding byte-for-byte the first. Use it to check that your own slice types survive
// snapshot JSON. It returns the decoded snapshot (the zero Snapshot after a
// failure).
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
