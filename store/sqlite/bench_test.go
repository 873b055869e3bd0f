package sqlite

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/store"
)

// Event type names as the session names them: a package path and a type.
const (
	typeRequest  = "github.com/offshoot-dev/offshoot/runner.ModelRequested"
	typeResponse = "github.com/offshoot-dev/offshoot/runner.ModelResponded"
	typeTool     = "github.com/offshoot-dev/offshoot/runner.ToolInvoked"
	typeUsage    = "github.com/offshoot-dev/offshoot/model.Usage"
	typeUser     = "github.com/offshoot-dev/offshoot/runner.UserMessage"
)

// jsonText is a JSON object of n bytes whose text field is made of c.
func jsonText(n int, c string) json.RawMessage {
	const frame = `{"text":""}`
	return json.RawMessage(`{"text":"` + strings.Repeat(c, n-len(frame)) + `"}`)
}

// turn is a model turn's batch at seq: four events, about 2 KB.
func turn(seq uint64) store.Batch {
	return store.Batch{Seq: seq, Time: time.Now(), Events: []store.Event{
		{Type: typeRequest, Data: jsonText(300, "q")},
		{Type: typeResponse, Data: jsonText(1200, "a")},
		{Type: typeTool, Data: jsonText(450, "t")},
		{Type: typeUsage, Data: json.RawMessage(`{"input_tokens":1234,"output_tokens":567,"cached_tokens":890}`)},
	}}
}

func benchStore(b *testing.B, options ...string) *Store {
	b.Helper()
	st, err := Open(context.Background(), filepath.Join(b.TempDir(), "sessions.db")+strings.Join(options, ""))
	require.NoError(b, err)
	b.Cleanup(func() { st.Close() })
	return st
}

// BenchmarkAppend appends one model turn's batch (4 events, 2 KB) at a
// time, each its own committed transaction; median-µs is the median of
// the appends' times.
func BenchmarkAppend(b *testing.B) { benchmarkAppend(b) }

// BenchmarkAppendFull is BenchmarkAppend with ?_synchronous=FULL: what
// surviving a power loss costs an append (an fsync of the log each).
func BenchmarkAppendFull(b *testing.B) { benchmarkAppend(b, "?_synchronous=FULL") }

func benchmarkAppend(b *testing.B, options ...string) {
	ctx := context.Background()
	st := benchStore(b, options...)
	require.NoError(b, st.Create(ctx, store.Header{ID: "s"}))
	seq := uint64(1)
	var times []time.Duration
	size := 0
	for _, e := range turn(1).Events {
		size += len(e.Data)
	}
	b.SetBytes(int64(size))
	for b.Loop() {
		bt := turn(seq)
		start := time.Now()
		if err := st.Append(ctx, "s", bt); err != nil {
			b.Fatal(err)
		}
		times = append(times, time.Since(start))
		seq = bt.Last() + 1
	}
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2].Nanoseconds())/1e3, "median-µs")
	b.ReportMetric(float64(times[len(times)*99/100].Nanoseconds())/1e3, "p99-µs")
}

// BenchmarkSetTags replaces a session's tags with what the command line
// keeps of it after each question (its first question, kind, turns and
// tokens): what that adds to a turn.
func BenchmarkSetTags(b *testing.B) {
	ctx := context.Background()
	st := benchStore(b)
	require.NoError(b, st.Create(ctx, store.Header{ID: "s"}))
	tags := map[string]string{
		"offshoot.owner": strings.Repeat("f", 32), "offshoot.kind": "chat",
		"offshoot.question": strings.Repeat("What does the billing module do? ", 6),
	}
	var times []time.Duration
	for i := 0; b.Loop(); i++ {
		tags["offshoot.turns"], tags["offshoot.tokens"] = strconv.Itoa(i), strconv.Itoa(i*1500)
		start := time.Now()
		if err := st.SetTags(ctx, "s", tags); err != nil {
			b.Fatal(err)
		}
		times = append(times, time.Since(start))
	}
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2].Nanoseconds())/1e3, "median-µs")
	b.ReportMetric(float64(times[len(times)*99/100].Nanoseconds())/1e3, "p99-µs")
}

// BenchmarkRead100k reads back a session of 100,000 events (25,000 turns
// as above); MB/s is of the events' bytes as appended (the rows hold
// them deflated: MB-stored, which this benchmark's repeated letters make
// small).
func BenchmarkRead100k(b *testing.B) {
	ctx := context.Background()
	st := benchStore(b)
	require.NoError(b, st.Create(ctx, store.Header{ID: "s"}))
	seq := uint64(1)
	for seq <= 100_000 {
		bt := turn(seq)
		require.NoError(b, st.Append(ctx, "s", bt))
		seq = bt.Last() + 1
	}
	var stored int64
	require.NoError(b, st.r.QueryRow("SELECT sum(length(events)) FROM batches").Scan(&stored))
	given := 0
	for _, e := range turn(1).Events {
		given += len(e.Data)
	}
	b.SetBytes(int64(given) * 25_000)
	for b.Loop() {
		events := 0
		for bt, err := range st.Batches(ctx, "s", 0, 0) {
			if err != nil {
				b.Fatal(err)
			}
			events += len(bt.Events)
		}
		if events != 100_000 {
			b.Fatalf("read %d events", events)
		}
	}
	b.ReportMetric(float64(stored)/1e6, "MB-stored")
}

// BenchmarkStorage1000Turns stores 1,000 turns of a 200-byte question and
// a 300-byte answer, each its own batch, and reports the file's size after
// a checkpoint of the write-ahead log (which empties the log into the
// file), as bytes and as a ratio to the 500,000 bytes of the messages
// (the bar is 1.5). The file has no free pages: its size is what the rows
// take, plus the tables' first pages (some 45 KB).
func BenchmarkStorage1000Turns(b *testing.B) {
	ctx := context.Background()
	for b.Loop() {
		b.StopTimer()
		st, err := Open(context.Background(), filepath.Join(b.TempDir(), "sessions.db"))
		require.NoError(b, err)
		b.StartTimer()
		require.NoError(b, st.Create(ctx, store.Header{ID: "chat", Tags: map[string]string{"user": "ada"}}))
		seq := uint64(1)
		for i := range 1000 {
			q := store.Batch{Seq: seq, Time: time.Now(), Events: []store.Event{{Type: typeUser, Data: jsonText(200, fmt.Sprint(i%10))}}}
			a := store.Batch{Seq: seq + 1, Time: time.Now(), Events: []store.Event{{Type: typeResponse, Data: jsonText(300, fmt.Sprint(i%10))}}}
			require.NoError(b, st.Append(ctx, "chat", q))
			require.NoError(b, st.Append(ctx, "chat", a))
			seq += 2
		}
		b.StopTimer()
		_, err = st.w.Exec("PRAGMA wal_checkpoint(TRUNCATE)")
		require.NoError(b, err)
		fi, err := os.Stat(st.path)
		require.NoError(b, err)
		var free int64
		require.NoError(b, st.w.QueryRow("PRAGMA freelist_count").Scan(&free))
		require.NoError(b, st.Close())
		b.ReportMetric(float64(fi.Size()), "file-bytes")
		b.ReportMetric(float64(fi.Size())/500_000, "ratio")
		b.ReportMetric(float64(free), "free-pages")
		b.StartTimer()
	}
}

// BenchmarkFork forks a stored session of 1,000,000 events (in batches of
// 64) at seqs across it: one row, whatever the parent holds.
func BenchmarkFork(b *testing.B) {
	ctx := context.Background()
	st := benchStore(b)
	require.NoError(b, st.Create(ctx, store.Header{ID: "parent"}))
	const events, per = 1_000_000, 64
	for seq := uint64(1); seq <= events; seq += per {
		bt := store.Batch{Seq: seq, Time: time.Now()}
		for i := range min(per, events-int(seq)+1) {
			bt.Events = append(bt.Events, store.Event{Type: typeTool, Data: json.RawMessage(fmt.Sprintf(`{"n":%d}`, int(seq)+i))})
		}
		require.NoError(b, st.Append(ctx, "parent", bt))
	}
	n := 0
	for b.Loop() {
		n++
		at := uint64(n*7919) % events
		if err := st.Create(ctx, store.Header{ID: fmt.Sprint("fork", n), Parent: "parent", ForkSeq: at}); err != nil {
			b.Fatal(err)
		}
	}
}
