package session

import (
	"context"
	"errors"
	"fmt"
	"reflect"

	"github.com/offshoot-dev/offshoot/bus"
	"github.com/offshoot-dev/offshoot/internal/pvec"
	"github.com/offshoot-dev/offshoot/serde"
)

// Rule is one reducer as data, for Reducers: On makes one that folds an
// event into a slice, Keep one that keeps an event as it is.
type Rule struct {
	entry reducerEntry
	err   error
}

// On returns the rule that folds events of type E into the slice of type S
// with reducer, as Register does. Types are matched exactly: E and *E are
// different event types.
func On[E, S any](reducer Reducer[E, S]) Rule {
	e := reducerEntry{event: reflect.TypeFor[E](), slice: reflect.TypeFor[S]()}
	switch {
	case reducer == nil:
		return Rule{err: fmt.Errorf("session: On[%s, %s] needs a reducer; pass session.AppendAll or your own", e.event, e.slice)}
	case e.event.Kind() == reflect.Interface || e.slice.Kind() == reflect.Interface:
		return Rule{err: fmt.Errorf("session: On[%s, %s]: event and slice types must be concrete; slices are keyed by exact Go type", e.event, e.slice)}
	}
	e.apply = func(rc ReducerContext, v pvec.Vector, event any) (pvec.Vector, error) {
		out, err := reducer(rc, Slice[S]{v: v}, event.(E))
		return out.v, err
	}
	return Rule{entry: e}
}

// Keep returns the rule that keeps every event of type E in the slice of
// type E besides the reducers E has, as Record does.
func Keep[E any]() Rule {
	et := reflect.TypeFor[E]()
	if et.Kind() == reflect.Interface {
		return Rule{err: fmt.Errorf("session: Keep[%s]: the event type must be concrete; slices are keyed by exact Go type", et)}
	}
	return Rule{entry: reducerEntry{event: et, slice: et}}
}

// Reducers is what a package's events need on a session, as data: its
// reducers, stable names for its types in snapshot JSON, and the events
// that give a session its first state of that kind. Tools declare theirs
// (see tools.WithReducers) and the runner installs them, for every tool
// of a toolset, in one write; a program installs them itself with Install.
type Reducers struct {
	// Key names the set, such as the import path of the package that owns
	// it. A session installs a key once; its forks inherit what it
	// installed.
	Key string
	// Rules are the reducers, registered in this order.
	Rules []Rule
	// Names are stable names for types in the session's registry, so that
	// snapshot JSON does not depend on import paths. A name the program
	// already gave a type wins.
	Names map[reflect.Type]string
	// Seed are events that give a session its first state: Install applies
	// them, through the rules, whenever every slice the rules fold into is
	// empty — on a session that has none of this state yet, even when the
	// key is installed (a fresh child, say).
	Seed []any
}

// Name gives the set's types their names (Names) in reg, for a registry
// of a program's own — to decode, in a new process, snapshots that hold
// them. A type reg already names otherwise keeps its name, and the error
// says so.
func (r Reducers) Name(reg *serde.Registry) error {
	var errs []error
	for t, name := range r.Names {
		errs = append(errs, reg.RegisterType(t, name))
	}
	return errors.Join(errs...)
}

// Register adds reducer for events of type E folding into the slice of
// type S, and creates that slice (empty) when the session does not have it
// yet. Several reducers for one event type run in registration order, each
// on its own slice. Types are matched exactly: E and *E are different event
// types. E and S are recorded in the session's serde registry for snapshot
// JSON.
//
// An event of type E dispatched before any reducer for E was registered
// stays in the slice of type E where it was recorded; from registration on,
// E's events go to its reducers only (see Record to keep both).
func Register[E, S any](s *Session, reducer Reducer[E, S]) error {
	return s.install(context.Background(), []Reducers{{Rules: []Rule{On(reducer)}}})
}

// Record makes the session keep every event of type E in the slice of type
// E, besides the reducers E has — for derived records such as the files a
// subagent wrote (vfs.FileWritten events, which the VFS reducers fold into
// the file table). Recording a type again is a no-op; forks inherit the
// record.
func Record[E any](s *Session) error {
	return s.install(context.Background(), []Reducers{{Rules: []Rule{Keep[E]()}}})
}

// Install registers sets on the session in one write: the rules and names
// of each set whose key the session has not installed, and the Seed of each
// set whose slices are all empty. It is all or none: an invalid rule, a set
// without a key, or a seed event a reducer rejects fails the whole install
// and changes nothing. Seed events are committed as dispatched ones are
// (numbered, timed, then told to observers with ctx). Installing what is
// installed, on a session that has the seeded state, writes nothing.
//
// Concurrent installs of one key register its rules once.
func (s *Session) Install(ctx context.Context, sets ...Reducers) error {
	for i, set := range sets {
		if set.Key == "" {
			return fmt.Errorf("session: Install: set %d has no key; name it, such as with the import path of the package that owns it", i)
		}
	}
	return s.install(ctx, sets)
}

// Installed reports whether a set of this key is installed on this
// session's table.
func (s *Session) Installed(key string) bool { return s.state.Load().table.installed[key] }

// install is Install, for sets with or without a key.
func (s *Session) install(ctx context.Context, sets []Reducers) error {
	for _, set := range sets {
		for _, r := range set.Rules {
			if r.err != nil {
				return r.err
			}
		}
		if set.Key == "" || !s.Installed(set.Key) {
			for t, name := range set.Names {
				_ = s.reg.RegisterType(t, name) // fails when the program named t: its name wins
			}
		}
	}
	var seeded []bus.Envelope
	_, err := s.write(ctx, func(cur *state) (*state, error) {
		t := cur.table
		var slices []reflect.Type
		for _, set := range sets {
			if set.Key != "" && t.installed[set.Key] {
				continue
			}
			for _, r := range set.Rules {
				if r.entry.apply == nil && t.recording(r.entry.event) {
					continue
				}
				t = t.with(r.entry)
				slices = append(slices, r.entry.slice)
			}
			if set.Key != "" {
				t = t.withInstalled(set.Key)
			}
		}
		next := cur
		if t != cur.table {
			next = cur.withTable(t, slices...)
		}
		for _, set := range sets {
			if len(set.Seed) == 0 || !empty(next, set.Rules) {
				continue
			}
			envs := make([]bus.Envelope, len(set.Seed))
			now := s.bus.Now()
			for i, e := range set.Seed {
				envs[i] = bus.Envelope{SessionID: s.id, ParentSessionID: s.parentID, Seq: next.seq + uint64(i) + 1, Time: now, Payload: e}
			}
			var err error
			if next, err = next.apply(envs); err != nil {
				return nil, fmt.Errorf("session: installing %q: its seed was rejected: %w", set.Key, err)
			}
			seeded = append(seeded, envs...)
		}
		if err := s.commit(ctx, seeded, next); err != nil {
			return nil, err
		}
		return next, nil
	})
	if err != nil {
		return err
	}
	if len(seeded) > 0 {
		s.bus.Publish(ctx, seeded...)
	}
	return nil
}

// empty reports whether every slice rules fold into is empty in st.
func empty(st *state, rules []Rule) bool {
	for _, r := range rules {
		if st.get(r.entry.slice).Len() > 0 {
			return false
		}
	}
	return true
}
