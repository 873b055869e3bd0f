package session_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/bus"
	"github.com/offshoot-dev/offshoot/session"
)

func TestSlicesAreKeyedByExactType(t *testing.T) {
	s := newSession(t)
	require.NoError(t, s.Dispatch(ctx, Note{"value"}, &Note{"pointer"}))
	assert.Equal(t, []Note{{"value"}}, session.Get[Note](s).Values())
	ptrs := session.Get[*Note](s).Values()
	require.Len(t, ptrs, 1)
	assert.Equal(t, "pointer", ptrs[0].Text)
}

func TestRegisterCreatesTheEmptySliceAndRunsReducersInOrder(t *testing.T) {
	s := newSession(t)
	require.NoError(t, session.Register(s, sumTally))
	snap := s.Snapshot()
	require.True(t, snap.Has(typeOf[Tally]()), "registering creates the slice")
	assert.Zero(t, snap.Len(typeOf[Tally]()))

	var order []string
	require.NoError(t, session.Register(s, func(_ session.ReducerContext, sl session.Slice[Note], e Added) (session.Slice[Note], error) {
		order = append(order, "note")
		return sl.Append(Note{fmt.Sprint(e.By)}), nil
	}))
	require.NoError(t, session.Register(s, func(_ session.ReducerContext, sl session.Slice[Counter], e Added) (session.Slice[Counter], error) {
		order = append(order, "counter")
		return sl.Append(Counter{e.By}), nil
	}))
	require.NoError(t, s.Dispatch(ctx, Added{By: 2}, Added{By: 3}))
	tally, ok := session.Latest[Tally](s)
	require.True(t, ok)
	assert.Equal(t, Tally{Sum: 5}, tally)
	assert.Equal(t, []Note{{"2"}, {"3"}}, session.Get[Note](s).Values())
	assert.Equal(t, []Counter{{2}, {3}}, session.Get[Counter](s).Values())
	assert.Equal(t, []string{"note", "counter", "note", "counter"}, order)
	assert.Zero(t, session.Len[Added](s), "a type with a reducer gets no implicit slice")
}

func TestRegisterRejectsNilAndInterfaceTypes(t *testing.T) {
	s := newSession(t)
	assert.ErrorContains(t, session.Register[Note, Note](s, nil), "needs a reducer")
	assert.ErrorContains(t, session.Register(s, session.AppendAll[any]), "must be concrete")
}

func TestReducerContextCarriesTheEnvelope(t *testing.T) {
	s := newSession(t)
	child, err := s.Fork()
	require.NoError(t, err)
	defer child.Close()
	var got []session.ReducerContext
	require.NoError(t, session.Register(child, func(rc session.ReducerContext, sl session.Slice[Note], e Note) (session.Slice[Note], error) {
		got = append(got, rc)
		return sl.Append(e), nil
	}))
	require.NoError(t, child.Dispatch(ctx, Note{"a"}, Note{"b"}))
	require.Len(t, got, 2)
	assert.Equal(t, t0, got[0].Time)
	assert.Equal(t, child.ID(), got[0].SessionID)
	assert.Equal(t, s.ID(), got[0].ParentSessionID)
	assert.Less(t, got[0].Seq, got[1].Seq)
	assert.Equal(t, Note{"b"}, got[1].Payload)
}

func TestAnEventWithoutReducerIsRecordedInItsOwnSlice(t *testing.T) {
	s := newSession(t)
	require.NoError(t, s.Dispatch(ctx, Counter{1}))
	child, err := s.Fork()
	require.NoError(t, err)
	defer child.Close()
	require.NoError(t, child.Dispatch(ctx, Counter{2}))
	assert.Equal(t, []Counter{{1}, {2}}, session.Get[Counter](child).Values())

	require.NoError(t, s.Dispatch(ctx, Counter{3}))
	require.NoError(t, s.Rollback(session.Snapshot{}))
	assert.Zero(t, session.Len[Counter](s), "rollback to an empty snapshot empties it")
}

// One rule, whatever happened before: an event goes to its reducers when
// its type has some, and to the slice of its own type when it has none. A
// record made while it had none stays.
func TestWhereAnEventGoesDoesNotDependOnHistory(t *testing.T) {
	registerFirst := newSession(t)
	dispatchFirst := newSession(t)
	require.NoError(t, dispatchFirst.Dispatch(ctx, Added{1}))
	for _, s := range []*session.Session{registerFirst, dispatchFirst} {
		require.NoError(t, session.Register(s, sumTally))
		require.NoError(t, s.Dispatch(ctx, Added{2}, Added{3}))
	}
	assert.Zero(t, session.Len[Added](registerFirst))
	assert.Equal(t, []Added{{1}}, session.Get[Added](dispatchFirst).Values(), "recorded while it had no reducer, not after")
	tally, _ := session.Latest[Tally](registerFirst)
	assert.Equal(t, Tally{5}, tally)
	tally, _ = session.Latest[Tally](dispatchFirst)
	assert.Equal(t, Tally{5}, tally)
}

func TestDispatchIsAtomic(t *testing.T) {
	boom := errors.New("no negative additions")
	tests := []struct {
		name    string
		reducer session.Reducer[Added, Tally]
		check   func(t *testing.T, err error)
	}{
		{
			name: "error",
			reducer: func(rc session.ReducerContext, sl session.Slice[Tally], e Added) (session.Slice[Tally], error) {
				if e.By < 0 {
					return sl, boom
				}
				return sumTally(rc, sl, e)
			},
			check: func(t *testing.T, err error) { assert.ErrorIs(t, err, boom) },
		},
		{
			name: "panic",
			reducer: func(rc session.ReducerContext, sl session.Slice[Tally], e Added) (session.Slice[Tally], error) {
				if e.By < 0 {
					panic("negative")
				}
				return sumTally(rc, sl, e)
			},
			check: func(t *testing.T, err error) {
				var pe *bus.PanicError
				require.ErrorAs(t, err, &pe)
				assert.Equal(t, "negative", pe.Value)
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSession(t)
			require.NoError(t, session.Register(s, tt.reducer))
			var observed int
			s.Bus().SubscribeAll("count", func(context.Context, bus.Envelope) error { observed++; return nil })
			require.NoError(t, s.Dispatch(ctx, Added{1}))
			rev := s.Revision()
			before := s.Snapshot()

			err := s.Dispatch(ctx, Added{2}, Note{"implicit"}, Added{-1}, Added{4})
			var re *session.ReducerError
			require.ErrorAs(t, err, &re)
			assert.Equal(t, 2, re.Index)
			assert.Equal(t, typeOf[Added](), re.Event)
			assert.Equal(t, typeOf[Tally](), re.Slice)
			assert.Contains(t, err.Error(), "reducer session_test.Added -> session_test.Tally failed on event 2")
			tt.check(t, err)

			assert.Equal(t, rev, s.Revision(), "nothing applied")
			tally, _ := session.Latest[Tally](s)
			assert.Equal(t, Tally{1}, tally)
			assert.False(t, s.Snapshot().Has(typeOf[Note]()), "not even the implicit slice of the failed call")
			assert.True(t, before.Same(s.Snapshot(), typeOf[Tally]()))
			assert.Equal(t, 1, observed, "observers never see a rejected dispatch")
		})
	}
}

func TestDispatchReturnsReducerFailuresOnlyNotObserverErrors(t *testing.T) {
	s := newSession(t)
	_, err := bus.Subscribe(s.Bus(), "broken-observer", func(context.Context, bus.Envelope, Note) error { return errors.New("observer failed") })
	require.NoError(t, err)
	_, err = bus.Subscribe(s.Bus(), "panicking-observer", func(context.Context, bus.Envelope, Note) error { panic("observer panicked") })
	require.NoError(t, err)
	require.NoError(t, s.Dispatch(ctx, Note{"x"}))
	assert.Equal(t, 1, session.Len[Note](s))
	assert.ErrorContains(t, s.Dispatch(ctx, nil), "event 0 is nil")
	assert.NoError(t, s.Dispatch(ctx))
}

func TestObserversSeeTheEventApplied(t *testing.T) {
	s := newSession(t)
	var seen []int
	_, err := bus.Subscribe(s.Bus(), "reader", func(_ context.Context, env bus.Envelope, n Note) error {
		seen = append(seen, session.Len[Note](s))
		return nil
	})
	require.NoError(t, err)
	require.NoError(t, s.Dispatch(ctx, Note{"a"}))
	require.NoError(t, s.Dispatch(ctx, Note{"b"}, Note{"c"}))
	assert.Equal(t, []int{1, 3, 3}, seen, "a batch is applied whole before observers run")
}

// The bus only tells observers: publishing an event with a session's id
// does not change that session. Only Dispatch writes.
func TestPublishingOnTheBusDoesNotChangeASession(t *testing.T) {
	s := newSession(t)
	res := s.Bus().Publish(ctx, bus.Envelope{SessionID: s.ID(), Payload: Note{"via bus"}})
	require.NoError(t, res.Err())
	assert.Zero(t, session.Len[Note](s))
	assert.Zero(t, s.Revision())
}

func TestRevisionCountsAppliedDispatches(t *testing.T) {
	s := newSession(t)
	assert.Zero(t, s.Revision())
	require.NoError(t, s.Dispatch(ctx, Note{"a"}, Note{"b"}))
	assert.EqualValues(t, 1, s.Revision())
	require.NoError(t, session.Register(s, session.Append[Counter]))
	require.NoError(t, s.Dispatch(ctx, Counter{1}))
	require.NoError(t, s.Dispatch(ctx, Counter{1}), "a dispatch that changes nothing is still applied")
	assert.EqualValues(t, 3, s.Revision())
}

func TestConcurrentDispatchesAreEachAppliedExactlyOnce(t *testing.T) {
	s := newSession(t)
	require.NoError(t, session.Register(s, session.AppendAll[Counter]))
	const goroutines, each = 8, 10_000
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				if err := s.Dispatch(ctx, Counter{g*each + i}); err != nil {
					t.Error(err)
					return
				}
				if i%1000 == 0 {
					_ = session.Len[Counter](s) // lock-free reads alongside
				}
			}
		}()
	}
	wg.Wait()
	assert.EqualValues(t, goroutines*each, s.Revision())
	seen := make([]bool, goroutines*each)
	for c := range session.All[Counter](s) {
		require.False(t, seen[c.N], "applied twice: %d", c.N)
		seen[c.N] = true
	}
	for n, ok := range seen {
		require.True(t, ok, "never applied: %d", n)
	}
	// Each goroutine's own dispatches keep their order.
	last := make([]int, goroutines)
	for i := range last {
		last[i] = -1
	}
	for c := range session.All[Counter](s) {
		g := c.N / each
		require.Greater(t, c.N, last[g])
		last[g] = c.N
	}
}
