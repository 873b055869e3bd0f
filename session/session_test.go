package session_test

import (
	"context"
	"runtime"
	"testing"
	"time"
	"weak"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/offshoot-dev/offshoot/bus"
	"github.com/offshoot-dev/offshoot/session"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var ctx = context.Background()

func TestIdentity(t *testing.T) {
	s := newSession(t, session.WithTags(map[string]string{"team": "a"}))
	assert.Equal(t, "s1", s.ID())
	assert.Empty(t, s.ParentID())
	assert.Equal(t, t0, s.CreatedAt())
	assert.Equal(t, time.UTC, s.CreatedAt().Location())

	tags := s.Tags()
	tags["team"] = "changed"
	assert.Equal(t, map[string]string{"team": "a"}, s.Tags(), "Tags returns a copy")

	c1, err := s.Fork()
	require.NoError(t, err)
	c2, err := s.Fork(session.WithTags(map[string]string{"role": "child"}))
	require.NoError(t, err)
	assert.Equal(t, "s2", c1.ID())
	assert.Equal(t, s.ID(), c1.ParentID())
	assert.Equal(t, s.Bus(), c1.Bus(), "children share the parent's bus")
	assert.Equal(t, []string{"s2", "s3"}, s.ChildIDs())
	assert.Equal(t, map[string]string{"team": "a"}, c1.Tags(), "a fork inherits its parent's tags")
	assert.Equal(t, map[string]string{"role": "child"}, c2.Tags(), "unless it is given its own")

	require.NoError(t, c1.Close())
	assert.Equal(t, []string{"s3"}, s.ChildIDs())
	require.NoError(t, c2.Close())
}

func TestSessionCannotBeItsOwnParent(t *testing.T) {
	s := newSession(t, session.WithID("x"))
	_, err := s.Fork(session.WithID("x"))
	require.ErrorContains(t, err, `session "x" cannot be its own parent`)
	assert.Empty(t, s.ChildIDs())
}

func TestCloseIsIdempotent(t *testing.T) {
	s := newSession(t)
	child, err := s.Fork()
	require.NoError(t, err)
	require.NoError(t, child.Close())
	require.NoError(t, child.Close())
	assert.True(t, child.Closed())
	assert.Empty(t, s.ChildIDs())
	assert.ErrorIs(t, child.Dispatch(ctx, Note{"late"}), session.ErrClosed)
	assert.ErrorIs(t, session.Register(child, session.AppendAll[Note]), session.ErrClosed)
	assert.ErrorIs(t, child.Rollback(s.Snapshot()), session.ErrClosed)
	_, err = child.Fork()
	assert.ErrorIs(t, err, session.ErrClosed)

	// Nothing reaches a closed session: its writes are refused, and the
	// bus tells observers only.
	res := s.Bus().Publish(ctx, bus.Envelope{SessionID: child.ID(), Payload: Note{"x"}})
	require.NoError(t, res.Err())
	assert.Zero(t, session.Len[Note](child))
}

func TestClosedForksAreGarbageCollected(t *testing.T) {
	parent := newSession(t)
	require.NoError(t, session.Register(parent, session.AppendAll[Note]))
	require.NoError(t, parent.Dispatch(ctx, Note{"shared"}))

	const n = 1000
	ptrs := make([]weak.Pointer[session.Session], 0, n)
	for range n {
		c, err := parent.Fork()
		require.NoError(t, err)
		require.NoError(t, c.Dispatch(ctx, Note{"child"}))
		ptrs = append(ptrs, weak.Make(c))
		require.NoError(t, c.Close())
	}
	assert.Empty(t, parent.ChildIDs())
	for range 5 {
		runtime.GC()
	}
	alive := 0
	for _, p := range ptrs {
		if p.Value() != nil {
			alive++
		}
	}
	assert.Zero(t, alive, "every closed fork is collected")
	assert.Equal(t, []Note{{"shared"}}, session.Get[Note](parent).Values())
}

func TestInvalidIDsAreRefused(t *testing.T) {
	for _, id := range []string{"has space", "tab\t", "ünïcode"} {
		_, err := session.New(session.WithID(id))
		assert.ErrorContains(t, err, "invalid session id", id)
	}
	_, err := session.New(session.WithIDGenerator(func() string { return "" }))
	assert.ErrorContains(t, err, "1 to 256 characters")
}

func TestReducersAndObserversMayReadAndClose(t *testing.T) {
	s := newSession(t)
	var seen []int
	require.NoError(t, session.Register(s, func(_ session.ReducerContext, sl session.Slice[Note], e Note) (session.Slice[Note], error) {
		snap := s.Snapshot() // lock-free: no deadlock inside a reducer
		seen = append(seen, snap.Len(typeOf[Note]()), len(s.ChildIDs()))
		return sl.Append(e), nil
	}))
	require.NoError(t, s.Dispatch(ctx, Note{"a"}))
	assert.Equal(t, []int{0, 0}, seen)

	child, err := s.Fork()
	require.NoError(t, err)
	require.NoError(t, session.Register(child, func(_ session.ReducerContext, sl session.Slice[Counter], e Counter) (session.Slice[Counter], error) {
		return sl.Append(e), child.Close() // closing from a reducer does not deadlock either
	}))
	require.NoError(t, child.Dispatch(ctx, Counter{1}))
	assert.True(t, child.Closed())
	assert.ErrorIs(t, child.Dispatch(ctx, Counter{2}), session.ErrClosed)
}
