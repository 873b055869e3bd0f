package store_test

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/serde"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/store"
	"github.com/offshoot-dev/offshoot/store/sqlite"
)

// question and answer are a turn of the measured conversation: a 200-byte
// question and a 300-byte answer.
var (
	question = strings.Repeat("How does the ledger round? ", 8)[:200]
	answer   = strings.Repeat("It rounds half to even, per line. ", 9)[:300]
)

// checkpointEvery is the journal's checkpoint spacing in the benchmarks
// (the default unless a benchmark changes it).
var checkpointEvery = 0

// chat is a session for the turns, journaled to a SQLite file in dir when
// dir is not empty, with the runner's reducers installed.
func chat(b *testing.B, dir string) (*session.Session, func()) {
	b.Helper()
	opts := []session.Option{session.WithRegistry(serde.NewRegistry())}
	var st *sqlite.Store
	var j *store.Journal
	if dir != "" {
		var err error
		st, err = sqlite.Open(filepath.Join(dir, "sessions.db"))
		require.NoError(b, err)
		j = store.NewJournal(st, store.JournalOptions{CheckpointEvery: checkpointEvery})
		opts = append(opts, session.WithJournal(j))
	}
	s, err := session.New(opts...)
	require.NoError(b, err)
	return s, func() {
		_ = s.Close()
		if j != nil {
			require.NoError(b, j.Close())
			require.NoError(b, st.Close())
		}
	}
}

func turnPrompt(b *testing.B) *prompt.Prompt {
	b.Helper()
	p, err := prompt.New("bench", "chat", prompt.Markdown[prompt.NoParams]("Role", "You answer questions about the ledger."))
	require.NoError(b, err)
	return p
}

// BenchmarkTurn is one scripted turn of a conversation — a question, the
// model's answer, their records — on a session in memory and on one whose
// every commit is appended to SQLite (synchronous=NORMAL) before it
// returns, checkpoints included. The conversation starts again every 100
// turns (not timed), so every measured turn continues a conversation of
// 0 to 99 earlier turns, whichever the benchmark's count. The bar: with
// the store, at most 3× without.
func BenchmarkTurn(b *testing.B) {
	p := turnPrompt(b)
	for _, tt := range []struct {
		name   string
		stored bool
	}{{"memory", false}, {"sqlite", true}} {
		b.Run(tt.name, func(b *testing.B) {
			ctx := context.Background()
			m := scripted.New(scripted.Repeat(scripted.Text(answer)))
			var s *session.Session
			done := func() {}
			last, turns := "", 0
			b.ReportAllocs()
			for b.Loop() {
				if turns%100 == 0 {
					b.StopTimer()
					done()
					dir := ""
					if tt.stored {
						dir = b.TempDir()
					}
					s, done = chat(b, dir)
					last = ""
					b.StartTimer()
				}
				resp, err := runner.Evaluate(ctx, runner.Request{Prompt: p, Session: s, Model: m, UserMessage: question, Continue: last})
				if err != nil {
					b.Fatal(err)
				}
				last = resp.Evaluation
				turns++
			}
			b.StopTimer()
			done()
		})
	}
}

// BenchmarkStoredConversation stores a 1,000-turn conversation through
// the runner — every record it makes, not only the messages — and reports
// the SQLite file's size as a ratio to the 500 KB of its messages' text:
// "repeated" asks the same 200-byte question and gets the same 300-byte
// answer every turn (the workload LangGraph was measured on, which
// compresses well), "varied" asks and answers with words drawn at random
// from a list, different every turn.
func BenchmarkStoredConversation(b *testing.B) {
	for _, text := range []string{"repeated", "varied"} {
		for _, every := range []int{0, -1} {
			name := text + "/checkpoints"
			if every < 0 {
				name = text + "/log-only"
			}
			b.Run(name, func(b *testing.B) {
				checkpointEvery = every
				defer func() { checkpointEvery = 0 }()
				storedConversation(b, text == "varied")
			})
		}
	}
}

func storedConversation(b *testing.B, varied bool) {
	p := turnPrompt(b)
	for b.Loop() {
		dir := b.TempDir()
		s, done := chat(b, dir)
		words := rand.New(rand.NewPCG(1, 2))
		ask, answerText := func() string { return question }, func() string { return answer }
		if varied {
			ask, answerText = func() string { return prose(words, 200) }, func() string { return prose(words, 300) }
		}
		m := scripted.New(scripted.Repeat(scripted.Func(func(context.Context, *model.Request) (*model.Response, error) {
			return &model.Response{Message: model.AssistantMessage(answerText())}, nil
		})))
		ctx := context.Background()
		last := ""
		for range 1000 {
			resp, err := runner.Evaluate(ctx, runner.Request{Prompt: p, Session: s, Model: m, UserMessage: ask(), Continue: last})
			if err != nil {
				b.Fatal(err)
			}
			last = resp.Evaluation
		}
		done()
		fi, err := os.Stat(filepath.Join(dir, "sessions.db"))
		require.NoError(b, err)
		b.ReportMetric(float64(fi.Size())/500_000, "ratio")
		b.ReportMetric(float64(fi.Size()), "file-bytes")
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
	st, err := sqlite.Open(filepath.Join(dir, "sessions.db"))
	require.NoError(b, err)
	defer st.Close()
	ctx := context.Background()
	j := store.NewJournal(st, store.JournalOptions{CheckpointEvery: -1})
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
