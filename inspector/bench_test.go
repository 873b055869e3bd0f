package inspector_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/inspector"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/store"
	"github.com/offshoot-dev/offshoot/store/sqlite"
)

// benchDir holds the SQLite files the benchmarks fill once per run.
var benchDir = sync.OnceValue(func() string {
	dir, err := os.MkdirTemp("", "inspector-bench-")
	if err != nil {
		panic(err)
	}
	return dir
})

// benchStore opens the SQLite file name of benchDir, filling it with fill
// the first time.
func benchStore(b *testing.B, name string, fill func(st store.Store)) store.Store {
	b.Helper()
	path := filepath.Join(benchDir(), name)
	_, err := os.Stat(path)
	fresh := os.IsNotExist(err)
	st, err := sqlite.Open(context.Background(), path)
	require.NoError(b, err)
	b.Cleanup(func() { st.Close() })
	if fresh {
		fill(st)
	}
	return st
}

// BenchmarkSessionsPage serves the sessions page over 10,000 stored
// sessions, as the browser asks for it: the first page, a page sorted by
// tokens, a search. Bar: 200 ms of server time.
func BenchmarkSessionsPage(b *testing.B) {
	ctx := context.Background()
	st := benchStore(b, "sessions.db", func(st store.Store) {
		for i := range 10_000 {
			tags := map[string]string{"offshoot.kind": "chat", "offshoot.question": fmt.Sprintf("Question number %d about the release notes", i),
				"offshoot.turns": strconv.Itoa(i % 17), "offshoot.tokens": strconv.Itoa(i * 31)}
			require.NoError(b, st.Create(ctx, store.Header{ID: fmt.Sprintf("session-%05d", i), Tags: tags}))
		}
	})
	s, err := inspector.New(st, inspector.Options{Host: host, Token: "tok"})
	require.NoError(b, err)
	for _, target := range []string{"/", "/?sort=tokens&order=asc&page=7", "/?q=number+99"} {
		b.Run(strings.TrimPrefix(target, "/"), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if code, body := get(b, s, target); code != 200 {
					b.Fatal(body)
				}
			}
		})
	}
}

// longEvents is how many events the long session of BenchmarkLongSession
// holds, in batches of five (a model turn with a tool call).
const longEvents = 100_000

// BenchmarkLongSession serves the first page of a session of 100,000
// events: what the browser shows first. Bar: 300 ms, 50 MB of heap.
func BenchmarkLongSession(b *testing.B) {
	ctx := context.Background()
	st := benchStore(b, "long.db", func(st store.Store) {
		require.NoError(b, st.Create(ctx, store.Header{ID: "long"}))
		for seq := uint64(1); seq <= longEvents; seq += 5 {
			require.NoError(b, st.Append(ctx, "long", turn(b, seq)))
		}
	})
	s, err := inspector.New(st, inspector.Options{Host: host, Token: "tok"})
	require.NoError(b, err)
	b.ReportAllocs()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for b.Loop() {
		if code, body := get(b, s, "/session?id=long"); code != 200 || !strings.Contains(body, "more batches") {
			b.Fatal(code, body[:min(len(body), 500)])
		}
	}
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/1e6, "alloc-MB/op")
}

// turn returns a batch of five events from seq: a model turn with a tool
// call and its result.
func turn(b *testing.B, seq uint64) store.Batch {
	events := []any{
		runner.ConversationMessage{Evaluation: "e", Message: model.AssistantMessage("Let me look at the notes.", model.ToolCall{ID: "c" + strconv.FormatUint(seq, 10), Name: "read_file", Arguments: `{"file_path":"notes.md"}`})},
		runner.ModelCalled{Evaluation: "e", Model: "gpt-bench", Usage: model.Usage{InputTokens: 900, CachedInputTokens: 600, OutputTokens: 40, TotalTokens: 940}, Duration: time.Second},
		runner.ToolInvoked{Evaluation: "e", Name: "read_file", CallID: "c", Arguments: json.RawMessage(`{"file_path":"notes.md"}`), Result: "   1 | ship on Friday", Success: true},
		runner.ConversationMessage{Evaluation: "e", Message: model.ToolMessage("c", "read_file", "   1 | ship on Friday")},
		runner.Inbound{Source: "bench", Text: "carry on"},
	}
	batch := store.Batch{Seq: seq, Time: time.Now()}
	for _, e := range events {
		data, err := json.Marshal(e)
		require.NoError(b, err)
		batch.Events = append(batch.Events, store.Event{Type: eventName(e), Data: data})
	}
	return batch
}

// BenchmarkLiveBatch measures how long a batch takes from its commit to
// a live page's stream. Bar: 500 ms.
func BenchmarkLiveBatch(b *testing.B) {
	ctx, cancel := context.WithTimeout(context.Background(), watchdog)
	defer cancel()
	st, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "live.db"))
	require.NoError(b, err)
	defer st.Close()
	require.NoError(b, st.Create(ctx, store.Header{ID: "live"}))
	ts := httptest.NewUnstartedServer(nil)
	s, err := inspector.New(st, inspector.Options{Host: ts.Listener.Addr().String(), Token: "tok"})
	require.NoError(b, err)
	ts.Config.Handler = s
	ts.Start()
	defer ts.Close()
	defer ts.CloseClientConnections()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, ts.URL+"/live?id=live&after=0", nil)
	require.NoError(b, err)
	req.AddCookie(&http.Cookie{Name: "offshoot_ui_" + ts.URL[strings.LastIndexByte(ts.URL, ':')+1:], Value: "tok"})
	resp, err := ts.Client().Do(req)
	require.NoError(b, err)
	defer resp.Body.Close()
	lines := bufio.NewScanner(resp.Body)
	lines.Buffer(nil, 1<<20)
	require.True(b, lines.Scan(), "the stream opens")
	seq := uint64(1)
	for b.Loop() {
		require.NoError(b, st.Append(ctx, "live", turn(b, seq)))
		seq += 5
		for lines.Scan() && !strings.HasPrefix(lines.Text(), "data: ") {
		}
		require.NoError(b, lines.Err())
	}
}
