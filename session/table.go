package session

import (
	"maps"
	"reflect"

	"github.com/offshoot-dev/offshoot/internal/pvec"
)

// reducerEntry is one registered reducer, type-erased.
type reducerEntry struct {
	event, slice reflect.Type
	// apply is nil for a record (see Record): the event is appended to the
	// slice of its own type as it is, without re-boxing.
	apply func(rc ReducerContext, v pvec.Vector, event any) (pvec.Vector, error)
}

// table is a session's reducer table: which reducers run for which event
// type, and which install keys have run. It is immutable; registering builds
// a new one, so forks share their parent's table until one of them
// registers.
type table struct {
	byEvent   map[reflect.Type][]reducerEntry
	installed map[string]bool
}

var emptyTable = &table{byEvent: map[reflect.Type][]reducerEntry{}, installed: map[string]bool{}}

// with returns t plus e, after the reducers already registered for e.event.
func (t *table) with(e reducerEntry) *table {
	nt := &table{byEvent: maps.Clone(t.byEvent), installed: t.installed}
	list := t.byEvent[e.event]
	nt.byEvent[e.event] = append(list[:len(list):len(list)], e)
	return nt
}

// recording reports whether t keeps events of type et in their own slice
// besides their reducers (see Record).
func (t *table) recording(et reflect.Type) bool {
	for _, e := range t.byEvent[et] {
		if e.apply == nil {
			return true
		}
	}
	return false
}

// withInstalled returns t with key marked as installed.
func (t *table) withInstalled(key string) *table {
	if t.installed[key] {
		return t
	}
	nt := &table{byEvent: t.byEvent, installed: maps.Clone(t.installed)}
	nt.installed[key] = true
	return nt
}
