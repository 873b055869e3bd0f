package session_test

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/session"
)

func typeOf[T any]() reflect.Type { return reflect.TypeFor[T]() }

type kv struct {
	K string
	V int
}

func TestBuiltInReducers(t *testing.T) {
	byKey := func(x kv) string { return x.K }
	tests := []struct {
		name    string
		reducer session.Reducer[kv, kv]
		in      []kv
		want    []kv
	}{
		{"AppendAll", session.AppendAll[kv], []kv{{"a", 1}, {"a", 1}}, []kv{{"a", 1}, {"a", 1}}},
		{"Append dedupes equal values", session.Append[kv], []kv{{"a", 1}, {"a", 1}, {"a", 2}}, []kv{{"a", 1}, {"a", 2}}},
		{"AppendFunc", session.AppendFunc(func(a, b kv) bool { return a.K == b.K }), []kv{{"a", 1}, {"a", 2}, {"b", 3}}, []kv{{"a", 1}, {"b", 3}}},
		{"ReplaceLatest", session.ReplaceLatest[kv], []kv{{"a", 1}, {"b", 2}}, []kv{{"b", 2}}},
		{"UpsertBy replaces in place", session.UpsertBy(byKey), []kv{{"a", 1}, {"b", 2}, {"a", 3}}, []kv{{"a", 3}, {"b", 2}}},
		{"ReplaceLatestBy moves to the end", session.ReplaceLatestBy(byKey), []kv{{"a", 1}, {"b", 2}, {"a", 3}}, []kv{{"b", 2}, {"a", 3}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSession(t)
			require.NoError(t, session.Register(s, tt.reducer))
			for _, e := range tt.in {
				require.NoError(t, s.Dispatch(ctx, e))
			}
			assert.Equal(t, tt.want, session.Get[kv](s).Values())
		})
	}
}

func TestUpsertByIdentityDropsLaterDuplicates(t *testing.T) {
	id := func(n int) int { return n }
	// Seeded duplicates 1, 1, 2, then an upsert of 1: the first 1 is
	// replaced in place and the later 1 dropped.
	s := newSession(t)
	require.NoError(t, session.Register(s, session.UpsertBy(id)))
	require.NoError(t, session.Seed(s, 1, 1, 2))
	require.NoError(t, s.Dispatch(ctx, 1))
	assert.Equal(t, []int{1, 2}, session.Get[int](s).Values())

	r := session.UpsertBy(id)
	out := session.Slice[int]{}
	for _, v := range []int{1, 1, 2} {
		var err error
		out, err = r(session.ReducerContext{}, out, v)
		require.NoError(t, err)
	}
	assert.Equal(t, []int{1, 2}, out.Values())
}

func TestReadSugar(t *testing.T) {
	s := newSession(t)
	_, ok := session.Latest[Note](s)
	assert.False(t, ok)
	require.NoError(t, s.Dispatch(ctx, Counter{1}, Counter{2}, Counter{3}, Counter{4}))
	assert.Equal(t, 4, session.Len[Counter](s))
	latest, ok := session.Latest[Counter](s)
	require.True(t, ok)
	assert.Equal(t, Counter{4}, latest)
	var even []Counter
	for c := range session.Where(s, func(c Counter) bool { return c.N%2 == 0 }) {
		even = append(even, c)
	}
	assert.Equal(t, []Counter{{2}, {4}}, even)
	var first []Counter
	for c := range session.All[Counter](s) {
		first = append(first, c)
		break
	}
	assert.Equal(t, []Counter{{1}}, first)
	sl := session.Get[Counter](s)
	assert.Equal(t, Counter{3}, sl.At(2))
	var back []int
	for i, c := range sl.Backward() {
		back = append(back, i, c.N)
	}
	assert.Equal(t, []int{3, 4, 2, 3, 1, 2, 0, 1}, back)
}

func TestRecordKeepsEventsBesidesTheirReducers(t *testing.T) {
	s := newSession(t)
	require.NoError(t, session.Register(s, sumTally))
	child, err := s.Fork()
	require.NoError(t, err)
	defer child.Close()
	require.NoError(t, session.Record[Added](child))
	require.NoError(t, session.Record[Added](child), "recording twice is a no-op")
	require.NoError(t, child.Dispatch(ctx, Added{2}, Added{3}))
	assert.Equal(t, []Added{{2}, {3}}, session.Get[Added](child).Values(), "the events are kept")
	tally, _ := session.Latest[Tally](child)
	assert.Equal(t, Tally{5}, tally, "and still reduced")

	require.NoError(t, s.Dispatch(ctx, Added{1}))
	assert.Zero(t, session.Len[Added](s), "the parent does not record them")

	sibling, err := s.Fork()
	require.NoError(t, err)
	defer sibling.Close()
	require.NoError(t, session.Record[Added](sibling))
	require.NoError(t, sibling.Dispatch(ctx, Added{4}))
	assert.Equal(t, []Added{{4}}, session.Get[Added](sibling).Values())

	assert.ErrorContains(t, session.Record[any](s), "must be concrete")
	require.NoError(t, child.Close())
	assert.ErrorIs(t, session.Record[Note](child), session.ErrClosed)
}
