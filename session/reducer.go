package session

import (
	"fmt"
	"reflect"
	"sync"

	"github.com/offshoot-dev/offshoot/bus"
	"github.com/offshoot-dev/offshoot/internal/pvec"
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

// reducerEntry is one registered reducer, type-erased.
type reducerEntry struct {
	event, slice reflect.Type
	// apply is nil for the implicit AppendAll of an event type that has no
	// reducer: the event is appended as it is, without re-boxing.
	apply func(rc ReducerContext, v *pvec.Vector, event any) (*pvec.Vector, error)
}

// table is a session's reducer table. It is immutable: registering builds a
// new table, so forks share their parent's table until one of them registers.
type table struct {
	byEvent   map[reflect.Type][]reducerEntry
	slices    map[reflect.Type]bool
	installed map[string]bool
	// records caches withRecord: event type -> this table plus a record of
	// that type, so sessions sharing a table share what they derive from it.
	records sync.Map
}

var emptyTable = &table{
	byEvent:   map[reflect.Type][]reducerEntry{},
	slices:    map[reflect.Type]bool{},
	installed: map[string]bool{},
}

func (t *table) clone() *table {
	nt := &table{
		byEvent:   make(map[reflect.Type][]reducerEntry, len(t.byEvent)+1),
		slices:    make(map[reflect.Type]bool, len(t.slices)+1),
		installed: make(map[string]bool, len(t.installed)),
	}
	for k, v := range t.byEvent {
		nt.byEvent[k] = v
	}
	for k, v := range t.slices {
		nt.slices[k] = v
	}
	for k, v := range t.installed {
		nt.installed[k] = v
	}
	return nt
}

func (t *table) with(e reducerEntry) *table {
	nt := t.clone()
	list := t.byEvent[e.event]
	nt.byEvent[e.event] = append(list[:len(list):len(list)], e)
	nt.slices[e.slice] = true
	return nt
}

// withImplicit records events of type et in their own slice with AppendAll
// when et has no reducer.
func (t *table) withImplicit(et reflect.Type) *table {
	if _, ok := t.byEvent[et]; ok {
		return t
	}
	return t.withRecord(et)
}

// withRecord returns t plus a record of events of type et in their own slice
// (AppendAll), whatever other reducers et has. The derived table is built
// once per table and type and shared — the children of one parent that all
// record a type share one table.
func (t *table) withRecord(et reflect.Type) *table {
	for _, e := range t.byEvent[et] {
		if e.apply == nil {
			return t
		}
	}
	if v, ok := t.records.Load(et); ok {
		return v.(*table)
	}
	v, _ := t.records.LoadOrStore(et, t.with(reducerEntry{event: et, slice: et}))
	return v.(*table)
}

// Record makes the session keep every event of type E in a slice of its
// own, as Dispatch does for an event type without reducers, besides the
// reducers E has — for derived records such as the files a subagent wrote
// (vfs.FileWritten events, which the VFS reducers fold into the file table).
// Recording a type again is a no-op; forks inherit the record.
func Record[E any](s *Session) error {
	et := reflect.TypeFor[E]()
	if et.Kind() == reflect.Interface {
		return fmt.Errorf("session: Record[%s]: the event type must be concrete; slices are keyed by exact Go type", et)
	}
	if err := s.lock(); err != nil {
		return err
	}
	defer s.mu.Unlock()
	if s.closed.Load() {
		return ErrClosed
	}
	s.table = s.table.withRecord(et)
	cur := s.state.Load()
	if _, ok := cur.layout.index[et]; !ok {
		d := newDraft(cur)
		d.ensure(et)
		s.state.Store(&state{layout: d.layout, vecs: d.vecs, revision: cur.revision})
	}
	s.registerTypes(et)
	return nil
}

// Register adds reducer for events of type E folding into the slice of type
// S, and creates that slice (empty) when the session does not have it yet.
// Several reducers for one event type run in registration order, each on its
// own slice. Types are matched exactly: E and *E are different event types.
// E and S are recorded in the session's serde registry for snapshot JSON.
func Register[E, S any](s *Session, reducer Reducer[E, S]) error {
	if reducer == nil {
		return fmt.Errorf("session: Register[%s, %s] needs a reducer; pass session.AppendAll or your own", reflect.TypeFor[E](), reflect.TypeFor[S]())
	}
	e := reducerEntry{
		event: reflect.TypeFor[E](),
		slice: reflect.TypeFor[S](),
		apply: func(rc ReducerContext, v *pvec.Vector, event any) (*pvec.Vector, error) {
			out, err := reducer(rc, Slice[S]{v: v}, event.(E))
			return out.v, err
		},
	}
	if e.event.Kind() == reflect.Interface || e.slice.Kind() == reflect.Interface {
		return fmt.Errorf("session: Register[%s, %s]: event and slice types must be concrete; slices are keyed by exact Go type", e.event, e.slice)
	}
	return s.register(e)
}

// Install runs install once per key for this session: the first call with a
// key runs it, later calls (on this session or on a fork of it, which copies
// the reducer table) do nothing. Tools use it to register their reducers
// idempotently. When install fails, the key is not recorded. Installs on one
// session are serialized, so install must not call Install itself.
func (s *Session) Install(key string, install func(*Session) error) error {
	s.installMu.Lock()
	defer s.installMu.Unlock()
	s.mu.Lock()
	if s.closed.Load() {
		s.mu.Unlock()
		return ErrClosed
	}
	done := s.table.installed[key]
	s.mu.Unlock()
	if done {
		return nil
	}
	if err := install(s); err != nil {
		return fmt.Errorf("session: installing %q: %w", key, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.table.installed[key] {
		nt := s.table.clone()
		nt.installed[key] = true
		s.table = nt
	}
	return nil
}

// Installed reports whether Install ran for key on this session's table.
func (s *Session) Installed(key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.table.installed[key]
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
