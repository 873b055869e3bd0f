package journal_test

import (
	"context"
	"fmt"
	"iter"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/serde"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/store"
	"github.com/offshoot-dev/offshoot/store/journal"
)

// lying is a store whose headers are what a damaged or hostile file holds
// (a store.Memory refuses to make them): the sessions of headers exist
// with those headers, no batches and no checkpoints.
type lying struct {
	store.Store
	headers map[string]store.Header
}

func (l *lying) Header(ctx context.Context, id string) (store.Header, error) {
	if h, ok := l.headers[id]; ok {
		return h, nil
	}
	return l.Store.Header(ctx, id)
}

func (l *lying) Checkpoint(ctx context.Context, id string, upTo uint64) (store.Checkpoint, bool, error) {
	if _, ok := l.headers[id]; ok {
		return store.Checkpoint{}, false, nil
	}
	return l.Store.Checkpoint(ctx, id, upTo)
}

func (l *lying) Batches(ctx context.Context, id string, after, upTo uint64) iter.Seq2[store.Batch, error] {
	if _, ok := l.headers[id]; ok {
		return func(func(store.Batch, error) bool) {}
	}
	return l.Store.Batches(ctx, id, after, upTo)
}

func (l *lying) List(ctx context.Context, q store.Query) ([]store.Header, error) {
	var out []store.Header
	for _, h := range l.headers {
		if q.Parent == "" || h.Parent == q.Parent {
			out = append(out, h)
		}
	}
	if q.Parent != "" && len(out) > 0 {
		return out, nil
	}
	return l.Store.List(ctx, q)
}

func (l *lying) Delete(ctx context.Context, id string) error {
	if _, ok := l.headers[id]; ok {
		for _, h := range l.headers {
			if h.Parent == id {
				return fmt.Errorf("%w (%s has %s)", store.ErrHasChildren, id, h.ID)
			}
		}
		delete(l.headers, id)
		return nil
	}
	return l.Store.Delete(ctx, id)
}

func lies(hs ...store.Header) *lying {
	l := &lying{Store: store.NewMemory(), headers: map[string]store.Header{}}
	for _, h := range hs {
		l.headers[h.ID] = h
	}
	return l
}

// watchdog fails the test, rather than let it hang, when fn does not
// return within a bound no sound run comes near.
func watchdog(t *testing.T, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("still running after a minute: it loops")
	}
}

// A store whose parent chain loops — a session forked from itself, two
// forked from each other, a fork before its parent's start — is damaged:
// opening a session there, or deleting its tree, says so, and neither
// recurses for ever.
func TestADamagedParentChainIsAnError(t *testing.T) {
	tests := []struct {
		name    string
		headers []store.Header
		open    string
		want    string
	}{
		{
			name:    "its own parent",
			headers: []store.Header{{ID: "self", Parent: "self", ForkSeq: 4, Seq: 4}},
			open:    "self",
			want:    "session self is damaged: the sessions it was forked from loop back to self",
		},
		{
			name: "two forked from each other",
			headers: []store.Header{
				{ID: "a", Parent: "b", ForkSeq: 4, Seq: 4},
				{ID: "b", Parent: "a", ForkSeq: 4, Seq: 4},
			},
			open: "a",
			want: "session a is damaged: the sessions it was forked from loop back to a",
		},
		{
			name: "a longer loop",
			headers: []store.Header{
				{ID: "a", Parent: "b", ForkSeq: 4, Seq: 4},
				{ID: "b", Parent: "c", ForkSeq: 4, Seq: 4},
				{ID: "c", Parent: "b", ForkSeq: 4, Seq: 4},
			},
			open: "a",
			want: "session a is damaged: the sessions it was forked from loop back to b",
		},
		{
			name: "forked before its parent starts",
			headers: []store.Header{
				{ID: "root", Seq: 9},
				{ID: "late", Parent: "root", ForkSeq: 6, Seq: 6},
				{ID: "early", Parent: "late", ForkSeq: 3, Seq: 3},
			},
			open: "early",
			want: "session early is damaged: it was forked from late at seq 3, before late starts (at seq 6, where it was forked from root)",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := lies(tt.headers...)
			j := journal.New(st, journal.Options{CheckpointEvery: -1})
			defer j.Close()
			var err error
			watchdog(t, func() { _, err = j.Open(ctx, tt.open, serde.NewRegistry(), []session.Reducers{bank()}) })
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

// Deleting the tree of a session whose forks loop back to it is an
// error that says so, and deletes nothing.
func TestDeleteTreeOfALoopIsAnError(t *testing.T) {
	tests := []struct {
		name    string
		headers []store.Header
		id      string
	}{
		{"its own parent", []store.Header{{ID: "self", Parent: "self", ForkSeq: 4, Seq: 4}}, "self"},
		{"two forked from each other", []store.Header{
			{ID: "a", Parent: "b", ForkSeq: 4, Seq: 4},
			{ID: "b", Parent: "a", ForkSeq: 4, Seq: 4},
		}, "a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := lies(tt.headers...)
			var err error
			watchdog(t, func() { err = store.DeleteTree(ctx, st, tt.id) })
			require.Error(t, err)
			assert.Contains(t, err.Error(), "the store is damaged")
			assert.Contains(t, err.Error(), "loop back to")
			assert.Len(t, st.headers, len(tt.headers), "nothing was deleted")
		})
	}
}

// A very long chain of forks — a fork of a fork of … — opens and is
// deleted without a recursion as deep as the chain.
func TestALongChainOfForks(t *testing.T) {
	const depth = 3000
	st := store.NewMemory()
	p := newProcess(t, st, -1)
	s := p.newSession(t, "root")
	require.NoError(t, s.Dispatch(ctx, Deposit{7}))
	at := s.Snapshot().Seq()
	parent := "root"
	for i := range depth {
		id := fmt.Sprintf("f%d", i)
		require.NoError(t, store.Fork(ctx, st, parent, at, id))
		parent = id
	}
	again := newProcess(t, st, -1).open(t, parent)
	b, _ := session.Latest[Balance](again)
	assert.Equal(t, 7, b.Total)
	require.NoError(t, again.Close())
	require.NoError(t, store.DeleteTree(ctx, st, "root"))
	hs, err := st.List(ctx, store.Query{})
	require.NoError(t, err)
	assert.Empty(t, hs)
}
