package session_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/session"
)

// blockingJournal holds every commit until release is closed (or the
// commit's context ends), telling entered first; it records what it was
// given.
type blockingJournal struct {
	entered chan session.Commit
	release chan struct{}
}

func newBlockingJournal() *blockingJournal {
	return &blockingJournal{entered: make(chan session.Commit, 16), release: make(chan struct{})}
}

func (j *blockingJournal) Commit(ctx context.Context, c session.Commit) error {
	j.entered <- c
	select {
	case <-j.release:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// A journal that blocks holds up no reader of the session, and a writer
// waiting behind it gives up when its context ends; once the journal
// returns, the write takes effect.
func TestBlockedJournalBlocksNoReaderAndNoCancelledWriter(t *testing.T) {
	watchdog, stop := context.WithTimeout(context.Background(), 2*time.Minute)
	defer stop()
	j := newBlockingJournal()
	s := newSession(t, session.WithID("j"), session.WithJournal(j))
	require.NoError(t, session.Register(s, session.AppendAll[Note]))

	done := make(chan error, 1)
	go func() { done <- s.Dispatch(watchdog, Note{Text: "one"}) }()
	var c session.Commit
	select {
	case c = <-j.entered:
	case <-watchdog.Done():
		t.Fatal("the journal was never called")
	}
	// What the journal got: plain values naming the session and the batch.
	assert.Equal(t, "j", c.State.SessionID())
	require.Len(t, c.Batch, 1)
	assert.Equal(t, uint64(1), c.Batch[0].Seq)
	assert.Equal(t, uint64(1), c.State.Seq(), "State is the state once the batch is committed")
	assert.Equal(t, 1, session.SliceOfSnapshot[Note](c.State).Len())
	assert.Same(t, s.Registry(), c.Registry)

	reads := []struct {
		name string
		read func() any
	}{
		{"Snapshot", func() any { return s.Snapshot().Seq() }},
		{"Get", func() any { return session.Len[Note](s) }},
		{"Revision", func() any { return s.Revision() }},
		{"ChildIDs", func() any { return len(s.ChildIDs()) }},
	}
	for _, r := range reads {
		t.Run(r.name, func(t *testing.T) {
			got := make(chan any, 1)
			go func() { got <- r.read() }()
			select {
			case v := <-got:
				assert.Contains(t, []any{uint64(0), 0}, v, "a reader sees the state before the pending batch")
			case <-watchdog.Done():
				t.Fatalf("%s waited for the journal", r.name)
			}
		})
	}

	t.Run("a waiting writer whose context ends", func(t *testing.T) {
		wctx, cancel := context.WithCancel(watchdog)
		second := make(chan error, 1)
		go func() { second <- s.Dispatch(wctx, Note{Text: "two"}) }()
		cancel()
		select {
		case err := <-second:
			require.ErrorIs(t, err, context.Canceled)
		case <-watchdog.Done():
			t.Fatal("a writer waiting for the session's lock ignored its context")
		}
	})

	close(j.release)
	require.NoError(t, <-done)
	assert.Equal(t, 1, session.Len[Note](s))
	assert.Equal(t, uint64(1), s.Snapshot().Seq())
}

// A commit holds the session's lock a bounded time: the journal's context
// ends after the commit timeout, the write fails naming the batch, and the
// session stays as it was.
func TestJournalCommitHasADeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		j := newBlockingJournal() // never released: it returns when its context ends
		s := newSession(t, session.WithJournal(j))
		require.NoError(t, session.Register(s, session.AppendAll[Note]))
		start := time.Now()
		err := s.Dispatch(context.Background(), Note{Text: "one"})
		var je *session.JournalError
		require.ErrorAs(t, err, &je)
		assert.True(t, errors.Is(err, context.DeadlineExceeded), "got %v", err)
		assert.Equal(t, session.CommitTimeout, time.Since(start))
		assert.Equal(t, 0, session.Len[Note](s), "memory never runs ahead of the journal")
		<-j.entered
	})
}
