package session

import (
	"errors"
	"fmt"
	"reflect"

	"github.com/offshoot-dev/offshoot/internal/pvec"
)

// Register adds reducer for events of type E folding into the slice of type
// S, and creates that slice (empty) when the session does not have it yet.
// Several reducers for one event type run in registration order, each on its
// own slice. Types are matched exactly: E and *E are different event types.
// E and S are recorded in the session's serde registry for snapshot JSON.
//
// An event of type E dispatched before any reducer for E was registered
// stays in the slice of type E where it was recorded; from registration on,
// E's events go to its reducers only (see Record to keep both).
func Register[E, S any](s *Session, reducer Reducer[E, S]) error {
	e := reducerEntry{event: reflect.TypeFor[E](), slice: reflect.TypeFor[S]()}
	if reducer == nil {
		return fmt.Errorf("session: Register[%s, %s] needs a reducer; pass session.AppendAll or your own", e.event, e.slice)
	}
	if e.event.Kind() == reflect.Interface || e.slice.Kind() == reflect.Interface {
		return fmt.Errorf("session: Register[%s, %s]: event and slice types must be concrete; slices are keyed by exact Go type", e.event, e.slice)
	}
	e.apply = func(rc ReducerContext, v pvec.Vector, event any) (pvec.Vector, error) {
		out, err := reducer(rc, Slice[S]{v: v}, event.(E))
		return out.v, err
	}
	return s.register(e)
}

// Record makes the session keep every event of type E in the slice of type
// E, besides the reducers E has — for derived records such as the files a
// subagent wrote (vfs.FileWritten events, which the VFS reducers fold into
// the file table). Recording a type again is a no-op; forks inherit the
// record.
func Record[E any](s *Session) error {
	et := reflect.TypeFor[E]()
	if et.Kind() == reflect.Interface {
		return fmt.Errorf("session: Record[%s]: the event type must be concrete; slices are keyed by exact Go type", et)
	}
	return s.register(reducerEntry{event: et, slice: et})
}

// register adds e to the table and creates its slice.
func (s *Session) register(e reducerEntry) error {
	_, err := s.write(func(cur *state) (*state, error) {
		if e.apply == nil && cur.table.recording(e.event) {
			return cur, nil
		}
		return cur.withTable(cur.table.with(e), e.slice), nil
	})
	if err == nil {
		s.registerTypes(e.event, e.slice)
	}
	return err
}

// Install runs install once per key for this session: the first call with a
// key runs it, later calls (on this session or on a fork of it, which has
// its table) do nothing. Tools use it to register their reducers
// idempotently.
//
// install works on a private copy of the session, and what it registers
// there is committed at once when it returns nil, or not at all when it
// fails. So concurrent Installs of one key register once, and install may
// call Register, Record, Install (of this key or another: a tool's install
// may call vfs.Install), Installed and any read; Dispatch, Rollback, Fork,
// Seed, Clear, Reset and Close are refused inside it (do them after Install
// returns). Registrations made meanwhile by others are kept beside install's.
// When another Install commits a key meanwhile, install runs again on the
// new table (what it saw of Installed may have changed), so it must do
// nothing but register; after maxInstallRuns runs Install gives up with an
// error and commits nothing.
//
// Register with the session install is given. A write install makes to
// another session — the one it captured, say — is an ordinary write to that
// session: it is made at once and is not undone when install fails.
func (s *Session) Install(key string, install func(*Session) error) error {
	if install == nil {
		return fmt.Errorf("session: Install(%q) needs an install function", key)
	}
	for run := 1; ; run++ {
		base := s.state.Load()
		if base.table.installed[key] {
			return nil
		}
		if s.closed.Load() {
			return ErrClosed
		}
		copy := s.staged(base.withTable(base.table.withInstalled(key)))
		if err := install(copy); err != nil {
			return fmt.Errorf("session: installing %q: %w", key, err)
		}
		staged := copy.state.Load().table
		_, err := s.write(func(cur *state) (*state, error) {
			next, slices, ok := rebase(base.table, staged, cur.table)
			if !ok {
				return cur, errRestage
			}
			return cur.withTable(next, slices...), nil
		})
		if !errors.Is(err, errRestage) {
			return err
		}
		if run == maxInstallRuns {
			return fmt.Errorf("session: installing %q: other installs changed the session each of the %d times the install function ran; an install function must only register, on the session it is given", key, run)
		}
	}
}

// maxInstallRuns bounds how often Install runs an install function whose
// work other installs keep overtaking. It is only reached by an install
// function that installs new keys on a session other than the one it is
// given, every time it runs.
const maxInstallRuns = 64

// errRestage says that another Install committed while an install function
// ran, so it must run again on the new table.
var errRestage = errors.New("session: the installed keys changed during Install")

// rebase returns cur plus what an install function added to base (staged
// is base plus those additions), and the slice types of the added
// reducers. ok is false when cur's installed keys differ from base's: the
// install function answered Installed from base, so it must run again. A
// record (see Record) cur already keeps is not added twice.
func rebase(base, staged, cur *table) (next *table, slices []reflect.Type, ok bool) {
	if cur != base && !sameKeys(base.installed, cur.installed) {
		return nil, nil, false
	}
	if cur == base { // the usual case: nothing else changed the table
		for et, list := range staged.byEvent {
			for _, e := range list[len(base.byEvent[et]):] {
				slices = append(slices, e.slice)
			}
		}
		return staged, slices, true
	}
	next = cur
	for et, list := range staged.byEvent {
		for _, e := range list[len(base.byEvent[et]):] {
			if e.apply == nil && next.recording(e.event) {
				continue
			}
			next = next.with(e)
			slices = append(slices, e.slice)
		}
	}
	for k := range staged.installed {
		next = next.withInstalled(k)
	}
	return next, slices, true
}

// sameKeys reports whether a and b hold the same keys.
func sameKeys(a, b map[string]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}

// Installed reports whether Install ran for key on this session's table.
func (s *Session) Installed(key string) bool { return s.state.Load().table.installed[key] }

// stage marks the private copy of a session an install function works on.
type stage struct {
	of *Session
}

// staged returns a private copy of s holding st, for an install function.
func (s *Session) staged(st *state) *Session {
	c := &Session{
		id: s.id, parentID: s.parentID, parent: s.parent, createdAt: s.createdAt, tags: s.tags,
		bus: s.bus, reg: s.reg, newID: s.newID,
		stage: &stage{of: s},
	}
	c.state.Store(st)
	return c
}

// errInInstall is what the writes an install function may not make return.
func errInInstall(what string) error {
	return fmt.Errorf("session: cannot %s from inside an install function; an install function only registers reducers (do it after Install returns)", what)
}
