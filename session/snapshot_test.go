package session_test

import (
	"context"

	"sync"
	"testing"

	"github.com/offshoot-dev/offshoot/bus"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/session"
)

func TestSnapshotIsImmutableAndCarriesIdentity(t *testing.T) {
	s := newSession(t, session.WithTags(map[string]string{"k": "v"}))
	require.NoError(t, session.Register(s, sumTally))
	require.NoError(t, s.Dispatch(ctx, Note{"a"}, Added{1}))
	child, err := s.Fork()
	require.NoError(t, err)

	snap := s.Snapshot()
	assert.Equal(t, "1", snap.Version())
	assert.Equal(t, s.ID(), snap.SessionID())
	assert.Empty(t, snap.ParentID())
	assert.Equal(t, []string{child.ID()}, snap.ChildIDs())
	assert.Equal(t, map[string]string{"k": "v"}, snap.Tags())
	assert.Equal(t, t0, snap.CreatedAt())
	assert.Equal(t, s.Revision(), snap.Revision())
	assert.Equal(t, []string{"session_test.Note", "session_test.Tally"}, typeNames(snap))

	require.NoError(t, s.Dispatch(ctx, Note{"b"}, Added{10}))
	require.NoError(t, child.Close())
	other, err := s.Fork()
	require.NoError(t, err)
	defer other.Close()

	assert.Equal(t, 1, snap.Len(typeOf[Note]()), "later dispatches never change a snapshot")
	assert.Equal(t, []Note{{"a"}}, session.SliceOfSnapshot[Note](snap).Values())
	assert.Equal(t, []Tally{{1}}, session.SliceOfSnapshot[Tally](snap).Values())
	assert.Equal(t, []string{child.ID()}, snap.ChildIDs(), "nor later closes and forks")
	assert.Equal(t, []string{other.ID()}, s.Snapshot().ChildIDs())
}

func typeNames(snap session.Snapshot) []string {
	var out []string
	for _, t := range snap.Types() {
		out = append(out, t.String())
	}
	return out
}

func TestRollback(t *testing.T) {
	src := newSession(t)
	require.NoError(t, src.Dispatch(ctx, Note{"from source"}, Counter{7}))
	snap := src.Snapshot()

	s := newSession(t)
	require.NoError(t, session.Register(s, sumTally))
	require.NoError(t, s.Dispatch(ctx, Added{3}))
	var observed int
	s.Bus().SubscribeAll("events", func(context.Context, bus.Envelope) error { observed++; return nil })
	id, rev := s.ID(), s.Revision()

	require.NoError(t, s.Rollback(snap))
	assert.Equal(t, []Note{{"from source"}}, session.Get[Note](s).Values(), "slices of the snapshot are adopted")
	assert.Equal(t, []Counter{{7}}, session.Get[Counter](s).Values())
	assert.Zero(t, session.Len[Tally](s), "a registered slice the snapshot lacks is emptied")
	assert.Equal(t, id, s.ID())
	assert.Greater(t, s.Revision(), rev)
	assert.Zero(t, observed, "rollback emits no events")

	// Adopted types without reducers are recorded with AppendAll from now on,
	// and the registered reducers still run.
	require.NoError(t, s.Dispatch(ctx, Note{"next"}, Added{4}))
	assert.Equal(t, []Note{{"from source"}, {"next"}}, session.Get[Note](s).Values())
	tally, _ := session.Latest[Tally](s)
	assert.Equal(t, Tally{4}, tally)

	// Rolling back is O(1): the slices are the snapshot's own.
	require.NoError(t, s.Rollback(snap))
	assert.True(t, snap.Same(s.Snapshot(), typeOf[Note]()))
	assert.Equal(t, []Note{{"from source"}}, session.SliceOfSnapshot[Note](snap).Values(), "the snapshot did not change")
}

func TestForkStartsFromSnapshotParity(t *testing.T) {
	parent := newSession(t)
	require.NoError(t, session.Register(parent, sumTally))
	require.NoError(t, parent.Dispatch(ctx, Note{"a"}, Added{2}, Counter{1}))
	snap := parent.Snapshot()
	child, err := parent.Fork()
	require.NoError(t, err)
	defer child.Close()
	cs := child.Snapshot()
	for _, typ := range snap.Types() {
		assert.True(t, snap.Same(cs, typ), "%s is shared, not copied", typ)
	}
	assert.Equal(t, snap.Types(), cs.Types())
	require.NoError(t, child.Dispatch(ctx, Added{5}))
	tally, _ := session.Latest[Tally](child)
	assert.Equal(t, Tally{7}, tally, "the child has the parent's reducers")
}

func TestForkFromAnEarlierSnapshotAndFresh(t *testing.T) {
	parent := newSession(t)
	require.NoError(t, parent.Dispatch(ctx, Note{"early"}))
	early := parent.Snapshot()
	require.NoError(t, session.Register(parent, sumTally))
	require.NoError(t, parent.Dispatch(ctx, Note{"late"}, Added{1}))

	child, err := parent.Fork(session.WithSnapshot(early))
	require.NoError(t, err)
	defer child.Close()
	assert.Equal(t, []Note{{"early"}}, session.Get[Note](child).Values())
	assert.True(t, child.Snapshot().Has(typeOf[Tally]()), "registered slices exist, empty")
	assert.Zero(t, session.Len[Tally](child))

	fresh, err := parent.Fork(session.Fresh())
	require.NoError(t, err)
	defer fresh.Close()
	assert.Zero(t, session.Len[Note](fresh))
	require.NoError(t, fresh.Dispatch(ctx, Added{9}))
	tally, _ := session.Latest[Tally](fresh)
	assert.Equal(t, Tally{9}, tally)

	root, err := session.New(session.WithSnapshot(parent.Snapshot()), session.WithIDGenerator(ids()))
	require.NoError(t, err)
	defer root.Close()
	assert.Equal(t, []Note{{"early"}, {"late"}}, session.Get[Note](root).Values())
	assert.Empty(t, root.ParentID())
}

func TestParentAndChildDispatchingConcurrentlyNeverSeeEachOther(t *testing.T) {
	parent := newSession(t)
	require.NoError(t, session.Register(parent, session.AppendAll[Counter]))
	require.NoError(t, parent.Dispatch(ctx, Counter{-1}))
	child, err := parent.Fork()
	require.NoError(t, err)
	defer child.Close()

	const each = 2000
	var wg sync.WaitGroup
	for who, s := range map[int]*session.Session{0: parent, 1: child} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				require.NoError(t, s.Dispatch(ctx, Counter{who*100_000 + i}))
			}
		}()
	}
	wg.Wait()
	check := func(s *session.Session, who int) {
		vals := session.Get[Counter](s).Values()
		require.Len(t, vals, each+1)
		assert.Equal(t, Counter{-1}, vals[0])
		for i, c := range vals[1:] {
			require.Equal(t, who*100_000+i, c.N)
		}
	}
	check(parent, 0)
	check(child, 1)
}
