package store_test

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/serde"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/store"
	"github.com/offshoot-dev/offshoot/store/journal"
	"github.com/offshoot-dev/offshoot/store/sqlite"
)

// A turn of the measured conversations is a 200-byte question and a
// 300-byte answer, 500 KB of text in 1,000 turns. question and answer are
// the project's own text: a phrase said eight times over, the same every
// turn. proseQuestion and proseAnswer are the conversation LangGraph's
// SQLite checkpointer was measured on (docs/benchmarks.md): ordinary
// sentences, which repeat nothing within a message, the same every turn.
var (
	question      = strings.Repeat("How does the ledger round? ", 8)[:200]
	answer        = strings.Repeat("It rounds half to even, per line. ", 9)[:300]
	proseQuestion = ("Our ledger service rounds each invoice line before summing, but the monthly totals drift " +
		"by a few cents against the bank statement. Which rounding rule should we use, and where in the pipeline " +
		"should it happen so that refunds and currency conversions stay consistent?")[:200]
	proseAnswer = ("Round half to even on each line, after currency conversion and before the line is summed, and " +
		"keep the unrounded amount beside it for audits. Refunds should reverse the rounded line exactly rather " +
		"than recompute it, so a refund never creates a new cent of drift. Reconcile monthly totals against the " +
		"statement and post any remainder to a rounding account with a note explaining it.")[:300]
)

// checkpointEvery is the journal's checkpoint spacing in the benchmarks
// (the default unless a benchmark changes it).
var checkpointEvery = 0

// chat is a new session for the turns, journaled to st when st is not nil,
// with the runner's reducers installed; done closes it and its journal.
func chat(b *testing.B, st store.Store) (s *session.Session, done func()) {
	b.Helper()
	opts := []session.Option{session.WithRegistry(serde.NewRegistry())}
	var j *journal.Journal
	if st != nil {
		j = journal.New(st, journal.Options{CheckpointEvery: checkpointEvery})
		opts = append(opts, session.WithJournal(j))
	}
	s, err := session.New(opts...)
	require.NoError(b, err)
	return s, func() {
		_ = s.Close()
		if j != nil {
			require.NoError(b, j.Close())
		}
	}
}

// openSQLite opens a store in a new SQLite file, closed when the benchmark
// ends.
func openSQLite(b *testing.B) store.Store {
	b.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "sessions.db"))
	require.NoError(b, err)
	b.Cleanup(func() { require.NoError(b, st.Close()) })
	return st
}

func turnPrompt(b *testing.B) *prompt.Prompt {
	b.Helper()
	p, err := prompt.New("bench", "chat", prompt.Markdown[prompt.NoParams]("Role", "You answer questions about the ledger."))
	require.NoError(b, err)
	return p
}

// conversation is a chat of scripted turns that starts again, in a new
// session, every 100 turns, so that every turn continues a conversation
// of 0 to 99 earlier turns, whatever the benchmark's count.
type conversation struct {
	st    store.Store // nil: in memory
	p     *prompt.Prompt
	m     model.Model
	s     *session.Session
	done  func()
	last  string
	turns int
}

func newConversation(b *testing.B, st store.Store) *conversation {
	return &conversation{st: st, p: turnPrompt(b), m: scripted.New(scripted.Repeat(scripted.Text(answer))), done: func() {}}
}

// turn takes one turn and returns how long it took; starting a new
// session is not timed, nor counted in the benchmark's time.
func (c *conversation) turn(b *testing.B) time.Duration {
	if c.turns%100 == 0 {
		b.StopTimer()
		c.done()
		c.s, c.done = chat(b, c.st)
		c.last = ""
		b.StartTimer()
	}
	start := time.Now()
	resp, err := runner.Evaluate(context.Background(), runner.Request{Prompt: c.p, Session: c.s, Model: c.m, UserMessage: question, Continue: c.last})
	took := time.Since(start)
	if err != nil {
		b.Fatal(err)
	}
	c.last = resp.Evaluation
	c.turns++
	return took
}

// median returns the middle of ds, which it sorts.
func median(ds []time.Duration) time.Duration {
	slices.Sort(ds)
	return ds[len(ds)/2]
}

// BenchmarkTurn measures what storing a session adds to a turn. An
// iteration takes one scripted turn of a conversation — a question, the
// model's answer, their records — on a session in memory and one on a
// session whose every commit is appended to the store before it returns
// (checkpoints included), in alternating order, and the benchmark reports
// each kind's median ("memory-µs", "stored-µs") and their difference,
// "added-µs": what a stored turn adds. The bar, on an idle 2-core
// machine: at most 150 µs on SQLite (synchronous=NORMAL), 1.5 ms on
// PostgreSQL over loopback. The postgres case runs against the server
// named by OFFSHOOT_TEST_POSTGRES, else 127.0.0.1:5432 (database test),
// and skips without one. ns/op is the two turns together.
func BenchmarkTurn(b *testing.B) {
	for _, backend := range []struct {
		name string
		open func(*testing.B) store.Store
	}{{"sqlite", openSQLite}, {"postgres", openPostgres}} {
		b.Run(backend.name, func(b *testing.B) {
			memory, stored := newConversation(b, nil), newConversation(b, backend.open(b))
			var inMemory, inStore []time.Duration
			b.ReportAllocs()
			for b.Loop() {
				if len(inMemory)%2 == 0 {
					inMemory = append(inMemory, memory.turn(b))
					inStore = append(inStore, stored.turn(b))
				} else {
					inStore = append(inStore, stored.turn(b))
					inMemory = append(inMemory, memory.turn(b))
				}
			}
			b.StopTimer()
			memory.done()
			stored.done()
			m, s := median(inMemory), median(inStore)
			b.ReportMetric(float64(m.Nanoseconds())/1e3, "memory-µs")
			b.ReportMetric(float64(s.Nanoseconds())/1e3, "stored-µs")
			b.ReportMetric(float64((s-m).Nanoseconds())/1e3, "added-µs")
		})
	}
}

// BenchmarkStoredConversation stores a 1,000-turn conversation through
// the runner in SQLite — every record it makes, not only the messages —
// and reports the file's size as a ratio to the 500 KB of its messages'
// text, and the times of its first turn ("turn-1-µs") and of its last
// ("turn-1000-µs", the median of turns 991 to 1,000). "repeated" is the
// project's own text (question and answer, which compress well within a
// message), "langgraph" the conversation LangGraph's SQLite checkpointer
// was measured on (proseQuestion and proseAnswer), "varied" questions
// and answers of words drawn at random from a list, different every turn.
func BenchmarkStoredConversation(b *testing.B) {
	for _, text := range []string{"repeated", "langgraph", "varied"} {
		for _, every := range []int{0, -1} {
			name := text + "/checkpoints"
			if every < 0 {
				name = text + "/log-only"
			}
			b.Run(name, func(b *testing.B) {
				checkpointEvery = every
				defer func() { checkpointEvery = 0 }()
				storedConversation(b, text)
			})
		}
	}
}

func storedConversation(b *testing.B, text string) {
	p := turnPrompt(b)
	for b.Loop() {
		dir := b.TempDir()
		st, err := sqlite.Open(context.Background(), filepath.Join(dir, "sessions.db"))
		require.NoError(b, err)
		s, done := chat(b, st)
		words := rand.New(rand.NewPCG(1, 2))
		ask, answerText := func() string { return question }, func() string { return answer }
		switch text {
		case "langgraph":
			ask, answerText = func() string { return proseQuestion }, func() string { return proseAnswer }
		case "varied":
			ask, answerText = func() string { return prose(words, 200) }, func() string { return prose(words, 300) }
		}
		m := scripted.New(scripted.Repeat(scripted.Func(func(context.Context, *model.Request) (*model.Response, error) {
			return &model.Response{Message: model.AssistantMessage(answerText())}, nil
		})))
		ctx := context.Background()
		last := ""
		var first time.Duration
		var lastTen []time.Duration
		for i := range 1000 {
			start := time.Now()
			resp, err := runner.Evaluate(ctx, runner.Request{Prompt: p, Session: s, Model: m, UserMessage: ask(), Continue: last})
			took := time.Since(start)
			if err != nil {
				b.Fatal(err)
			}
			switch {
			case i == 0:
				first = took
			case i >= 990:
				lastTen = append(lastTen, took)
			}
			last = resp.Evaluation
		}
		done()
		require.NoError(b, st.Close())
		fi, err := os.Stat(filepath.Join(dir, "sessions.db"))
		require.NoError(b, err)
		b.ReportMetric(float64(fi.Size())/500_000, "ratio")
		b.ReportMetric(float64(fi.Size()), "file-bytes")
		b.ReportMetric(float64(first.Nanoseconds())/1e3, "turn-1-µs")
		b.ReportMetric(float64(median(lastTen).Nanoseconds())/1e3, "turn-1000-µs")
	}
}

// samplePeakHeap samples the bytes of heap objects (live and not yet
// swept) until the returned func is called, which returns the largest
// sample: the heap's peak, give or take what grew and was collected
// between two samples. runtime/metrics reads without stopping the world.
func samplePeakHeap() (stop func() uint64) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	done, peak := make(chan struct{}), make(chan uint64)
	go func() {
		var most uint64
		for {
			metrics.Read(sample)
			most = max(most, sample[0].Value.Uint64())
			select {
			case <-done:
				peak <- most
				return
			default:
				runtime.Gosched()
			}
		}
	}()
	return func() uint64 {
		close(done)
		return <-peak
	}
}

// vocabulary is what prose draws its words from.
var vocabulary = strings.Fields(`the ledger rounds each line half to even before it sums the column and
carries what remains into the next period where a reviewer checks totals against bank statements
invoices receipts refunds adjustments currency rates taxes fees discounts payroll accruals deferrals
reconciles flags reports explains why an entry moved which account it touched who approved it when`)

// prose returns n bytes of words drawn at random.
func prose(r *rand.Rand, n int) string {
	var sb strings.Builder
	for sb.Len() < n {
		if sb.Len() > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString(vocabulary[r.IntN(len(vocabulary))])
	}
	return sb.String()[:n]
}

// BenchmarkOpen opens a stored session of 100,000 events (25,000 batches
// of 4, no checkpoint: the whole log replayed) and reports MB/s of the
// events' stored bytes, and what opening allocated in all as a multiple
// of the state it left live — a bound on its peak heap.
func BenchmarkOpen(b *testing.B) {
	dir := b.TempDir()
	st, err := sqlite.Open(context.Background(), filepath.Join(dir, "sessions.db"))
	require.NoError(b, err)
	defer st.Close()
	ctx := context.Background()
	j := journal.New(st, journal.Options{CheckpointEvery: -1})
	reg := serde.NewRegistry()
	s, err := session.New(session.WithID("big"), session.WithRegistry(reg), session.WithJournal(j))
	require.NoError(b, err)
	require.NoError(b, s.Install(ctx, bank()))
	text := strings.Repeat("a deposit with its note ", 8)
	var stored int64
	for i := range 25_000 {
		events := []any{Deposit{i + 1}, Opened{By: text}, Deposit{1}, Opened{By: text}}
		require.NoError(b, s.Dispatch(ctx, events...))
	}
	for bt, err := range st.Batches(ctx, "big", 0, 0) {
		require.NoError(b, err)
		for _, e := range bt.Events {
			stored += int64(len(e.Data))
		}
	}
	require.NoError(b, s.Close())
	var ratio float64
	b.SetBytes(stored)
	for b.Loop() {
		b.StopTimer()
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		b.StartTimer()
		again, err := j.Open(ctx, "big", reg, []session.Reducers{bank()})
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		runtime.ReadMemStats(&after)
		allocated := after.TotalAlloc - before.TotalAlloc
		runtime.GC()
		runtime.ReadMemStats(&after)
		live := after.HeapAlloc - before.HeapAlloc
		ratio = float64(allocated) / float64(live)
		runtime.KeepAlive(again)
		_ = again.Close()
		b.StartTimer()
	}
	// The peak, on one more open (the sampler takes a core: not timed).
	b.StopTimer()
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	stop := samplePeakHeap()
	again, err := j.Open(ctx, "big", reg, []session.Reducers{bank()})
	require.NoError(b, err)
	peakHeap := stop()
	runtime.GC()
	runtime.ReadMemStats(&after)
	peak := float64(peakHeap-before.HeapAlloc) / float64(after.HeapAlloc-before.HeapAlloc)
	runtime.KeepAlive(again)
	_ = again.Close()
	b.ReportMetric(peak, "peak-heap/live")
	b.ReportMetric(ratio, "allocated/live")
	require.NoError(b, j.Close())
}
