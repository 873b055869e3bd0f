package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/store"
)

// The benchmarks skip without a server, as the tests do. Their events are
// shaped as a session records a conversation: the runner's messages, under
// the type name the registry gives them by default, each carrying its
// evaluation's id, with text that does not repeat (so that no compression
// of the server's makes them look smaller than they are).

const messageType = "github.com/offshoot-dev/offshoot/runner.ConversationMessage"

// text returns n bytes of lowercase words, different at every call.
func text(r *rand.Rand, n int) string {
	var b strings.Builder
	for b.Len() < n {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		for range 2 + r.IntN(8) {
			b.WriteByte(byte('a' + r.IntN(26)))
		}
	}
	return b.String()[:n]
}

// message is a message event of the evaluation eval.
func message(eval, role, content string) store.Event {
	data, err := json.Marshal(struct {
		Evaluation string `json:"evaluation"`
		Role       string `json:"role"`
		Content    string `json:"content"`
	}{eval, role, content})
	if err != nil {
		panic(err)
	}
	return store.Event{Type: messageType, Data: data}
}

// turn is one model turn's batch of about 2 KB in 4 events: the rendered
// prompt's record, the user's message, the assistant's reply with a tool
// call, and the call's usage.
func turn(r *rand.Rand, seq uint64) store.Batch {
	eval := fmt.Sprintf("%08x-0000-4000-8000-%012x", seq, seq)
	return store.Batch{Seq: seq, Time: time.Now(), Events: []store.Event{
		{Type: "github.com/offshoot-dev/offshoot/runner.PromptRendered", Data: json.RawMessage(fmt.Sprintf(`{"evaluation":%q,"prompt":"assistant","model":"gpt-5-mini","system":%q}`, eval, text(r, 400)))},
		message(eval, "user", text(r, 500)),
		message(eval, "assistant", text(r, 700)),
		{Type: "github.com/offshoot-dev/offshoot/runner.ModelCalled", Data: json.RawMessage(fmt.Sprintf(`{"evaluation":%q,"input_tokens":1834,"output_tokens":212,"cached_input_tokens":1536,"duration_ms":812}`, eval))},
	}}
}

func batchBytes(b store.Batch) int {
	n := 0
	for _, e := range b.Events {
		n += len(e.Type) + len(e.Data)
	}
	return n
}

// BenchmarkAppend appends one committed batch (one model turn: 4 events,
// about 2 KB) to a session, and reports the median besides the mean.
func BenchmarkAppend(b *testing.B) {
	st := openTest(b)
	ctx := context.Background()
	require.NoError(b, st.Create(ctx, store.Header{ID: "bench"}))
	r := rand.New(rand.NewPCG(1, 2))
	batches := make([]store.Batch, 256)
	for i := range batches {
		batches[i] = turn(r, 0)
	}
	b.SetBytes(int64(batchBytes(batches[0])))
	took := make([]time.Duration, 0, b.N)
	seq := uint64(1)
	b.ResetTimer()
	for i := range b.N {
		bt := batches[i%len(batches)]
		bt.Seq = seq
		start := time.Now()
		if err := st.Append(ctx, "bench", bt); err != nil {
			b.Fatal(err)
		}
		took = append(took, time.Since(start))
		seq = bt.Last() + 1
	}
	b.StopTimer()
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds()), "µs-median")
	b.ReportMetric(float64(took[len(took)*99/100].Microseconds()), "µs-p99")
}

// fill stores a session of n batches of 4 events straight into the tables
// (COPY), as Append would have. It returns the count of events, the bytes
// of the rows (stored) and of the events' data and type names (given).
func fill(b *testing.B, st *pgStore, id string, n int) (events, stored, given int) {
	ctx := context.Background()
	require.NoError(b, st.Create(ctx, store.Header{ID: id}))
	var key int64
	require.NoError(b, st.pool.QueryRow(ctx, st.q(`SELECT key FROM S.sessions WHERE id = $1`), id).Scan(&key))
	r := rand.New(rand.NewPCG(3, 4))
	rows := make([][]any, n)
	seq := uint64(1)
	for i := range rows {
		bt := turn(r, seq)
		row := encodeEvents(bt.Events)
		rows[i] = []any{key, int64(bt.Seq), int64(bt.Last()), bt.Time, row}
		events += len(bt.Events)
		stored += len(row)
		given += batchBytes(bt)
		seq = bt.Last() + 1
	}
	_, err := st.pool.CopyFrom(ctx, pgx.Identifier{st.schema, "batches"}, []string{"session", "seq", "last", "time", "events"}, pgx.CopyFromRows(rows))
	require.NoError(b, err)
	exec(b, st, `UPDATE S.sessions SET seq = $2 WHERE key = $1`, key, int64(seq-1))
	exec(b, st, `VACUUM ANALYZE S.batches`)
	return events, stored, given
}

// BenchmarkBatches reads back a session of 100,000 events (25,000
// batches): MB/s are of the rows' bytes as stored (deflated), MB/s-given of
// the events' data and type names as Append was given them.
func BenchmarkBatches(b *testing.B) {
	st := openTest(b)
	events, size, given := fill(b, st, "big", 25_000)
	ctx := context.Background()
	b.SetBytes(int64(size))
	b.ResetTimer()
	for range b.N {
		n := 0
		for bt, err := range st.Batches(ctx, "big", 0, 0) {
			if err != nil {
				b.Fatal(err)
			}
			n += len(bt.Events)
		}
		if n != events {
			b.Fatalf("read %d events, want %d", n, events)
		}
	}
	b.ReportMetric(float64(events)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(given)*float64(b.N)/b.Elapsed().Seconds()/1e6, "MB/s-given")
	b.ReportMetric(float64(size)/1e6, "MB-stored")
}

// schemaBytes is what the store's tables take: heap, indexes, TOAST, free
// space and visibility maps.
func schemaBytes(b *testing.B, st *pgStore) int64 {
	var n int64
	require.NoError(b, st.pool.QueryRow(context.Background(), `
		SELECT sum(pg_total_relation_size(c.oid))::bigint FROM pg_class c
		JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = $1 AND c.relkind = 'r'`, st.schema).Scan(&n))
	return n
}

// BenchmarkStorage stores a conversation of 1,000 turns — a 200-byte
// question and a 300-byte answer, 500 KB of text — a batch a turn, or a
// batch a message, and reports what the tables grew by, after a VACUUM
// (which adds the maps autovacuum would), as a multiple of the text
// ("x-text") and of the bytes given to Append ("x-given": the events' data
// and type names).
func BenchmarkStorage(b *testing.B) {
	for _, perTurn := range []int{1, 2} {
		b.Run(fmt.Sprintf("batches-a-turn=%d", perTurn), func(b *testing.B) {
			for range b.N {
				st := openTest(b)
				ctx := context.Background()
				require.NoError(b, st.Create(ctx, store.Header{ID: "conversation", Tags: map[string]string{"user": "ada"}}))
				exec(b, st, `VACUUM S.sessions, S.batches, S.checkpoints`)
				before := schemaBytes(b, st)
				r := rand.New(rand.NewPCG(5, 6))
				seq, given, textBytes := uint64(1), 0, 0
				for i := range 1000 {
					eval := fmt.Sprintf("%08x-0000-4000-8000-%012x", i, i)
					q, a := text(r, 200), text(r, 300)
					textBytes += len(q) + len(a)
					events := []store.Event{message(eval, "user", q), message(eval, "assistant", a)}
					for _, chunk := range slices.Collect(slices.Chunk(events, len(events)/perTurn)) {
						bt := store.Batch{Seq: seq, Time: time.Now(), Events: chunk}
						require.NoError(b, st.Append(ctx, "conversation", bt))
						given += batchBytes(bt)
						seq = bt.Last() + 1
					}
				}
				exec(b, st, `VACUUM S.sessions, S.batches, S.checkpoints`)
				grew := schemaBytes(b, st) - before
				b.ReportMetric(float64(grew)/float64(textBytes), "x-text")
				b.ReportMetric(float64(grew)/float64(given), "x-given")
				b.ReportMetric(float64(grew), "B-stored")
				b.ReportMetric(float64(schemaBytes(b, st))/float64(textBytes), "x-text-whole-schema")
			}
		})
	}
}

// BenchmarkFork forks a stored session of 1,000,000 events (10,000 batches
// of 100 small events) at a seq anywhere in it: one row, whatever the
// parent holds.
func BenchmarkFork(b *testing.B) {
	st := openTest(b)
	ctx := context.Background()
	require.NoError(b, st.Create(ctx, store.Header{ID: "parent"}))
	var key int64
	require.NoError(b, st.pool.QueryRow(ctx, st.q(`SELECT key FROM S.sessions WHERE id = 'parent'`)).Scan(&key))
	const batches, perBatch = 10_000, 100
	rows := make([][]any, batches)
	for i := range rows {
		bt := store.Batch{Seq: uint64(i*perBatch + 1), Time: time.Now()}
		for j := range perBatch {
			bt.Events = append(bt.Events, store.Event{Type: "test.Note", Data: json.RawMessage(fmt.Sprintf(`{"n":%d}`, i*perBatch+j))})
		}
		rows[i] = []any{key, int64(bt.Seq), int64(bt.Last()), bt.Time, encodeEvents(bt.Events)}
	}
	_, err := st.pool.CopyFrom(ctx, pgx.Identifier{st.schema, "batches"}, []string{"session", "seq", "last", "time", "events"}, pgx.CopyFromRows(rows))
	require.NoError(b, err)
	exec(b, st, `UPDATE S.sessions SET seq = $2 WHERE key = $1`, key, int64(batches*perBatch))
	exec(b, st, `VACUUM ANALYZE S.batches`)
	r := rand.New(rand.NewPCG(7, 8))
	b.ResetTimer()
	for i := range b.N {
		at := 1 + r.Uint64N(batches*perBatch)
		if err := st.Create(ctx, store.Header{ID: fmt.Sprintf("fork-%d", i), Parent: "parent", ForkSeq: at}); err != nil {
			b.Fatal(err)
		}
	}
}
