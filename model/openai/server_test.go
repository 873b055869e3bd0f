package openai_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/model/openai"
)

// reply is one scripted HTTP answer of the fake server.
type reply struct {
	status int
	header map[string]string
	body   string
}

// received is one request as the fake server saw it.
type received struct {
	method, path string
	header       http.Header
	body         map[string]any
	raw          string
}

// wireServer is an httptest server speaking the Chat Completions wire
// format: it records every request and answers with the scripted replies
// in order (a 500 once they run out).
type wireServer struct {
	*httptest.Server
	mu       sync.Mutex
	replies  []reply
	requests []received
	arrived  chan struct{}
}

func newWireServer(t *testing.T, replies ...reply) *wireServer {
	t.Helper()
	ws := &wireServer{replies: replies, arrived: make(chan struct{}, 100)}
	ws.Server = httptest.NewServer(http.HandlerFunc(ws.serve))
	t.Cleanup(ws.Close)
	return ws
}

func (ws *wireServer) serve(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	var body map[string]any
	_ = json.Unmarshal(raw, &body)
	ws.mu.Lock()
	ws.requests = append(ws.requests, received{method: r.Method, path: r.URL.Path, header: r.Header.Clone(), body: body, raw: string(raw)})
	rep := reply{status: 500, body: `{"error":{"message":"test server: no reply scripted","type":"server_error","param":null,"code":null}}`}
	if len(ws.replies) > 0 {
		rep, ws.replies = ws.replies[0], ws.replies[1:]
	}
	ws.mu.Unlock()
	ws.arrived <- struct{}{}
	for k, v := range rep.header {
		w.Header().Set(k, v)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(rep.status)
	_, _ = io.WriteString(w, rep.body)
}

func (ws *wireServer) received() []received {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	return append([]received(nil), ws.requests...)
}

// fakeClock is a clock whose Sleep advances time instantly and records the
// waits.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	sleeps []time.Duration
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sleeps = append(c.sleeps, d)
	c.now = c.now.Add(d)
	return ctx.Err()
}

func (c *fakeClock) Sleeps() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.sleeps...)
}

// newTestModel returns a Model talking to ws with a fake clock and a fixed
// jitter of one half.
func newTestModel(t *testing.T, ws *wireServer, clock *fakeClock, mutate ...func(*openai.Config)) *openai.Model {
	t.Helper()
	cfg := openai.Config{
		BaseURL:    ws.URL + "/v1",
		APIKey:     "sk-test",
		Model:      "gpt-test",
		HTTPClient: ws.Client(),
		MaxRetries: openai.DefaultMaxRetries,
		Rand:       func() float64 { return 0.5 },
		Sleep:      clock.Sleep,
		Now:        clock.Now,
	}
	for _, f := range mutate {
		f(&cfg)
	}
	m, err := openai.New(cfg)
	require.NoError(t, err)
	return m
}

// errorBody is an error body shaped like the OpenAI API's.
func errorBody(message, typ, code string) string {
	b, _ := json.Marshal(map[string]any{"error": map[string]any{
		"message": message, "type": typ, "param": nil, "code": nullable(code),
	}})
	return string(b)
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// jsonOf re-encodes a decoded JSON value, for assert.JSONEq.
func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}
