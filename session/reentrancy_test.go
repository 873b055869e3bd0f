package session_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
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
		return s.Install("inner", func(s *session.Session) error { return session.Register(s, session.AppendAll[Counter]) })
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
	return err == nil || errors.Is(err, session.ErrClosed) ||
		strings.Contains(err.Error(), "from inside an install function")
}

// Every session method, called from an observer or an install function —
// on the callback's own session, its parent or its child — either works or
// returns a clear error at once. None waits forever. So does every method
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
		{"install function", func(t *testing.T, owner, target *session.Session, f func(*session.Session) error) (inner, outer error) {
			outer = owner.Install("outer", func(staged *session.Session) error {
				if target == owner {
					target = staged // what an install function holds
				}
				inner = f(target)
				return nil
			})
			return inner, outer
		}},
		{"install function, on the sessions it captured", func(t *testing.T, owner, target *session.Session, f func(*session.Session) error) (inner, outer error) {
			outer = owner.Install("outer", func(*session.Session) error {
				inner = f(target)
				return nil
			})
			return inner, outer
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

// A tool's install function may install what it builds on, as the VFS
// guide advises (vfs.Install inside a tool's own install).
func TestInstallInsideInstallWorks(t *testing.T) {
	s := newSession(t)
	base := func(s *session.Session) error { return session.Register(s, sumTally) }
	runs := 0
	withinASecond(t, func() {
		require.NoError(t, s.Install("tool", func(s *session.Session) error {
			runs++
			if err := s.Install("base", base); err != nil {
				return err
			}
			if err := s.Install("tool", base); err != nil { // its own key: already being installed
				return err
			}
			return session.Register(s, session.AppendAll[Note])
		}))
	})
	assert.Equal(t, 1, runs)
	assert.True(t, s.Installed("tool"))
	assert.True(t, s.Installed("base"))
	require.NoError(t, s.Dispatch(ctx, Added{2}, Note{"n"}))
	tally, _ := session.Latest[Tally](s)
	assert.Equal(t, Tally{2}, tally, "base's reducer registered once")
	assert.Equal(t, 1, session.Len[Note](s))
}

// An install function that fails registers nothing: its registrations are
// committed whole or not at all.
func TestAFailedInstallRegistersNothing(t *testing.T) {
	s := newSession(t)
	err := s.Install("half", func(s *session.Session) error {
		if err := session.Register(s, sumTally); err != nil {
			return err
		}
		return errors.New("second step failed")
	})
	require.ErrorContains(t, err, `installing "half": second step failed`)
	assert.False(t, s.Installed("half"))
	require.NoError(t, s.Dispatch(ctx, Added{1}))
	assert.Zero(t, session.Len[Tally](s), "the first registration was not kept")
	assert.Equal(t, 1, session.Len[Added](s))
}

// Concurrent Installs of one key register its reducers once.
func TestConcurrentInstallsOfOneKeyRegisterOnce(t *testing.T) {
	s := newSession(t)
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			assert.NoError(t, s.Install("tally", func(s *session.Session) error { return session.Register(s, sumTally) }))
		}()
		wg.Add(1)
		go func() {
			defer wg.Done()
			assert.NoError(t, s.Dispatch(ctx, Note{"meanwhile"}))
		}()
	}
	wg.Wait()
	require.NoError(t, s.Dispatch(ctx, Added{1}))
	tally, _ := session.Latest[Tally](s)
	assert.Equal(t, Tally{1}, tally)
	assert.Equal(t, 16, session.Len[Note](s))
}

// An install function that writes to the session it captured, not the one
// it is given, returns at once: its write is an ordinary write to that
// session, made once — the install function does not run again because of
// it, so no reducer is registered twice.
func TestAnInstallWritingToTheCapturedSessionReturns(t *testing.T) {
	cases := []struct {
		name    string
		install func(outer, given *session.Session) error
	}{
		{"Register on the captured session", func(outer, _ *session.Session) error {
			return session.Register(outer, session.AppendAll[Note])
		}},
		{"Record on the captured session", func(outer, _ *session.Session) error {
			return session.Record[Note](outer)
		}},
		{"Install of another key on the captured session", func(outer, _ *session.Session) error {
			return outer.Install("notes", func(c *session.Session) error { return session.Register(c, session.AppendAll[Note]) })
		}},
		{"the same nested Install on both", func(outer, given *session.Session) error {
			notes := func(c *session.Session) error { return session.Register(c, session.AppendAll[Note]) }
			if err := outer.Install("notes", notes); err != nil {
				return err
			}
			return given.Install("notes", notes)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newSession(t)
			runs := 0
			var err error
			withinASecond(t, func() {
				err = s.Install("tool", func(given *session.Session) error {
					runs++
					if err := c.install(s, given); err != nil {
						return err
					}
					return session.Register(given, sumTally)
				})
			})
			require.NoError(t, err)
			assert.LessOrEqual(t, runs, 2, "the install function ran %d times", runs)
			assert.True(t, s.Installed("tool"))
			require.NoError(t, s.Dispatch(ctx, Note{"once"}, Added{3}))
			assert.Equal(t, 1, session.Len[Note](s), "one reducer (or record) for Note, not one per run")
			tally, _ := session.Latest[Tally](s)
			assert.Equal(t, Tally{3}, tally, "the given session's registration is committed once")
		})
	}
}

// An install function that installs a new key on the captured session each
// time it runs would make Install start over forever; it gets a clear error
// after a bounded number of runs, and its own registrations are not kept.
func TestAnInstallThatNeverSettlesFails(t *testing.T) {
	s := newSession(t)
	runs := 0
	var err error
	withinASecond(t, func() {
		err = s.Install("restless", func(given *session.Session) error {
			runs++
			if err := s.Install(fmt.Sprintf("fresh-%d", runs), func(*session.Session) error { return nil }); err != nil {
				return err
			}
			return session.Register(given, sumTally)
		})
	})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `installing "restless"`)
	assert.Contains(t, err.Error(), "on the session it is given")
	assert.False(t, s.Installed("restless"))
	require.NoError(t, s.Dispatch(ctx, Added{1}))
	assert.Zero(t, session.Len[Tally](s), "nothing of the install function's own registrations was kept")
}
