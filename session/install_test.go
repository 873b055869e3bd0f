package session_test

import (
	"context"
	"reflect"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/bus"
	"github.com/offshoot-dev/offshoot/serde"
	"github.com/offshoot-dev/offshoot/session"
)

var tallies = session.Reducers{Key: "tally", Rules: []session.Rule{session.On(sumTally)}}

func TestInstallRegistersOncePerKeyAndForksInheritIt(t *testing.T) {
	s := newSession(t)
	require.NoError(t, s.Install(ctx, tallies))
	rev := s.Revision()
	require.NoError(t, s.Install(ctx, tallies))
	assert.Equal(t, rev, s.Revision(), "installing what is installed writes nothing")
	assert.True(t, s.Installed("tally"))
	child, err := s.Fork()
	require.NoError(t, err)
	defer child.Close()
	assert.True(t, child.Installed("tally"))
	require.NoError(t, child.Install(ctx, tallies))

	require.NoError(t, child.Dispatch(ctx, Added{2}))
	tally, _ := session.Latest[Tally](child)
	assert.Equal(t, Tally{2}, tally, "the reducer ran once, not twice")
}

// An install is one write: a bad rule or a rejected seed anywhere in it
// changes nothing at all.
func TestInstallIsAllOrNone(t *testing.T) {
	tests := []struct {
		name string
		sets []session.Reducers
		want string
	}{
		{"a rule without a reducer", []session.Reducers{tallies, {Key: "bad", Rules: []session.Rule{session.On[Note, Note](nil)}}}, "needs a reducer"},
		{"a rule of an interface type", []session.Reducers{tallies, {Key: "bad", Rules: []session.Rule{session.Keep[any]()}}}, "must be concrete"},
		{"a set without a key", []session.Reducers{tallies, {Rules: []session.Rule{session.Keep[Note]()}}}, "set 1 has no key"},
		{"a seed a reducer rejects", []session.Reducers{tallies, {Key: "picky", Rules: []session.Rule{session.On(rejectNote)}, Seed: []any{Note{"no"}}}}, `installing "picky": its seed was rejected`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSession(t)
			before := s.Snapshot()
			err := s.Install(ctx, tt.sets...)
			require.ErrorContains(t, err, tt.want)
			assert.False(t, s.Installed("tally"))
			assert.Equal(t, before.Revision(), s.Revision())
			require.NoError(t, s.Dispatch(ctx, Added{1}))
			assert.Zero(t, session.Len[Tally](s), "no reducer of the failed install was kept")
		})
	}
}

func rejectNote(_ session.ReducerContext, sl session.Slice[Note], n Note) (session.Slice[Note], error) {
	if n.Text == "no" {
		return sl, assert.AnError
	}
	return sl.Append(n), nil
}

// Concurrent installs of one key register its reducers once.
func TestConcurrentInstallsOfOneKeyRegisterOnce(t *testing.T) {
	s := newSession(t)
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			assert.NoError(t, s.Install(ctx, tallies))
		}()
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

// A set's seed gives a session its first state: applied, numbered and
// told to observers when the set's slices are empty — even where the key
// is installed already (a fresh child) — and never over state the
// session has.
func TestInstallSeedsASessionWithoutTheState(t *testing.T) {
	seeded := session.Reducers{Key: "tally", Rules: []session.Rule{session.On(sumTally)}, Seed: []any{Added{5}}}
	s := newSession(t)
	var told []bus.Envelope
	stop := s.Bus().SubscribeAll("told", func(_ context.Context, env bus.Envelope) error { told = append(told, env); return nil })
	defer stop()
	require.NoError(t, s.Dispatch(ctx, Note{"first"}))
	require.NoError(t, s.Install(ctx, seeded))
	tally, _ := session.Latest[Tally](s)
	assert.Equal(t, Tally{5}, tally)
	require.Len(t, told, 2)
	assert.Equal(t, Added{5}, told[1].Payload)
	assert.Equal(t, uint64(2), told[1].Seq, "a seed event has its place in the log")

	require.NoError(t, s.Dispatch(ctx, Added{1}))
	rev := s.Revision()
	require.NoError(t, s.Install(ctx, seeded))
	assert.Equal(t, rev, s.Revision(), "the session has the state: nothing is seeded again")
	tally, _ = session.Latest[Tally](s)
	assert.Equal(t, Tally{6}, tally)

	fresh, err := s.Fork(session.Fresh())
	require.NoError(t, err)
	defer fresh.Close()
	require.True(t, fresh.Installed("tally"))
	require.NoError(t, fresh.Install(ctx, seeded))
	tally, _ = session.Latest[Tally](fresh)
	assert.Equal(t, Tally{5}, tally, "a fresh child gets the seed though the key is installed")
}

// A set names its types in the session's registry; a name the program
// gave first wins.
func TestInstallNamesTypes(t *testing.T) {
	reg := serde.NewRegistry()
	require.NoError(t, serde.Register[Tally](reg, "mine.Tally"))
	s := newSession(t, session.WithRegistry(reg))
	set := tallies
	set.Names = map[reflect.Type]string{reflect.TypeFor[Added](): "lib.Added", reflect.TypeFor[Tally](): "lib.Tally"}
	require.NoError(t, s.Install(ctx, set))
	assert.Equal(t, "lib.Added", reg.Name(reflect.TypeFor[Added]()))
	assert.Equal(t, "mine.Tally", reg.Name(reflect.TypeFor[Tally]()))
}

// Registering a reducer records both its event type and its slice type in
// the session's registry, however the reducer came: a snapshot's JSON
// names both and must decode in a new process.
func TestRegisteringRecordsEventAndSliceTypes(t *testing.T) {
	tests := []struct {
		name     string
		register func(*session.Session) error
	}{
		{"Register", func(s *session.Session) error { return session.Register(s, sumTally) }},
		{"Install", func(s *session.Session) error { return s.Install(ctx, tallies) }},
		{"Register on a fork", func(s *session.Session) error {
			child, err := s.Fork()
			if err != nil {
				return err
			}
			t.Cleanup(func() { _ = child.Close() })
			return session.Register(child, sumTally)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := serde.NewRegistry()
			s := newSession(t, session.WithRegistry(reg))
			require.NoError(t, tt.register(s))
			for _, typ := range []reflect.Type{reflect.TypeFor[Added](), reflect.TypeFor[Tally]()} {
				got, ok := reg.Lookup(serde.DefaultName(typ))
				assert.True(t, ok, "%s is not in the registry", typ)
				assert.Equal(t, typ, got)
			}
		})
	}
}
