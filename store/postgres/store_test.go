package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/store"
)

// batchAt is a batch of n events at seq whose data name their seqs.
func batchAt(seq uint64, n int) store.Batch {
	b := store.Batch{Seq: seq, Time: time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC).Add(time.Duration(seq) * time.Second)}
	for i := range n {
		b.Events = append(b.Events, store.Event{Type: "test.Note", Data: json.RawMessage(fmt.Sprintf(`{"seq":%d}`, seq+uint64(i)))})
	}
	return b
}

// appendAll appends batches of the given sizes to id, from seq, to both
// stores.
func appendAll(t *testing.T, id string, seq uint64, sizes []int, stores ...store.Store) uint64 {
	t.Helper()
	for _, n := range sizes {
		b := batchAt(seq, n)
		for _, st := range stores {
			require.NoError(t, st.Append(context.Background(), id, b))
		}
		seq = b.Last() + 1
	}
	return seq
}

func read(st store.Store, id string, after, upTo uint64) ([]store.Batch, error) {
	var out []store.Batch
	for b, err := range st.Batches(context.Background(), id, after, upTo) {
		if err != nil {
			return out, err
		}
		out = append(out, b)
	}
	return out, nil
}

func seqs(bs []store.Batch) []uint64 {
	var out []uint64
	for _, b := range bs {
		out = append(out, b.Seq)
	}
	return out
}

// Reads that cross the pages of rows read as store.Memory's do, in a
// session and in a fork of it.
func TestBatchesAsMemory(t *testing.T) {
	st, mem := openTest(t), store.NewMemory()
	ctx := context.Background()
	sizes := make([]int, 300) // 300 batches: pages of 16, 32, 64, 128, then the rest
	for i := range sizes {
		sizes[i] = 1 + i%3
	}
	for _, s := range []store.Store{st, mem} {
		require.NoError(t, s.Create(ctx, store.Header{ID: "p"}))
	}
	last := appendAll(t, "p", 1, sizes, st, mem) - 1
	for _, s := range []store.Store{st, mem} {
		require.NoError(t, s.Create(ctx, store.Header{ID: "c", Parent: "p", ForkSeq: 100}))
	}
	forkLast := appendAll(t, "c", 101, sizes[:40], st, mem) - 1
	tests := []struct {
		id          string
		after, upTo uint64
	}{
		{"p", 0, 0}, {"p", 1, 0}, {"p", 15, 0}, {"p", 16, 40}, {"p", 31, 33}, {"p", 32, 200}, {"p", 100, 0},
		{"p", 0, 16}, {"p", 0, 17}, {"p", 0, last - 1}, {"p", last - 1, 0}, {"p", last, 0}, {"p", last + 5, 0},
		{"p", 0, last + 5}, {"p", 400, 401}, {"p", 401, 401}, {"p", math.MaxInt64, 0}, {"p", math.MaxUint64, 0},
		{"p", 0, math.MaxUint64},
		{"c", 0, 0}, {"c", 50, 0}, {"c", 99, 102}, {"c", 100, 0}, {"c", 101, 0}, {"c", 0, 100}, {"c", 0, 101},
		{"c", 0, 103}, {"c", forkLast - 1, 0},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s after %d up to %d", tt.id, tt.after, tt.upTo), func(t *testing.T) {
			want, err := read(mem, tt.id, tt.after, tt.upTo)
			require.NoError(t, err)
			got, err := read(st, tt.id, tt.after, tt.upTo)
			require.NoError(t, err)
			require.Equal(t, seqs(want), seqs(got))
			for i := range want {
				assert.True(t, want[i].Time.Equal(got[i].Time))
				assert.Equal(t, want[i].Events, got[i].Events)
			}
		})
	}
}

// A reader that stops early, many times over, leaves the store usable:
// its rows were drained and its connection went back to the pool.
func TestBatchesStopEarly(t *testing.T) {
	st := openTest(t)
	ctx := context.Background()
	require.NoError(t, st.Create(ctx, store.Header{ID: "s"}))
	appendAll(t, "s", 1, make1s(100), st)
	for range 3 * int(st.pool.Config().MaxConns) {
		for range st.Batches(ctx, "s", 0, 0) {
			break
		}
	}
	got, err := read(st, "s", 0, 0)
	require.NoError(t, err)
	assert.Len(t, got, 100)
}

func make1s(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = 1
	}
	return s
}

// What the rows of a log hold is checked: a row missing or damaged is an
// error naming the session and the seq, never a shorter history.
func TestDamagedLogs(t *testing.T) {
	tests := []struct {
		name   string
		damage string // SQL; $1 is the session's key
		at     uint64 // the seq of the damage: no batch from it on is read
		err    string
	}{
		{"a batch gone from the middle", `DELETE FROM S.batches WHERE session = $1 AND seq = 4`, 4,
			"the log of session s holds no batch at seq 4 (the next starts at seq 5)"},
		{"the first batch gone", `DELETE FROM S.batches WHERE session = $1 AND seq = 1`, 1,
			"the log of session s holds no batch at seq 1 (the next starts at seq 3)"},
		{"the last batch gone", `DELETE FROM S.batches WHERE session = $1 AND seq = 7`, 7,
			"session s ends at seq 8, and its log holds no batch at seq 7"},
		{"every batch gone", `DELETE FROM S.batches WHERE session = $1`, 1,
			"session s ends at seq 8, and its log holds no batch at seq 1"},
		{"a batch that ends before it starts", `UPDATE S.batches SET last = 2 WHERE session = $1 AND seq = 4`, 4,
			"the batch at seq 4 of session s is damaged: it ends at seq 2, before it starts"},
		{"a batch longer than its seqs", `UPDATE S.batches SET last = 5 WHERE session = $1 AND seq = 4`, 4,
			"the batch at seq 4 of session s is damaged: it holds 1 events, and its seqs span 2"},
		{"a row over the bound", `UPDATE S.batches SET events = convert_to(repeat('x', 64 << 20) || repeat('y', 64), 'UTF8') WHERE session = $1 AND seq = 5`, 5,
			"the batch at seq 5 of session s is damaged: its events are 67108928 bytes, over the store's bound"},
		{"a flipped byte", `UPDATE S.batches SET events = overlay(events placing '\x00'::bytea from octet_length(events)) WHERE session = $1 AND seq = 6`, 6,
			"the batch at seq 6 of session s is damaged: its checksum"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := openTest(t)
			ctx := context.Background()
			require.NoError(t, st.Create(ctx, store.Header{ID: "s"}))
			appendAll(t, "s", 1, []int{2, 1, 1, 1, 1, 2}, st) // 1-2, 3, 4, 5, 6, 7-8
			var key int64
			require.NoError(t, st.pool.QueryRow(ctx, st.q(`SELECT key FROM S.sessions WHERE id = 's'`)).Scan(&key))
			exec(t, st, tt.damage, key)
			got, err := read(st, "s", 0, 0)
			require.ErrorContains(t, err, tt.err)
			for _, b := range got {
				assert.Less(t, b.Last(), tt.at, "a batch from the damage on was read")
			}
		})
	}
}

func TestDamagedHeadersAndCheckpoints(t *testing.T) {
	st := openTest(t)
	ctx := context.Background()
	require.NoError(t, st.Create(ctx, store.Header{ID: "s", Tags: map[string]string{"user": "ada"}}))
	appendAll(t, "s", 1, []int{2, 2}, st)
	require.NoError(t, st.PutCheckpoint(ctx, "s", store.Checkpoint{Seq: 2, State: json.RawMessage(`{"at":2}`)}))
	require.NoError(t, st.PutCheckpoint(ctx, "s", store.Checkpoint{Seq: 4, State: json.RawMessage(`{"at":4}`)}))

	exec(t, st, `UPDATE S.checkpoints SET state = 'garbage'::bytea WHERE seq = 4`)
	_, _, err := st.Checkpoint(ctx, "s", 0)
	assert.ErrorContains(t, err, "the checkpoint at seq 4 of session s is damaged")
	_, ok, err := st.Checkpoint(ctx, "s", 3)
	require.NoError(t, err, "the damaged checkpoint is not read up to seq 3")
	assert.False(t, ok, "the checkpoint at seq 2 went when the one at seq 4 came")

	exec(t, st, `UPDATE S.sessions SET tags = '{"user": 7}' WHERE id = 's'`)
	_, err = st.Header(ctx, "s")
	assert.ErrorContains(t, err, "the tags of session s are damaged")
	_, err = st.List(ctx, store.Query{})
	assert.ErrorContains(t, err, "the tags of session s are damaged")
}

func TestBounds(t *testing.T) {
	st := openTest(t)
	ctx := context.Background()
	require.NoError(t, st.Create(ctx, store.Header{ID: "s"}))
	huge := store.Batch{Seq: 1, Events: []store.Event{{Type: "t", Data: make(json.RawMessage, maxBatchBytes)}}}
	assert.ErrorContains(t, st.Append(ctx, "s", huge), "the batch at seq 1 of session s is 67108871 bytes encoded, over the store's bound")
	assert.ErrorContains(t, st.Append(ctx, "s", batchAt(math.MaxInt64+1, 1)), "past the largest the store holds")
	assert.ErrorContains(t, st.Append(ctx, "s", batchAt(math.MaxInt64, 2)), "past the largest the store holds")
	assert.ErrorContains(t, st.Append(ctx, "s", batchAt(math.MaxUint64, 2)), "runs past the largest seq")
	assert.ErrorContains(t, st.Create(ctx, store.Header{ID: "f", Parent: "s", ForkSeq: math.MaxUint64}), "past the largest the store holds")
	assert.ErrorContains(t, st.PutCheckpoint(ctx, "s", store.Checkpoint{Seq: math.MaxUint64}), "no batch of session s ends at seq")
	got, err := read(st, "s", 0, 0)
	require.NoError(t, err)
	assert.Empty(t, got, "nothing of the refused batches was written")
}

// Writers in different processes (here, stores of their own) on one
// session: exactly one appends at a seq, the others get ErrConflict.
func TestWritersAcrossStores(t *testing.T) {
	first := openTest(t)
	ctx := context.Background()
	const writers = 4
	stores := []store.Store{first}
	for range writers - 1 {
		st, err := Open(ctx, withSchema(serverDSN(t), first.schema))
		require.NoError(t, err)
		t.Cleanup(func() { require.NoError(t, st.Close()) })
		stores = append(stores, st)
	}
	require.NoError(t, first.Create(ctx, store.Header{ID: "s"}))
	for seq := uint64(1); seq <= 20; seq++ {
		var wg sync.WaitGroup
		errs := make([]error, writers)
		for i, st := range stores {
			wg.Go(func() {
				b := batchAt(seq, 1)
				b.Events[0].Data = json.RawMessage(fmt.Sprintf(`{"writer":%d}`, i))
				errs[i] = st.Append(ctx, "s", b)
			})
		}
		wg.Wait()
		won := 0
		for _, err := range errs {
			if err == nil {
				won++
			} else {
				require.ErrorIs(t, err, store.ErrConflict)
			}
		}
		require.Equal(t, 1, won, "writers that appended at seq %d", seq)
	}
	for _, st := range stores {
		got, err := read(st, "s", 0, 0)
		require.NoError(t, err)
		assert.Len(t, got, 20)
	}
}

// A checkpoint being written holds no lock that a writer waits for, nor
// does a writer's transaction stop a reader.
func TestNoWaits(t *testing.T) {
	st := openTest(t)
	// Bounded so that a wait fails the test instead of hanging it; no
	// measure of speed.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	require.NoError(t, st.Create(ctx, store.Header{ID: "s"}))
	appendAll(t, "s", 1, []int{2}, st)

	tx, err := st.pool.Begin(ctx)
	require.NoError(t, err)
	defer tx.Rollback(ctx) //nolint:errcheck
	_, err = tx.Exec(ctx, st.q(`INSERT INTO S.checkpoints (session, seq, state) SELECT key, 2, $1 FROM S.sessions WHERE id = 's'`), encodeState([]byte(`{}`)))
	require.NoError(t, err)
	require.NoError(t, st.Append(ctx, "s", batchAt(3, 1)), "an append while a checkpoint is being written")

	_, err = tx.Exec(ctx, st.q(`UPDATE S.sessions SET seq = seq WHERE id = 's'`))
	require.NoError(t, err)
	got, err := read(st, "s", 0, 0)
	require.NoError(t, err, "a read while a writer holds the session's row")
	assert.Len(t, got, 2)
	_, err = st.Header(ctx, "s")
	require.NoError(t, err)
}

func TestCanceled(t *testing.T) {
	st := openTest(t)
	ctx := context.Background()
	require.NoError(t, st.Create(ctx, store.Header{ID: "s"}))
	appendAll(t, "s", 1, make1s(40), st)
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	assert.ErrorIs(t, st.Append(canceled, "s", batchAt(41, 1)), context.Canceled)
	var err error
	for _, err = range st.Batches(canceled, "s", 0, 0) {
		if err != nil {
			break
		}
	}
	assert.ErrorIs(t, err, context.Canceled)

	// Canceled while it reads: the read stops with the context's error.
	reading, stop := context.WithCancel(ctx)
	defer stop()
	n := 0
	for _, err = range st.Batches(reading, "s", 0, 0) {
		if err != nil {
			break
		}
		if n++; n == 20 {
			stop()
		}
	}
	assert.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, 20, n)
}

func TestErrorsNameTheSession(t *testing.T) {
	st := openTest(t)
	ctx := context.Background()
	require.NoError(t, st.Create(ctx, store.Header{ID: "p"}))
	appendAll(t, "p", 1, []int{3}, st)
	require.NoError(t, st.Create(ctx, store.Header{ID: "c", Parent: "p", ForkSeq: 3}))
	tests := []struct {
		name string
		err  error
		is   error
		msg  string
	}{
		{"Create of a taken id", st.Create(ctx, store.Header{ID: "p"}), store.ErrExists, "p"},
		{"Create under an unknown parent", st.Create(ctx, store.Header{ID: "x", Parent: "nope"}), store.ErrNotFound, "nope, the parent of x"},
		{"Create past the parent's end", st.Create(ctx, store.Header{ID: "x", Parent: "p", ForkSeq: 4}), nil, "x forks p at seq 4, past its last event (3)"},
		{"Append out of turn", st.Append(ctx, "p", batchAt(5, 1)), store.ErrConflict, "session p ends at seq 3, and the batch starts at 5"},
		{"Append to an unknown id", st.Append(ctx, "nope", batchAt(1, 1)), store.ErrNotFound, "nope"},
		{"Delete of a parent", st.Delete(ctx, "p"), store.ErrHasChildren, "(p has c)"},
		{"Delete of an unknown id", st.Delete(ctx, "nope"), store.ErrNotFound, "nope"},
		{"PutCheckpoint inside a batch", st.PutCheckpoint(ctx, "p", store.Checkpoint{Seq: 2}), nil, "no batch of session p ends at seq 2"},
		{"PutCheckpoint of an unknown id", st.PutCheckpoint(ctx, "nope", store.Checkpoint{Seq: 2}), store.ErrNotFound, "nope"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Error(t, tt.err)
			if tt.is != nil {
				assert.ErrorIs(t, tt.err, tt.is)
			}
			assert.Contains(t, tt.err.Error(), tt.msg)
		})
	}
	// A fork's own checkpoint at its fork seq is a boundary, as in Memory.
	require.NoError(t, st.PutCheckpoint(ctx, "c", store.Checkpoint{Seq: 3, State: json.RawMessage(`{}`)}))
	assert.False(t, errors.Is(st.Delete(ctx, "c"), store.ErrNotFound))
	assert.True(t, strings.HasPrefix(st.schema, "offshoot_test_"))
}

// Ids and tags the server's text cannot hold are refused clearly, or not
// found, never a server's error.
func TestTextTheServerCannotHold(t *testing.T) {
	st := openTest(t)
	ctx := context.Background()
	require.NoError(t, st.Create(ctx, store.Header{ID: "s"}))
	for _, bad := range []string{"nul\x00byte", "bad\xffutf8"} {
		t.Run(fmt.Sprintf("%q", bad), func(t *testing.T) {
			assert.ErrorContains(t, st.Create(ctx, store.Header{ID: bad}), "is not text the store holds")
			assert.ErrorContains(t, st.Create(ctx, store.Header{ID: "t", Tags: map[string]string{"k": bad}}), `tag "k" of session t is not text`)
			assert.ErrorIs(t, st.Create(ctx, store.Header{ID: "t", Parent: bad}), store.ErrNotFound)
			_, err := st.Header(ctx, bad)
			assert.ErrorIs(t, err, store.ErrNotFound)
			assert.ErrorIs(t, st.Append(ctx, bad, batchAt(1, 1)), store.ErrNotFound)
			_, err = read(st, bad, 0, 0)
			assert.ErrorIs(t, err, store.ErrNotFound)
			assert.ErrorIs(t, st.PutCheckpoint(ctx, bad, store.Checkpoint{}), store.ErrNotFound)
			_, _, err = st.Checkpoint(ctx, bad, 0)
			assert.ErrorIs(t, err, store.ErrNotFound)
			assert.ErrorIs(t, st.Delete(ctx, bad), store.ErrNotFound)
			for _, q := range []store.Query{{Parent: bad}, {Tags: map[string]string{"k": bad}}} {
				hs, err := st.List(ctx, q)
				assert.NoError(t, err)
				assert.Empty(t, hs)
			}
		})
	}
	// Any bytes as a type name, data or state come back as they went.
	odd := store.Batch{Seq: 1, Events: []store.Event{{Type: "t\x00\xff", Data: json.RawMessage("\x00\xff")}}}
	require.NoError(t, st.Append(ctx, "s", odd))
	got, err := read(st, "s", 0, 0)
	require.NoError(t, err)
	assert.Equal(t, odd.Events, got[0].Events)
	require.NoError(t, st.PutCheckpoint(ctx, "s", store.Checkpoint{Seq: 1, State: json.RawMessage("\x00\xff")}))
	c, _, err := st.Checkpoint(ctx, "s", 0)
	require.NoError(t, err)
	assert.Equal(t, "\x00\xff", string(c.State))
}
