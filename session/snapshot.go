package session

import (
	"context"
	"iter"
	"maps"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/benbjohnson/immutable"
)

// Snapshot is an immutable view of a session at one moment: its identity,
// the snapshot schema version and every slice — the session's state value
// itself. Taking one is O(1): it shares the session's persistent slices,
// which later writes replace rather than change. The zero Snapshot is empty
// (rolling back to it empties every slice).
type Snapshot struct {
	sessionID string
	parentID  string
	children  *immutable.SortedMap[int, string]
	// restored holds the children of a snapshot read back from JSON, in
	// place of children: a list costs a third of a persistent map. (A
	// pointer keeps the Snapshot value, copied by every Snapshot call,
	// small.)
	restored  *[]string
	tags      map[string]string
	createdAt time.Time
	st        *state
}

// Snapshot returns the session's current state as an immutable value. It
// takes no lock and waits for nothing: like Get, it never waits for a
// writer, and a reducer or an observer may call it.
func (s *Session) Snapshot() Snapshot { return s.snapshotOf(s.state.Load()) }

// snapshotOf returns the session's snapshot with state st.
func (s *Session) snapshotOf(st *state) Snapshot {
	return Snapshot{
		sessionID: s.id,
		parentID:  s.parentID,
		children:  s.children.m.Load(),
		tags:      s.tags,
		createdAt: s.createdAt,
		st:        st,
	}
}

// Version returns the snapshot schema version ("1").
func (sn Snapshot) Version() string { return SchemaVersion }

// SessionID returns the id of the session the snapshot was taken from.
func (sn Snapshot) SessionID() string { return sn.sessionID }

// ParentID returns that session's parent id, "" for a root.
func (sn Snapshot) ParentID() string { return sn.parentID }

// ChildIDs returns the session's live children at the time of the snapshot.
func (sn Snapshot) ChildIDs() []string {
	if sn.restored != nil {
		return slices.Clone(*sn.restored)
	}
	return childIDs(sn.children)
}

// Tags returns a copy of the session's tags.
func (sn Snapshot) Tags() map[string]string { return maps.Clone(sn.tags) }

// CreatedAt returns when the session was created (UTC).
func (sn Snapshot) CreatedAt() time.Time { return sn.createdAt }

// Revision returns the session's revision at the time of the snapshot.
func (sn Snapshot) Revision() uint64 { return sn.state().revision }

func (sn Snapshot) state() *state {
	if sn.st == nil {
		return emptyState
	}
	return sn.st
}

// Types returns the slice types in the snapshot, sorted by their Go names.
func (sn Snapshot) Types() []reflect.Type {
	ts := slices.Clone(sn.state().layout.types)
	slices.SortFunc(ts, compareTypes)
	return ts
}

// Has reports whether the snapshot holds a slice of type t (possibly empty).
func (sn Snapshot) Has(t reflect.Type) bool {
	_, ok := sn.state().layout.index[t]
	return ok
}

// Len returns the number of items in the slice of type t.
func (sn Snapshot) Len(t reflect.Type) int { return sn.state().get(t).Len() }

// Items yields the items of the slice of type t, in order.
func (sn Snapshot) Items(t reflect.Type) iter.Seq[any] { return sn.state().get(t).All() }

// Same reports, in O(1), whether sn and other hold the very same version of
// the slice of type t — true between a parent's snapshot and a fresh fork.
// False means "not known to be equal", not "different".
func (sn Snapshot) Same(other Snapshot, t reflect.Type) bool {
	a, b := sn.state().get(t), other.state().get(t)
	return a == b || (a.Len() == 0 && b.Len() == 0)
}

// SliceOfSnapshot returns the slice of type S held by snap.
func SliceOfSnapshot[S any](snap Snapshot) Slice[S] {
	return Slice[S]{v: snap.state().get(reflect.TypeFor[S]())}
}

// Rollback makes the session's state snap's: each slice in the snapshot is
// adopted and each slice of the session's reducers that the snapshot lacks
// is emptied. Reducers, subscriptions, children and identity are unchanged,
// and no events are emitted. It is O(1) in the number of items.
func (s *Session) Rollback(snap Snapshot) error {
	_, err := s.write(context.Background(), func(cur *state) (*state, error) { return cur.adopt(snap.state()), nil })
	return err
}

func compareTypes(a, b reflect.Type) int {
	if c := strings.Compare(a.PkgPath(), b.PkgPath()); c != 0 {
		return c
	}
	return strings.Compare(a.String(), b.String())
}
