package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/offshoot-dev/offshoot/store"
	"github.com/offshoot-dev/offshoot/store/storetest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// openTemp opens a store in a new file of t's temporary directory, closed
// when t ends.
func openTemp(t *testing.T) *Store {
	t.Helper()
	st, err := Open(context.Background(), filepath.Join(t.TempDir(), "sessions.db"))
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	return st
}

// rawDB opens an ordinary connection to the store's file, as another
// program (or a hand) would; it may break the tables' constraints.
func rawDB(t *testing.T, st *Store) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", dsnOf(st.path, "_pragma=ignore_check_constraints(1)", "_fk=0"))
	require.NoError(t, err)
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	return db
}

// note is a batch at seq of n events.
func note(seq uint64, n int) store.Batch {
	b := store.Batch{Seq: seq, Time: time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)}
	for i := range n {
		b.Events = append(b.Events, store.Event{Type: "test.Note", Data: json.RawMessage(fmt.Sprintf(`{"seq":%d}`, seq+uint64(i)))})
	}
	return b
}

// read collects a session's batches up to the first error.
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

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store {
		st, err := Open(context.Background(), filepath.Join(t.TempDir(), "sessions.db"))
		require.NoError(t, err)
		return st // the suite closes it
	}, storetest.Options{
		Corrupt: func(t *testing.T, st store.Store, id string, seq uint64) {
			_, err := rawDB(t, st.(*Store)).Exec(
				`UPDATE batches SET events = x'0102ffff' WHERE seq = ? AND sid = (SELECT sid FROM sessions WHERE id = ?)`, seq, id)
			require.NoError(t, err)
		},
	})
}

// TestReopen reads what another Store of the same file wrote, with none of
// its cache: the type names come from the file.
func TestReopen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "sessions.db")
	st, err := Open(context.Background(), path)
	require.NoError(t, err)
	require.NoError(t, st.Create(ctx, store.Header{ID: "s", Tags: map[string]string{"user": "ada"}}))
	want := []store.Batch{note(1, 2), {Seq: 3, Events: []store.Event{{Type: "test.Other", Data: json.RawMessage(`[]`)}, {Type: "test.Note", Data: nil}}}}
	for _, b := range want {
		require.NoError(t, st.Append(ctx, "s", b))
	}
	require.NoError(t, st.PutCheckpoint(ctx, "s", store.Checkpoint{Seq: 2, State: json.RawMessage(`{"at":2}`)}))
	require.NoError(t, st.Close())

	st, err = Open(context.Background(), path)
	require.NoError(t, err)
	defer st.Close()
	h, err := st.Header(ctx, "s")
	require.NoError(t, err)
	assert.Equal(t, uint64(4), h.Seq)
	assert.Equal(t, map[string]string{"user": "ada"}, h.Tags)
	got, err := read(st, "s", 0, 0)
	require.NoError(t, err)
	require.Len(t, got, 2)
	for i := range want {
		assert.Equal(t, want[i].Seq, got[i].Seq)
		assert.True(t, want[i].Time.Equal(got[i].Time), "time of batch %d: %v, want %v", i, got[i].Time, want[i].Time)
		require.Len(t, got[i].Events, len(want[i].Events))
		for j, e := range want[i].Events {
			assert.Equal(t, e.Type, got[i].Events[j].Type)
			assert.Equal(t, string(e.Data), string(got[i].Events[j].Data))
		}
	}
	c, ok, err := st.Checkpoint(ctx, "s", 0)
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, `{"at":2}`, string(c.State))
	require.NoError(t, st.Check(ctx))
}

// TestDamagedRows damages the stored rows in the ways a disk or a hand
// could: every read of them is an error naming the session and the seq,
// after the batches before the damage and never past it.
func TestDamagedRows(t *testing.T) {
	tests := []struct {
		name   string
		sql    string // run on the file, ? being session hurt's sid
		max    int    // maxBatchBytes while reading, when not 0
		before int    // batches read before the error
		want   string
	}{
		{"garbage events", `UPDATE batches SET events = x'00ff' WHERE sid = ? AND seq = 3`, 0, 1, "the batch at seq 3 of session hurt is damaged: the events are in an unknown format (0)"},
		{"truncated events", `UPDATE batches SET events = substr(events, 1, length(events) - 1) WHERE sid = ? AND seq = 3`, 0, 1, "the batch at seq 3 of session hurt is damaged: the length of event 1"},
		{"trailing bytes", `UPDATE batches SET events = events || x'00' WHERE sid = ? AND seq = 3`, 0, 1, "the batch at seq 3 of session hurt is damaged: 1 bytes follow the last event"},
		{"empty events", `UPDATE batches SET events = x'' WHERE sid = ? AND seq = 3`, 0, 1, "the batch at seq 3 of session hurt is damaged: the events are empty"},
		{"no events", `UPDATE batches SET events = x'0100' WHERE sid = ? AND seq = 3`, 0, 1, "the batch at seq 3 of session hurt is damaged: the batch has no events"},
		{"a huge event count", `UPDATE batches SET events = x'01ffffffff0f0100' WHERE sid = ? AND seq = 3`, 0, 1, "the batch at seq 3 of session hurt is damaged: the number of events: 4294967295, more than the 1"},
		{"an unknown type", `UPDATE batches SET events = x'0101630100' WHERE sid = ? AND seq = 3`, 0, 1, "the batch at seq 3 of session hurt is damaged: event 0: its type id 99 names no type"},
		{"type id zero", `UPDATE batches SET events = x'0101000100' WHERE sid = ? AND seq = 3`, 0, 1, "the batch at seq 3 of session hurt is damaged: event 0: its type id 0 is not one the store gives"},
		{"a last seq that does not match", `UPDATE batches SET last = 5 WHERE sid = ? AND seq = 3`, 0, 1, "the batch at seq 3 of session hurt is damaged: it holds 2 events, but its last seq is 5"},
		{"seqs backwards", `UPDATE batches SET seq = 5 WHERE sid = ? AND seq = 3`, 0, 1, "the batch at seq 5 of session hurt is damaged: its seqs run from 5 to 4"},
		{"a negative seq", `UPDATE batches SET seq = -1 WHERE sid = ? AND seq = 3`, 0, 1, "the batch at seq -1 of session hurt is damaged: its seqs run from -1 to 4"},
		{"a moved row", `UPDATE batches SET seq = 4 WHERE sid = ? AND seq = 3`, 0, 1, "the batches of session hurt are damaged: no row holds seq 3 to 3"},
		{"a lost first row", `DELETE FROM batches WHERE sid = ? AND seq = 1`, 0, 0, "the batches of session hurt are damaged: no row holds seq 1 to 2"},
		{"a lost middle row", `DELETE FROM batches WHERE sid = ? AND seq = 3`, 0, 1, "the batches of session hurt are damaged: no row holds seq 3 to 4"},
		{"a lost last row", `DELETE FROM batches WHERE sid = ? AND seq = 5`, 0, 2, "the batches of session hurt are damaged: no row holds seq 5 to 6"},
		{"an oversized row", `UPDATE batches SET events = events || zeroblob(100) WHERE sid = ? AND seq = 3`, 64, 1, "the batch at seq 3 of session hurt is damaged: it takes 124 bytes, more than the 64 a batch may"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			st := openTemp(t)
			require.NoError(t, st.Create(ctx, store.Header{ID: "hurt"}))
			for _, b := range []store.Batch{note(1, 2), note(3, 2), note(5, 2)} {
				require.NoError(t, st.Append(ctx, "hurt", b))
			}
			db := rawDB(t, st)
			_, err := db.Exec(tt.sql, 1)
			require.NoError(t, err)
			if tt.max != 0 {
				old := maxBatchBytes
				maxBatchBytes = tt.max
				t.Cleanup(func() { maxBatchBytes = old })
			}
			got, err := read(st, "hurt", 0, 0)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			assert.Len(t, got, tt.before)
		})
	}
}

// TestCheckpointStates: a checkpoint's state reads back byte for byte,
// an empty one included.
func TestCheckpointStates(t *testing.T) {
	ctx := context.Background()
	st := openTemp(t)
	require.NoError(t, st.Create(ctx, store.Header{ID: "s"}))
	for seq, state := range []json.RawMessage{nil, {}, json.RawMessage(`{"a":1}`), json.RawMessage(strings.Repeat("x", 1<<20))} {
		if seq > 0 {
			require.NoError(t, st.Append(ctx, "s", note(uint64(seq), 1)))
		}
		require.NoError(t, st.PutCheckpoint(ctx, "s", store.Checkpoint{Seq: uint64(seq), State: state}))
		c, ok, err := st.Checkpoint(ctx, "s", 0)
		require.NoError(t, err)
		require.True(t, ok)
		assert.Equal(t, uint64(seq), c.Seq)
		assert.Equal(t, string(state), string(c.State))
	}
}

func TestDamagedHeaderAndCheckpoint(t *testing.T) {
	ctx := context.Background()
	st := openTemp(t)
	require.NoError(t, st.Create(ctx, store.Header{ID: "hurt", Tags: map[string]string{"a": "b"}}))
	require.NoError(t, st.Append(ctx, "hurt", note(1, 1)))
	require.NoError(t, st.PutCheckpoint(ctx, "hurt", store.Checkpoint{Seq: 1, State: json.RawMessage(`{"big":"state"}`)}))
	db := rawDB(t, st)

	old := maxCheckpointBytes
	maxCheckpointBytes = 8
	_, _, err := st.Checkpoint(ctx, "hurt", 0)
	maxCheckpointBytes = old
	require.ErrorContains(t, err, "the checkpoint at seq 1 of session hurt is damaged: it takes 15 bytes, more than the 8")

	_, err = db.Exec(`UPDATE sessions SET tags = '{"a":' WHERE id = 'hurt'`)
	require.NoError(t, err)
	_, err = st.Header(ctx, "hurt")
	require.ErrorContains(t, err, "session hurt is damaged: its tags")
	_, err = st.List(ctx, store.Query{})
	require.ErrorContains(t, err, "session hurt is damaged: its tags")

	// Tags or ids larger than a store keeps (a hostile file's) are not
	// read into memory: they are damage.
	_, err = db.Exec(`UPDATE sessions SET tags = json_object('k', printf('%.*c', 70000, 'v')) WHERE id = 'hurt'`)
	require.NoError(t, err)
	_, err = st.Header(ctx, "hurt")
	require.ErrorContains(t, err, "session hurt is damaged: its tags take 70008 bytes, more than the 65536 a session's tags may")
	_, err = st.List(ctx, store.Query{})
	require.ErrorContains(t, err, "session hurt is damaged: its tags take 70008 bytes")
	_, err = db.Exec(`UPDATE sessions SET tags = NULL, parent = printf('%.*c', 5000, 'p') WHERE id = 'hurt'`)
	require.NoError(t, err)
	_, err = st.Header(ctx, "hurt")
	require.ErrorContains(t, err, "session hurt is damaged: the id of its parent takes 5000 bytes, more than the 4096 an id may")
	_, err = db.Exec(`UPDATE sessions SET parent = NULL, id = printf('%.*c', 5000, 'h') WHERE id = 'hurt'`)
	require.NoError(t, err)
	_, err = st.List(ctx, store.Query{})
	require.ErrorContains(t, err, "a session is damaged: its id takes 5000 bytes, more than the 4096 an id may")
	_, err = db.Exec(`UPDATE sessions SET id = 'hurt' WHERE parent IS NULL`)
	require.NoError(t, err)

	_, err = db.Exec(`UPDATE sessions SET seq = -4 WHERE id = 'hurt'`)
	require.NoError(t, err)
	_, err = read(st, "hurt", 0, 0)
	require.ErrorContains(t, err, "session hurt is damaged: its fork seq is 0 and its last seq -4")
}

// TestAppendRefuses: a batch the store could not read back, or that is
// not a batch, is refused, and nothing of it is written.
func TestAppendRefuses(t *testing.T) {
	huge := note(3, 1)
	huge.Events[0] = store.Event{Type: "test.New", Data: json.RawMessage(`"` + strings.Repeat("x", 200) + `"`)}
	tests := []struct {
		name  string
		batch store.Batch
		want  string
	}{
		{"seq zero", note(0, 1), "a batch of session s has seq 0"},
		{"no events", store.Batch{Seq: 3}, "a batch of session s (seq 3) has no events"},
		{"no type name", store.Batch{Seq: 3, Events: []store.Event{{Data: json.RawMessage(`1`)}}}, "event 0 of the batch at seq 3 of session s has no type name"},
		{"seqs past int64", store.Batch{Seq: math.MaxInt64, Events: note(1, 2).Events}, "ends past the largest seq the store holds"},
		{"seqs that wrap", store.Batch{Seq: math.MaxUint64, Events: note(1, 2).Events}, "ends past the largest seq the store holds"},
		{"a time too late", store.Batch{Seq: 3, Time: time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC), Events: note(1, 1).Events}, "the batch at seq 3 of session s: the time 3000-01-01 00:00:00 +0000 UTC is outside the years 1678 to 2262"},
		{"a time too early", store.Batch{Seq: 3, Time: time.Date(1600, 1, 1, 0, 0, 0, 0, time.UTC), Events: note(1, 1).Events}, "is outside the years 1678 to 2262"},
		{"too large, of known types", note(3, 10), "the batch at seq 3 of session s takes 115 bytes, more than the 64 a batch may"},
		{"too large, of a new type", huge, "the batch at seq 3 of session s takes 207 bytes, more than the 64 a batch may"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			st := openTemp(t)
			require.NoError(t, st.Create(ctx, store.Header{ID: "s"}))
			require.NoError(t, st.Append(ctx, "s", note(1, 2)))
			old := maxBatchBytes
			maxBatchBytes = 64
			err := st.Append(ctx, "s", tt.batch)
			maxBatchBytes = old
			require.ErrorContains(t, err, tt.want)
			h, err := st.Header(ctx, "s")
			require.NoError(t, err)
			assert.Equal(t, uint64(2), h.Seq)
			got, err := read(st, "s", 0, 0)
			require.NoError(t, err)
			assert.Len(t, got, 1)
			var types int
			require.NoError(t, st.r.QueryRow("SELECT count(*) FROM types").Scan(&types))
			assert.Equal(t, 1, types, "the refused batch's new type was kept")
			// The store goes on as before.
			require.NoError(t, st.Append(ctx, "s", store.Batch{Seq: 3, Events: huge.Events}))
		})
	}
}

// TestTimes: a batch's time reads back as the same instant, printed the
// same way.
func TestTimes(t *testing.T) {
	tests := []struct {
		name string
		time time.Time
	}{
		{"zero", time.Time{}},
		{"utc", time.Date(2026, 11, 26, 10, 0, 0, 123456789, time.UTC)},
		{"a fixed zone", time.Date(2026, 11, 26, 10, 0, 0, 1, time.FixedZone("IST", 5*3600+1800))},
		{"a zone west of utc", time.Date(2026, 1, 2, 3, 4, 5, 6, time.FixedZone("", -7*3600))},
		{"local, now", time.Now()},
		{"the earliest", time.Unix(0, math.MinInt64).UTC()},
		{"the latest", time.Unix(0, math.MaxInt64).UTC()},
	}
	ctx := context.Background()
	st := openTemp(t)
	require.NoError(t, st.Create(ctx, store.Header{ID: "s"}))
	for i, tt := range tests {
		b := note(uint64(i+1), 1)
		b.Time = tt.time
		require.NoError(t, st.Append(ctx, "s", b), tt.name)
	}
	got, err := read(st, "s", 0, 0)
	require.NoError(t, err)
	require.Len(t, got, len(tests))
	for i, tt := range tests {
		assert.True(t, tt.time.Equal(got[i].Time), "%s: got %v, want %v", tt.name, got[i].Time, tt.time)
		assert.Equal(t, tt.time.Format(time.RFC3339Nano), got[i].Time.Format(time.RFC3339Nano), tt.name)
		assert.Equal(t, tt.time.IsZero(), got[i].Time.IsZero(), tt.name)
	}
}

// TestWhileReading: a reader of a session may use the store (read,
// append, read again) before it is done; it sees the log as it was when it
// started.
func TestWhileReading(t *testing.T) {
	ctx := context.Background()
	st := openTemp(t)
	require.NoError(t, st.Create(ctx, store.Header{ID: "s"}))
	for seq := uint64(1); seq <= 5; seq++ {
		require.NoError(t, st.Append(ctx, "s", note(seq, 1)))
	}
	n := 0
	for b, err := range st.Batches(ctx, "s", 0, 0) {
		require.NoError(t, err)
		n++
		inner, err := read(st, "s", b.Seq, 0)
		require.NoError(t, err)
		require.Len(t, inner, 4) // 5 less the ones read, plus the ones appended
		require.NoError(t, st.Append(ctx, "s", note(uint64(5+n), 1)))
		_, err = st.Header(ctx, "s")
		require.NoError(t, err)
	}
	assert.Equal(t, 5, n)
	h, err := st.Header(ctx, "s")
	require.NoError(t, err)
	assert.Equal(t, uint64(10), h.Seq)
}

func TestCanceled(t *testing.T) {
	st := openTemp(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	require.NoError(t, st.Create(ctx, store.Header{ID: "s"}))
	for seq := uint64(1); seq <= 5; seq++ {
		require.NoError(t, st.Append(ctx, "s", note(seq, 1)))
	}
	n := 0
	var last error
	for _, err := range st.Batches(ctx, "s", 0, 0) {
		if err != nil {
			last = err
			break
		}
		if n++; n == 2 {
			cancel()
		}
	}
	require.ErrorIs(t, last, context.Canceled)
	assert.Equal(t, 2, n)
	require.ErrorIs(t, st.Append(ctx, "s", note(6, 1)), context.Canceled)
	_, err := read(st, "s", 0, 0) // a new context's reader sees all
	require.NoError(t, err)
	for _, err := range st.Batches(ctx, "s", 0, 0) {
		require.ErrorIs(t, err, context.Canceled)
	}
}

func TestCheck(t *testing.T) {
	ctx := context.Background()
	st := openTemp(t)
	require.NoError(t, st.Check(ctx))
	require.NoError(t, st.Create(ctx, store.Header{ID: "s"}))
	require.NoError(t, st.Append(ctx, "s", note(1, 1)))
	require.NoError(t, st.Check(ctx))
	_, err := rawDB(t, st).Exec(`INSERT INTO batches (sid, last, seq, time, zone, events) VALUES (99, 1, 1, NULL, 0, x'01')`)
	require.NoError(t, err)
	err = st.Check(ctx)
	require.ErrorContains(t, err, "is damaged: a row of batches refers to a missing row of sessions")
}

// TestCheckPages damages pages of a closed file: Check finds it.
func TestCheckPages(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "sessions.db")
	st, err := Open(context.Background(), path)
	require.NoError(t, err)
	require.NoError(t, st.Create(ctx, store.Header{ID: "s"}))
	seq := uint64(1)
	for range 200 {
		b := note(seq, 8)
		require.NoError(t, st.Append(ctx, "s", b))
		seq = b.Last() + 1
	}
	require.NoError(t, st.Close())
	damageFile(t, path)
	st, err = Open(context.Background(), path)
	require.NoError(t, err)
	defer st.Close()
	require.ErrorContains(t, st.Check(ctx), "is damaged")
}

// TestListTags: tags match by key and value exactly, whatever characters
// the keys hold.
func TestListTags(t *testing.T) {
	ctx := context.Background()
	st := openTemp(t)
	odd := map[string]string{`a.b`: "1", `"q"`: "2", `$[0]`: "3", "": "4", "é": "ü"}
	require.NoError(t, st.Create(ctx, store.Header{ID: "odd", Tags: odd}))
	require.NoError(t, st.Create(ctx, store.Header{ID: "plain", Tags: map[string]string{"a": "1"}}))
	require.NoError(t, st.Create(ctx, store.Header{ID: "none"}))
	tests := []struct {
		tags map[string]string
		want []string
	}{
		{odd, []string{"odd"}},
		{map[string]string{`a.b`: "1"}, []string{"odd"}},
		{map[string]string{"a": "1"}, []string{"plain"}},
		{map[string]string{"": "4"}, []string{"odd"}},
		{map[string]string{"a.b": "2"}, nil},
		{map[string]string{"b": "1"}, nil},
	}
	for _, tt := range tests {
		hs, err := st.List(ctx, store.Query{Tags: tt.tags})
		require.NoError(t, err)
		var got []string
		for _, h := range hs {
			got = append(got, h.ID)
		}
		assert.Equal(t, tt.want, got, "tags %v", tt.tags)
	}
	h, err := st.Header(ctx, "odd")
	require.NoError(t, err)
	assert.Equal(t, odd, h.Tags)
}
