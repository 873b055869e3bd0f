package session_test

import (
	"context"
	"reflect"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/bus"
	"github.com/offshoot-dev/offshoot/session"
)

// Seed, Clear and Reset change slices directly: one revision each, no
// events, reducers and subscriptions kept.
func TestSeedClearReset(t *testing.T) {
	s := newSession(t)
	require.NoError(t, session.Register(s, sumTally))
	seen := 0
	stop := s.Bus().SubscribeAll("counts", func(context.Context, bus.Envelope) error { seen++; return nil })
	defer stop()

	steps := []struct {
		name  string
		do    func() error
		notes []Note
	}{
		{"Seed appends", func() error { return session.Seed(s, Note{"a"}, Note{"b"}, Note{"c"}) }, []Note{{"a"}, {"b"}, {"c"}}},
		{"Seed appends to what is there", func() error { return session.Seed(s, Note{"d"}) }, []Note{{"a"}, {"b"}, {"c"}, {"d"}}},
		{"Clear removes what pred picks", func() error { return session.Clear(s, func(n Note) bool { return n.Text == "b" }) }, []Note{{"a"}, {"c"}, {"d"}}},
		{"Clear with nil pred empties", func() error { return session.Clear[Note](s, nil) }, []Note{}},
		{"Seed again", func() error { return session.Seed(s, Note{"e"}) }, []Note{{"e"}}},
		{"Reset empties every slice", s.Reset, []Note{}},
	}
	for _, st := range steps {
		rev := s.Revision()
		require.NoError(t, st.do(), st.name)
		assert.Equal(t, rev+1, s.Revision(), "%s bumps the revision once", st.name)
		assert.Equal(t, st.notes, session.Get[Note](s).Values(), st.name)
	}
	assert.Zero(t, seen, "no events are emitted")
	assert.True(t, s.Snapshot().Has(reflect.TypeFor[Note]()), "Reset keeps the slices, empty")

	require.NoError(t, s.Dispatch(ctx, Added{2}))
	tally, _ := session.Latest[Tally](s)
	assert.Equal(t, Tally{2}, tally, "reducers survive Reset")
	assert.Equal(t, 1, seen, "subscriptions survive Reset")

	rev := s.Revision()
	require.NoError(t, session.Clear[Counter](s, nil), "clearing a slice the session lacks")
	assert.Equal(t, rev, s.Revision(), "changes nothing")
	assert.False(t, s.Snapshot().Has(reflect.TypeFor[Counter]()))

	require.NoError(t, s.Close())
	for name, err := range map[string]error{
		"Seed":  session.Seed(s, Note{"late"}),
		"Clear": session.Clear[Note](s, nil),
		"Reset": s.Reset(),
	} {
		assert.ErrorIs(t, err, session.ErrClosed, name)
	}
}

func TestSeedRefusesAnInterfaceType(t *testing.T) {
	s := newSession(t)
	err := session.Seed[any](s, 1)
	assert.ErrorContains(t, err, "must be concrete")
}

// A predicate that panics changes nothing; one that writes to another
// session may.
func TestClearPredicateFailures(t *testing.T) {
	s := newSession(t)
	require.NoError(t, session.Seed(s, Note{"a"}, Note{"b"}))
	rev := s.Revision()

	err := session.Clear(s, func(Note) bool { panic("boom") })
	var pe *bus.PanicError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, "boom", pe.Value)
	assert.Equal(t, rev, s.Revision())
	assert.Len(t, session.Get[Note](s).Values(), 2)

	other := newSession(t)
	withinASecond(t, func() {
		err = session.Clear(s, func(n Note) bool {
			require.NoError(t, other.Dispatch(ctx, Note{"from pred"}))
			return n.Text == "a"
		})
	})
	require.NoError(t, err)
	assert.Equal(t, []Note{{"b"}}, session.Get[Note](s).Values())
	assert.Equal(t, 2, session.Len[Note](other))
}

// Concurrent Seeds and Dispatches are each applied exactly once.
func TestConcurrentSeedsAreNotLost(t *testing.T) {
	s := newSession(t)
	const n = 50
	var wg sync.WaitGroup
	errs := make(chan error, 2*n)
	for range n {
		wg.Add(2)
		go func() { defer wg.Done(); errs <- session.Seed(s, Note{"seed"}) }()
		go func() { defer wg.Done(); errs <- s.Dispatch(ctx, Note{"event"}) }()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	assert.Equal(t, 2*n, session.Len[Note](s))
	assert.Equal(t, uint64(2*n), s.Revision())
}
