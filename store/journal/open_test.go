package journal_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"reflect"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/offshoot-dev/offshoot/serde"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/sessiontest"
	"github.com/offshoot-dev/offshoot/store"
	"github.com/offshoot-dev/offshoot/store/journal"
)

var ctx = context.Background()

// A bank: deposits folded into a balance, the deposits kept, and an
// opening balance seeded when the reducers are installed.
type (
	Deposit struct{ Amount int }
	Balance struct{ Total int }
	Opened  struct{ By string }
)

func bank() session.Reducers {
	return session.Reducers{
		Key: "example.com/bank",
		Rules: []session.Rule{
			session.On(func(_ session.ReducerContext, sl session.Slice[Balance], d Deposit) (session.Slice[Balance], error) {
				if d.Amount <= 0 {
					return sl, fmt.Errorf("a deposit must be positive, not %d", d.Amount)
				}
				cur, _ := sl.Latest()
				return session.SliceOf(Balance{cur.Total + d.Amount}), nil
			}),
			session.Keep[Deposit](),
			session.Keep[Opened](),
		},
		Names: map[reflect.Type]string{reflect.TypeFor[Deposit](): "bank.Deposit", reflect.TypeFor[Balance](): "bank.Balance", reflect.TypeFor[Opened](): "bank.Opened"},
		Seed:  []any{Opened{By: "seed"}},
	}
}

// process is what a program keeps across a restart: nothing but the
// store. Each process has its own journal and registry.
type process struct {
	j   *journal.Journal
	reg *serde.Registry
}

func newProcess(t *testing.T, st store.Store, every int) process {
	t.Helper()
	p := process{j: journal.New(st, journal.Options{CheckpointEvery: every}), reg: serde.NewRegistry()}
	t.Cleanup(func() { require.NoError(t, p.j.Close()) })
	return p
}

func (p process) newSession(t *testing.T, id string) *session.Session {
	t.Helper()
	s, err := session.New(session.WithID(id), session.WithRegistry(p.reg), session.WithJournal(p.j), session.WithTags(map[string]string{"user": "ada"}))
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	require.NoError(t, s.Install(ctx, bank()))
	return s
}

func (p process) open(t *testing.T, id string) *session.Session {
	t.Helper()
	s, err := p.j.Open(ctx, id, p.reg, []session.Reducers{bank()})
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// A session opened in a new process has the stored state — the seeded
// record included, once — and goes on from its last seq.
func TestOpenGivesTheStoredSessionBack(t *testing.T) {
	defer goleak.VerifyNone(t)
	st := store.NewMemory()
	first := newProcess(t, st, -1)
	s := first.newSession(t, "chat-1")
	for i := 1; i <= 5; i++ {
		require.NoError(t, s.Dispatch(ctx, Deposit{i * 10}, Deposit{1}))
	}
	require.Error(t, s.Dispatch(ctx, Deposit{-1}), "a refused dispatch stores nothing")

	second := newProcess(t, st, -1)
	again := second.open(t, "chat-1")
	sessiontest.AssertParity(t, s.Snapshot(), again)
	assert.Equal(t, s.Snapshot().Seq(), again.Snapshot().Seq())
	assert.Equal(t, 1, session.Len[Opened](again), "the seed is in the log once")
	assert.Equal(t, map[string]string{"user": "ada"}, again.Tags())

	require.NoError(t, again.Dispatch(ctx, Deposit{100}))
	b, _ := session.Latest[Balance](again)
	assert.Equal(t, 255, b.Total)
	third := newProcess(t, st, -1).open(t, "chat-1")
	sessiontest.AssertParity(t, again.Snapshot(), third)
}

// failing is a store whose Append fails on demand.
type failing struct {
	store.Store
	fail atomic.Bool
}

func (f *failing) Append(ctx context.Context, id string, b store.Batch) error {
	if f.fail.Load() {
		return errors.New("disk full")
	}
	return f.Store.Append(ctx, id, b)
}

// Memory never runs ahead of the store: an append that fails fails the
// dispatch, and the session is as it was.
func TestAFailedAppendFailsTheDispatch(t *testing.T) {
	st := &failing{Store: store.NewMemory()}
	p := newProcess(t, st, -1)
	s := p.newSession(t, "s")
	require.NoError(t, s.Dispatch(ctx, Deposit{5}))
	before := sessiontest.Capture(s)
	st.fail.Store(true)
	err := s.Dispatch(ctx, Deposit{7})
	require.ErrorContains(t, err, "disk full")
	sessiontest.AssertUnchanged(t, before, s)
	st.fail.Store(false)
	require.NoError(t, s.Dispatch(ctx, Deposit{7}), "the session goes on from where the store is")
	sessiontest.AssertParity(t, s.Snapshot(), newProcess(t, st, -1).open(t, "s"))
}

// Two writers on one stored session: the second one's dispatch fails with
// ErrConflict, and nothing of it is written.
func TestTwoWritersConflict(t *testing.T) {
	st := store.NewMemory()
	s := newProcess(t, st, -1).newSession(t, "s")
	require.NoError(t, s.Dispatch(ctx, Deposit{5}))
	a := newProcess(t, st, -1).open(t, "s")
	b := newProcess(t, st, -1).open(t, "s")
	require.NoError(t, a.Dispatch(ctx, Deposit{1}))
	before := sessiontest.Capture(b)
	err := b.Dispatch(ctx, Deposit{2})
	require.ErrorIs(t, err, store.ErrConflict)
	sessiontest.AssertUnchanged(t, before, b)
	sessiontest.AssertParity(t, a.Snapshot(), newProcess(t, st, -1).open(t, "s")) // the first writer's state is the stored one
}

// counting counts the batches a store yields.
type counting struct {
	store.Store
	read atomic.Int64
}

func (c *counting) Batches(ctx context.Context, id string, after, upTo uint64) iter.Seq2[store.Batch, error] {
	return func(yield func(store.Batch, error) bool) {
		for b, err := range c.Store.Batches(ctx, id, after, upTo) {
			c.read.Add(1)
			if !yield(b, err) {
				return
			}
		}
	}
}

// Checkpoints bound what opening replays.
func TestCheckpointsBoundTheReplay(t *testing.T) {
	defer goleak.VerifyNone(t)
	st := &counting{Store: store.NewMemory()}
	p := journal.New(st, journal.Options{CheckpointEvery: 10})
	reg := serde.NewRegistry()
	s, err := session.New(session.WithID("long"), session.WithRegistry(reg), session.WithJournal(p))
	require.NoError(t, err)
	defer s.Close()
	require.NoError(t, s.Install(ctx, bank()))
	for i := range 95 {
		require.NoError(t, s.Dispatch(ctx, Deposit{i + 1}))
	}
	require.NoError(t, p.Close(), "waits for the checkpoint in flight")

	q := newProcess(t, st, -1)
	st.read.Store(0)
	again := q.open(t, "long")
	sessiontest.AssertParity(t, s.Snapshot(), again)
	assert.LessOrEqual(t, st.read.Load(), int64(20), "at most about CheckpointEvery batches replayed, of 96")
}

// A fork stores only its own batches, and opens with its parent's state
// up to the fork, then its own.
func TestForksStoreOnlyTheirOwnBatches(t *testing.T) {
	st := store.NewMemory()
	p := newProcess(t, st, -1)
	parent := p.newSession(t, "parent")
	for i := range 50 {
		require.NoError(t, parent.Dispatch(ctx, Deposit{i + 1}))
	}
	child, err := parent.Fork(session.WithID("child"))
	require.NoError(t, err)
	defer child.Close()
	require.NoError(t, child.Dispatch(ctx, Deposit{1000}))
	require.NoError(t, parent.Dispatch(ctx, Deposit{1}), "the parent goes on apart")

	h, err := st.Header(ctx, "child")
	require.NoError(t, err)
	assert.Equal(t, "parent", h.Parent)
	assert.Equal(t, parent.Snapshot().Seq()-1, h.ForkSeq)
	n := 0
	for _, err := range st.Batches(ctx, "child", 0, 0) {
		require.NoError(t, err)
		n++
	}
	assert.Equal(t, 1, n, "one batch of its own")

	q := newProcess(t, st, -1)
	sessiontest.AssertParity(t, child.Snapshot(), q.open(t, "child"))
	sessiontest.AssertParity(t, parent.Snapshot(), q.open(t, "parent"))
}

// Time travel: a fork of a stored session at a past seq is one header;
// opened, it is the session as it was then, and goes on apart.
func TestForkAtASeq(t *testing.T) {
	st := store.NewMemory()
	p := newProcess(t, st, -1)
	s := p.newSession(t, "s")
	var then session.Snapshot
	for i := range 10 {
		require.NoError(t, s.Dispatch(ctx, Deposit{i + 1}))
		if i == 3 {
			then = s.Snapshot()
		}
	}
	require.NoError(t, store.Fork(ctx, st, "s", then.Seq(), "s-at-4"))
	q := newProcess(t, st, -1)
	past := q.open(t, "s-at-4")
	sessiontest.AssertParity(t, then, past)
	require.NoError(t, past.Dispatch(ctx, Deposit{500}))
	sessiontest.AssertParity(t, s.Snapshot(), q.open(t, "s")) // the original is untouched

	require.ErrorContains(t, store.Fork(ctx, st, "s", 99, "x"), "ends at seq")
	require.ErrorIs(t, store.Fork(ctx, st, "missing", 1, "x"), store.ErrNotFound)
	require.ErrorIs(t, store.Fork(ctx, st, "s", 2, "s-at-4"), store.ErrExists)
}

// Writes that are not events cannot be journaled, so a journaled session
// refuses them.
func TestAJournaledSessionTakesOnlyEvents(t *testing.T) {
	s := newProcess(t, store.NewMemory(), -1).newSession(t, "s")
	assert.ErrorContains(t, session.Seed(s, Balance{1}), "journaled")
	assert.ErrorContains(t, session.Clear[Balance](s, nil), "journaled")
	assert.ErrorContains(t, s.Reset(), "journaled")
}

// An event stored under its type's default name — written before the
// program named the type — reads back in a process that names it.
func TestATypeNamedLaterStillReads(t *testing.T) {
	st := store.NewMemory()
	first := newProcess(t, st, -1)
	s, err := session.New(session.WithID("s"), session.WithRegistry(first.reg), session.WithJournal(first.j))
	require.NoError(t, err)
	defer s.Close()
	require.NoError(t, s.Dispatch(ctx, Deposit{5}), "no reducers yet: the Deposit goes under its default name")
	var stored []string
	for b, err := range st.Batches(ctx, "s", 0, 0) {
		require.NoError(t, err)
		stored = append(stored, b.Events[0].Type)
	}
	require.Equal(t, []string{serde.DefaultName(reflect.TypeFor[Deposit]())}, stored)

	again := newProcess(t, st, -1).open(t, "s") // its registry names Deposit "bank.Deposit"
	b, _ := session.Latest[Balance](again)
	assert.Equal(t, 5, b.Total)
}

// An open that stops in the middle of a long log — a batch it cannot
// decode — stops reading it too: no reader is left behind.
func TestAnOpenThatFailsLeavesNoReader(t *testing.T) {
	defer goleak.VerifyNone(t)
	st := store.NewMemory()
	require.NoError(t, st.Create(ctx, store.Header{ID: "long"}))
	for i := uint64(1); i <= 500; i++ {
		typ := "offshoot.test.Deposit"
		if i == 3 {
			typ = "offshoot.test.Unknown"
		}
		require.NoError(t, st.Append(ctx, "long", store.Batch{Seq: i, Events: []store.Event{{Type: typ, Data: json.RawMessage(`{"amount":1}`)}}}))
	}
	j := journal.New(st, journal.Options{})
	defer j.Close()
	reg := serde.NewRegistry()
	require.NoError(t, serde.Register[Deposit](reg, "offshoot.test.Deposit"))
	_, err := j.Open(ctx, "long", reg, nil)
	require.ErrorContains(t, err, `is a "offshoot.test.Unknown", a type this program does not know`)
}

// A journal remembers a bounded number of sessions: one that forks a
// child per request does not grow forever, and a session it forgot still
// commits.
func TestAJournalForgetsSessionsBeyondItsBound(t *testing.T) {
	st := store.NewMemory()
	j := journal.New(st, journal.Options{CheckpointEvery: -1})
	defer j.Close()
	first, err := session.New(session.WithID("first"), session.WithJournal(j))
	require.NoError(t, err)
	require.NoError(t, first.Install(ctx, bank()))
	for i := range journal.MaxRemembered + 10 {
		s, err := session.New(session.WithID(fmt.Sprintf("s%d", i)), session.WithJournal(j))
		require.NoError(t, err)
		require.NoError(t, s.Install(ctx, bank()))
		require.NoError(t, s.Close())
	}
	assert.LessOrEqual(t, journal.Remembered(j), journal.MaxRemembered)
	require.NoError(t, first.Dispatch(ctx, Deposit{5}))
	h, err := st.Header(ctx, "first")
	require.NoError(t, err)
	assert.Equal(t, first.Snapshot().Seq(), h.Seq)
}

// A stored header that forks its parent inside a batch (another program's
// write, or a damaged file: store.Fork refuses it) is an error on open,
// never a session silently short of the events before the fork.
func TestAForkInsideABatchDoesNotOpen(t *testing.T) {
	st := store.NewMemory()
	p := newProcess(t, st, -1)
	s := p.newSession(t, "s")
	require.NoError(t, s.Dispatch(ctx, Deposit{1}, Deposit{2}))
	inside := s.Snapshot().Seq() - 1
	require.NoError(t, s.Dispatch(ctx, Deposit{3}))
	require.NoError(t, st.Create(ctx, store.Header{ID: "inside", Parent: "s", ForkSeq: inside}))
	require.ErrorContains(t, store.Fork(ctx, st, "s", inside, "x"), "inside a batch")

	_, err := newProcess(t, st, -1).j.Open(ctx, "inside", serde.NewRegistry(), []session.Reducers{bank()})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "session inside is damaged")
	assert.Contains(t, err.Error(), fmt.Sprintf("its header says %d", inside))
}
