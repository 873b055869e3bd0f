package openai_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/openai"
)

// silentServer accepts every request and never answers it: the handler
// waits until the client gives up. chunk, when set, is written and
// flushed first (a stream that stalls after one piece).
func silentServer(t *testing.T, chunk string) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var calls atomic.Int32
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		_, _ = io.Copy(io.Discard, r.Body) // so that the server sees the client leave
		if chunk != "" {
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = io.WriteString(w, chunk)
			w.(http.Flusher).Flush()
		}
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) }) // runs first
	return srv, &calls
}

func req() *model.Request {
	return &model.Request{Messages: []model.Message{model.UserMessage("hi")}}
}

// A server that never answers costs at most the timeout of a whole call,
// retries included, and the error says which bound fired and how to
// change it. The bound under test is small; nothing here waits on the
// machine's speed, since the server never answers at all.
func TestACallThatNeverEndsIsBounded(t *testing.T) {
	for _, stream := range []bool{false, true} {
		t.Run(fmt.Sprintf("stream=%v", stream), func(t *testing.T) {
			srv, _ := silentServer(t, "")
			m, err := openai.New(openai.Config{BaseURL: srv.URL + "/v1", Model: "m", HTTPClient: srv.Client(),
				MaxRetries: 2, Timeout: 300 * time.Millisecond, StallTimeout: time.Hour})
			require.NoError(t, err)
			if stream {
				_, err = m.Stream(context.Background(), req(), nil)
			} else {
				_, err = m.Generate(context.Background(), req())
			}
			require.Error(t, err)
			assert.ErrorIs(t, err, model.ErrTimeout)
			assert.ErrorIs(t, err, context.DeadlineExceeded)
			var te *model.TimeoutError
			require.ErrorAs(t, err, &te)
			assert.False(t, te.Stall)
			assert.Equal(t, 300*time.Millisecond, te.Limit)
			assert.Contains(t, err.Error(), "the timeout of a whole call")
			assert.Contains(t, err.Error(), "LLM_TIMEOUT")
		})
	}
}

// A stream that stalls after its first piece ends with the stall bound's
// error, and what arrived is kept as a partial answer.
func TestAStreamThatStallsIsBounded(t *testing.T) {
	srv, calls := silentServer(t, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"}}]}\n\n")
	m, err := openai.New(openai.Config{BaseURL: srv.URL + "/v1", Model: "m", HTTPClient: srv.Client(),
		MaxRetries: 2, StallTimeout: 200 * time.Millisecond})
	require.NoError(t, err)
	var text strings.Builder
	resp, err := m.Stream(context.Background(), req(), func(d model.Delta) error { text.WriteString(d.Text); return nil })
	require.Error(t, err)
	var te *model.TimeoutError
	require.ErrorAs(t, err, &te)
	assert.True(t, te.Stall)
	assert.Contains(t, err.Error(), "LLM_STALL_TIMEOUT")
	assert.Equal(t, "Hel", text.String())
	require.NotNil(t, resp, "the partial answer")
	assert.Equal(t, "Hel", resp.Message.Content)
	assert.EqualValues(t, 1, calls.Load(), "an answer had begun: not retried")
}

// A streamed request the server does not even begin to answer within the
// stall bound is retried, as a dropped connection is.
func TestAStallBeforeTheAnswerIsRetried(t *testing.T) {
	var calls atomic.Int32
	release := make(chan struct{})
	defer close(release)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		if calls.Add(1) == 1 {
			select {
			case <-r.Context().Done():
			case <-release:
			}
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	}))
	defer srv.Close()
	clock := newFakeClock()
	m, err := openai.New(openai.Config{BaseURL: srv.URL + "/v1", Model: "m", HTTPClient: srv.Client(),
		MaxRetries: 2, StallTimeout: 200 * time.Millisecond, Sleep: clock.Sleep, Now: clock.Now, Rand: func() float64 { return 0 }})
	require.NoError(t, err)
	resp, err := m.Stream(context.Background(), req(), nil)
	require.NoError(t, err)
	assert.Equal(t, "ok", resp.Message.Content)
	assert.EqualValues(t, 2, calls.Load())
}

// NoStream (LLM_STREAM=false, "stream": false) asks for a whole answer
// and still delivers it to the stream's callback.
func TestNoStream(t *testing.T) {
	ws := newWireServer(t, reply{status: 200, body: finalReply})
	m := newTestModel(t, ws, newFakeClock(), func(c *openai.Config) { c.NoStream = true })
	var text strings.Builder
	resp, err := m.Stream(context.Background(), req(), func(d model.Delta) error { text.WriteString(d.Text); return nil })
	require.NoError(t, err)
	assert.Equal(t, "It is sunny in Paris.", resp.Message.Content)
	assert.Equal(t, "It is sunny in Paris.", text.String())
	got := ws.received()[0]
	assert.NotEqual(t, true, got.body["stream"], "no stream: true on the wire")
	assert.NotContains(t, got.raw, `"stream":true`)
	assert.Equal(t, "application/json", got.header.Get("Accept"))
}

// The model configuration's settings reach the adapter through Factory.
func TestFactoryTakesTimeoutsAndStream(t *testing.T) {
	ws := newWireServer(t, reply{status: 200, body: finalReply})
	no := false
	f := openai.Factory(openai.Config{HTTPClient: ws.Client()})
	m, err := f("main", model.ModelConfig{ModelID: "m", BaseURL: ws.URL + "/v1", Stream: &no})
	require.NoError(t, err)
	_, err = m.(model.Streamer).Stream(context.Background(), req(), nil)
	require.NoError(t, err)
	assert.NotContains(t, ws.received()[0].raw, `"stream":true`)

	srv, _ := silentServer(t, "")
	m, err = f("main", model.ModelConfig{ModelID: "m", BaseURL: srv.URL + "/v1", Timeout: model.Duration(200 * time.Millisecond)})
	require.NoError(t, err)
	_, err = m.Generate(context.Background(), req())
	assert.ErrorIs(t, err, model.ErrTimeout)
}

// No error shows the key: not a server's echo of it, whole or streamed,
// nor a key in the base URL's query, which is kept out of the path too.
func TestErrorsNeverShowTheKey(t *testing.T) {
	const key = "sk-canary-0123456789"
	t.Run("a 401 that echoes the key", func(t *testing.T) {
		ws := newWireServer(t, reply{status: 401, body: errorBody("Incorrect API key provided: "+key, "invalid_request_error", "invalid_api_key")})
		m := newTestModel(t, ws, newFakeClock(), func(c *openai.Config) { c.APIKey = key })
		_, err := m.Generate(context.Background(), req())
		require.ErrorIs(t, err, model.ErrAuth)
		assert.NotContains(t, err.Error(), key)
		assert.Contains(t, err.Error(), "[REDACTED]")
		var api *model.APIError
		require.ErrorAs(t, err, &api)
		assert.NotContains(t, api.Message, key)
	})
	t.Run("a 401 inside a stream gets the key advice", func(t *testing.T) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			body, _ := json.Marshal(map[string]any{"error": map[string]any{"message": "bad key " + key, "type": "authentication_error", "code": "invalid_api_key"}})
			_, _ = fmt.Fprintf(w, "data: %s\n\n", body)
		}))
		defer srv.Close()
		m, err := openai.New(openai.Config{BaseURL: srv.URL + "/v1", APIKey: key, Model: "m", HTTPClient: srv.Client()})
		require.NoError(t, err)
		_, err = m.Stream(context.Background(), req(), nil)
		require.ErrorIs(t, err, model.ErrAuth)
		assert.NotContains(t, err.Error(), key)
	})
	t.Run("a key in the base URL's query", func(t *testing.T) {
		var path, query string
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			path, query = r.URL.Path, r.URL.RawQuery
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, finalReply)
		}))
		defer srv.Close()
		m, err := openai.New(openai.Config{BaseURL: srv.URL + "/v1?key=" + key, Model: "m", HTTPClient: srv.Client()})
		require.NoError(t, err)
		_, err = m.Generate(context.Background(), req())
		require.NoError(t, err)
		assert.Equal(t, "/v1/chat/completions", path)
		assert.Equal(t, "key="+key, query)

		l, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		addr := l.Addr().String()
		require.NoError(t, l.Close()) // nothing listens there now
		m, err = openai.New(openai.Config{BaseURL: "http://" + addr + "/v1?key=" + key, Model: "m"})
		require.NoError(t, err)
		_, err = m.Generate(context.Background(), req())
		require.Error(t, err)
		assert.NotContains(t, err.Error(), key)
		assert.Contains(t, err.Error(), "/v1/chat/completions?key=")
	})
}

// A web page, or a 404 on the completions path, says the base URL is
// probably wrong instead of "the stream ended".
func TestAWebPageSaysTheBaseURLIsWrong(t *testing.T) {
	page := func(status int) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.WriteHeader(status)
			_, _ = io.WriteString(w, "<!DOCTYPE html><html><body>Welcome</body></html>")
		}
	}
	for _, tt := range []struct {
		name    string
		handler http.HandlerFunc
		stream  bool
	}{
		{"a page with status 200, streamed", page(200), true},
		{"a page with status 200, whole", page(200), false},
		{"a 404 page", page(404), true},
		{"a 404 in JSON", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(404)
			_, _ = io.WriteString(w, `{"detail":"Not Found"}`)
		}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(tt.handler)
			defer srv.Close()
			m, err := openai.New(openai.Config{BaseURL: srv.URL, Model: "m", HTTPClient: srv.Client()})
			require.NoError(t, err)
			if tt.stream {
				_, err = m.Stream(context.Background(), req(), nil)
			} else {
				_, err = m.Generate(context.Background(), req())
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), "probably lacks /v1")
			assert.NotContains(t, err.Error(), "stream ended")
		})
	}
}

// A tool call whose arguments come in one 10 MB event reaches the caller
// (which refuses it as one failed call) instead of failing the request.
func TestABigToolCallInOneEvent(t *testing.T) {
	args := `{"content":"` + strings.Repeat("x", 10<<20) + `"}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		call, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"tool_calls": []any{
			map[string]any{"index": 0, "id": "c1", "type": "function", "function": map[string]any{"name": "write_file", "arguments": args}}}}}}})
		fmt.Fprintf(w, "data: %s\n\n", call)
		fmt.Fprint(w, "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\ndata: [DONE]\n\n")
	}))
	defer srv.Close()
	m, err := openai.New(openai.Config{BaseURL: srv.URL + "/v1", Model: "m", HTTPClient: srv.Client()})
	require.NoError(t, err)
	resp, err := m.Stream(context.Background(), req(), nil)
	require.NoError(t, err)
	require.Len(t, resp.Message.ToolCalls, 1)
	assert.Len(t, resp.Message.ToolCalls[0].Arguments, len(args))
}

// A server that sends no usage gives a usage marked unreported, whole or
// streamed, so that a program says "unknown" rather than "0 tokens".
func TestNoUsageIsUnreported(t *testing.T) {
	noUsage := `{"id":"c","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}]}`
	ws := newWireServer(t, reply{status: 200, body: noUsage}, reply{status: 200, body: finalReply})
	m := newTestModel(t, ws, newFakeClock(), func(c *openai.Config) { c.NoStream = true })
	resp, err := m.Generate(context.Background(), req())
	require.NoError(t, err)
	assert.True(t, resp.Usage.Unreported)
	resp, err = m.Generate(context.Background(), req())
	require.NoError(t, err)
	assert.False(t, resp.Usage.Unreported, "a reported usage")
	assert.Equal(t, 128, resp.Usage.TotalTokens)

	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	}))
	defer srv.Close()
	sm, err := openai.New(openai.Config{BaseURL: srv.URL + "/v1", Model: "m", HTTPClient: srv.Client()})
	require.NoError(t, err)
	resp, err = sm.Stream(context.Background(), req(), nil)
	require.NoError(t, err)
	assert.True(t, resp.Usage.Unreported)
	assert.True(t, resp.Usage.Add(model.Usage{TotalTokens: 5}).Unreported, "a sum with an unknown part is a lower bound")
}
