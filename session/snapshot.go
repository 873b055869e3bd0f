package session

import (
	"iter"
	"maps"
	"reflect"
	"slices"
	"strings"
	"time"
)

// Snapshot is an immutable view of a session at one moment: its identity,
// the snapshot schema version and every slice. Taking one is O(number of
// slice types) at most and never copies items: it shares the session's
// persistent slices, which later dispatches replace rather than change. The
// zero Snapshot is empty (rolling back to it empties every slice).
type Snapshot struct {
	sessionID string
	parentID  string
	children  childView
	tags      map[string]string
	createdAt time.Time
	st        *state
}

// Snapshot returns the session's current state as an immutable value. It
// takes no lock: like Get, it never waits for a writer, and a reducer or an
// observer may call it.
func (s *Session) Snapshot() Snapshot {
	return Snapshot{
		sessionID: s.id,
		parentID:  s.parentID,
		children:  s.children.view(),
		tags:      s.tags,
		createdAt: s.createdAt,
		st:        s.state.Load(),
	}
}

// Version returns the snapshot schema version ("1").
func (sn Snapshot) Version() string { return SchemaVersion }

// SessionID returns the id of the session the snapshot was taken from.
func (sn Snapshot) SessionID() string { return sn.sessionID }

// ParentID returns that session's parent id, "" for a root.
func (sn Snapshot) ParentID() string { return sn.parentID }

// ChildIDs returns the session's live children at the time of the snapshot.
func (sn Snapshot) ChildIDs() []string { return sn.children.ids() }

// Tags returns a copy of the session's tags.
func (sn Snapshot) Tags() map[string]string { return maps.Clone(sn.tags) }

// CreatedAt returns when the session was created (UTC).
func (sn Snapshot) CreatedAt() time.Time { return sn.createdAt }

// Revision returns the session's revision at the time of the snapshot.
func (sn Snapshot) Revision() uint64 {
	if sn.st == nil {
		return 0
	}
	return sn.st.revision
}

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
// adopted (a type the session has no reducer for is recorded with AppendAll
// from then on) and each slice the snapshot lacks is emptied. Reducers,
// subscriptions, children and identity are unchanged, and no events are
// emitted. It is O(number of slice types), never O(items).
func (s *Session) Rollback(snap Snapshot) error {
	if err := s.lock(); err != nil {
		return err
	}
	defer s.mu.Unlock()
	if s.closed.Load() {
		return ErrClosed
	}
	s.adopt(snap)
	return nil
}

// adopt makes snap's state the session's. The caller holds the write lock,
// or is New, before anyone else can see the session.
func (s *Session) adopt(snap Snapshot) {
	src := snap.state()
	cur := s.state.Load()
	tbl := s.table
	var newTypes []reflect.Type
	for _, t := range src.layout.types {
		if !tbl.slices[t] {
			tbl = tbl.withImplicit(t)
			newTypes = append(newTypes, t)
		}
	}
	// Fast path: the snapshot already has every slice type the session
	// knows, so its state is adopted as it is.
	// (The session's slice types are all in its table, and the table now
	// holds every type of the snapshot.)
	next := src
	if len(src.layout.types) != len(tbl.slices) {
		d := newDraft(src)
		for _, t := range sortedTypes(tbl.slices) {
			d.ensure(t)
		}
		next = &state{layout: d.layout, vecs: d.vecs}
	}
	s.table = tbl
	s.state.Store(&state{layout: next.layout, vecs: next.vecs, revision: cur.revision + 1})
	if len(newTypes) > 0 {
		s.registerTypes(newTypes...)
	}
}

// sortedTypes returns the keys of m in a deterministic order.
func sortedTypes(m map[reflect.Type]bool) []reflect.Type {
	ts := make([]reflect.Type, 0, len(m))
	for t := range m {
		ts = append(ts, t)
	}
	slices.SortFunc(ts, compareTypes)
	return ts
}

func compareTypes(a, b reflect.Type) int {
	if c := strings.Compare(a.PkgPath(), b.PkgPath()); c != 0 {
		return c
	}
	return strings.Compare(a.String(), b.String())
}

// register adds a reducer to the table and creates its slice.
func (s *Session) register(e reducerEntry) error {
	if err := s.lock(); err != nil {
		return err
	}
	defer s.mu.Unlock()
	if s.closed.Load() {
		return ErrClosed
	}
	s.table = s.table.with(e)
	cur := s.state.Load()
	if _, ok := cur.layout.index[e.slice]; !ok {
		d := newDraft(cur)
		d.ensure(e.slice)
		s.state.Store(&state{layout: d.layout, vecs: d.vecs, revision: cur.revision})
	}
	s.registerTypes(e.event, e.slice)
	return nil
}
