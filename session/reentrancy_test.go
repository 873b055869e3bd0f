package session_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/bus"
	"github.com/offshoot-dev/offshoot/session"
)

// call is one session method, called on target from inside a callback.
// writes is set for the methods that write to target under its lock.
type call struct {
	name   string
	do     func(target *session.Session) error
	writes bool
}

var calls = []call{
	{"Dispatch", func(s *session.Session) error { return s.Dispatch(context.Background(), Counter{1}) }, true},
	{"Fork", func(s *session.Session) error {
		c, err := s.Fork()
		if err == nil {
			err = c.Close()
		}
		return err
	}, false},
	{"Install", func(s *session.Session) error {
		return s.Install(context.Background(), session.Reducers{Key: "inner", Rules: []session.Rule{session.On(session.AppendAll[Counter])}})
	}, true},
	{"Installed", func(s *session.Session) error { _ = s.Installed("inner"); return nil }, false},
	{"Register", func(s *session.Session) error { return session.Register(s, session.AppendAll[Counter]) }, true},
	{"Record", func(s *session.Session) error { return session.Record[Counter](s) }, true},
	{"Snapshot", func(s *session.Session) error { _ = s.Snapshot(); return nil }, false},
	{"Rollback", func(s *session.Session) error { return s.Rollback(s.Snapshot()) }, true},
	{"Close", func(s *session.Session) error { return s.Close() }, false},
}

// withinASecond runs f under a watchdog, so that a deadlock fails the test
// instead of hanging the suite.
func withinASecond(t *testing.T, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(time.Second):
		t.Fatal("the call did not return within a second: a deadlock")
	}
}

// allowed reports whether err is nil or one of the clear refusals a
// callback may get.
func allowed(err error) bool {
	return err == nil || errors.Is(err, session.ErrClosed)
}

// Every session method, called from an observer — on the callback's own
// session, its parent or its child — either works or returns a clear error
// at once. None waits forever. So does every method
// a reducer may call: any on another session, and the ones that do not
// write on its own (a write from a reducer to its own session would wait
// for its own lock, as a sync.Mutex locked twice does: reducers are pure).
func TestCallbacksThatCallSessionMethodsNeverDeadlock(t *testing.T) {
	type callback struct {
		name string
		// run makes owner call f(target) from inside the callback and
		// returns what the outer operation returned.
		run func(t *testing.T, owner, target *session.Session, f func(*session.Session) error) (inner, outer error)
	}
	callbacks := []callback{
		{"reducer", func(t *testing.T, owner, target *session.Session, f func(*session.Session) error) (inner, outer error) {
			require.NoError(t, session.Register(owner, func(_ session.ReducerContext, sl session.Slice[Note], e Note) (session.Slice[Note], error) {
				inner = f(target)
				return sl.Append(e), nil
			}))
			return inner, owner.Dispatch(ctx, Note{"go"})
		}},
		{"observer", func(t *testing.T, owner, target *session.Session, f func(*session.Session) error) (inner, outer error) {
			stop, err := bus.Subscribe(owner.Bus(), "calls", func(_ context.Context, env bus.Envelope, _ Note) error {
				if env.SessionID == owner.ID() {
					inner = f(target)
				}
				return nil
			})
			require.NoError(t, err)
			defer stop()
			return inner, owner.Dispatch(ctx, Note{"go"})
		}},
	}
	for _, cb := range callbacks {
		for _, c := range calls {
			for _, whose := range []string{"own", "parent", "child"} {
				t.Run(fmt.Sprintf("%s/%s/%s", cb.name, c.name, whose), func(t *testing.T) {
					parent := newSession(t)
					owner, err := parent.Fork()
					require.NoError(t, err)
					child, err := owner.Fork()
					require.NoError(t, err)
					target := map[string]*session.Session{"own": owner, "parent": parent, "child": child}[whose]
					if cb.name == "reducer" && whose == "own" && c.writes {
						t.Skip("a reducer must not write to the session it reduces (see Dispatch)")
					}
					var inner, outer error
					withinASecond(t, func() { inner, outer = cb.run(t, owner, target, c.do) })
					assert.True(t, allowed(inner), "the call returned %v", inner)
					assert.True(t, allowed(outer), "the callback's operation returned %v", outer)
				})
			}
		}
	}
}
