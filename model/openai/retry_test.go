package openai_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/openai"
)

func TestRetryAfterHonoured(t *testing.T) {
	tests := []struct {
		name   string
		header map[string]string
		want   time.Duration
	}{
		{"seconds", map[string]string{"Retry-After": "3"}, 3 * time.Second},
		{"milliseconds", map[string]string{"Retry-After-Ms": "1500", "Retry-After": "2"}, 1500 * time.Millisecond},
		{"http date", map[string]string{"Retry-After": newFakeClock().now.Add(7 * time.Second).Format(http.TimeFormat)}, 7 * time.Second},
		{"shorter than backoff", map[string]string{"Retry-After": "0.1"}, 500 * time.Millisecond},
		{"absent", nil, 500 * time.Millisecond},
		{"with a 503", map[string]string{"Retry-After": "4", "X-Status": "503"}, 4 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			first := reply{status: 429, header: tt.header, body: errorBody("Rate limit reached for requests", "requests", "rate_limit_exceeded")}
			if tt.header["X-Status"] == "503" {
				first = reply{status: 503, header: tt.header, body: errorBody("overloaded", "server_error", "")}
			}
			ws := newWireServer(t, first,
				reply{status: 200, body: finalReply})
			clock := newFakeClock()
			m := newTestModel(t, ws, clock)
			resp, err := m.Generate(context.Background(), &model.Request{Messages: []model.Message{model.UserMessage("hi")}})
			require.NoError(t, err)
			assert.Equal(t, "It is sunny in Paris.", resp.Message.Content)
			assert.Equal(t, []time.Duration{tt.want}, clock.Sleeps())
			assert.Len(t, ws.received(), 2)
		})
	}
}

func TestServerErrorsUntilBudgetEnds(t *testing.T) {
	replies := make([]reply, 10)
	for i := range replies {
		replies[i] = reply{status: 500, body: errorBody("The server had an error while processing your request.", "server_error", "")}
	}
	ws := newWireServer(t, replies...)
	clock := newFakeClock()
	m := newTestModel(t, ws, clock, func(c *openai.Config) {
		c.Rand = func() float64 { return 1 }
		c.MaxRetries = 100
		c.RetryBudget = 10 * time.Second
		c.BaseDelay = time.Second
	})
	_, err := m.Generate(context.Background(), &model.Request{Messages: []model.Message{model.UserMessage("hi")}})
	require.Error(t, err)
	var apiErr *model.APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, 500, apiErr.StatusCode)
	assert.Empty(t, apiErr.Code, "a null code stays empty")
	assert.Contains(t, err.Error(), "giving up after 4 attempts")
	assert.Contains(t, err.Error(), "retry budget of 10s")
	// Waits 1s, 2s, 4s; the next (8s) would end at 15s, past the budget.
	assert.Equal(t, []time.Duration{time.Second, 2 * time.Second, 4 * time.Second}, clock.Sleeps())
	assert.Len(t, ws.received(), 4)
}

func TestMaxRetries(t *testing.T) {
	ws := newWireServer(t,
		reply{status: 503, body: `upstream unavailable`},
		reply{status: 502, body: `bad gateway`},
		reply{status: 503, body: `upstream unavailable`})
	clock := newFakeClock()
	m := newTestModel(t, ws, clock, func(c *openai.Config) { c.MaxRetries = 2 })
	_, err := m.Generate(context.Background(), &model.Request{Messages: []model.Message{model.UserMessage("hi")}})
	var apiErr *model.APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, 503, apiErr.StatusCode)
	assert.Equal(t, "upstream unavailable", apiErr.Message)
	assert.Contains(t, err.Error(), "giving up after 3 attempts (the retry limit)")
	assert.Equal(t, []time.Duration{500 * time.Millisecond, time.Second}, clock.Sleeps())
}

func TestErrorsNotRetried(t *testing.T) {
	tests := []struct {
		name    string
		reply   reply
		is      error
		status  int
		wantMsg string
	}{
		{
			name:   "401",
			reply:  reply{status: 401, body: errorBody("Incorrect API key provided: sk-test.", "invalid_request_error", "invalid_api_key")},
			is:     model.ErrAuth,
			status: 401, wantMsg: "check the API key",
		},
		{
			name:   "403",
			reply:  reply{status: 403, body: errorBody("You are not allowed to sample from this model", "invalid_request_error", "")},
			is:     model.ErrAuth,
			status: 403,
		},
		{
			name: "context length",
			reply: reply{status: 400, body: errorBody("This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.",
				"invalid_request_error", "context_length_exceeded")},
			is:     model.ErrContextLength,
			status: 400, wantMsg: "code context_length_exceeded",
		},
		{
			name:   "context length, vLLM style",
			reply:  reply{status: 400, body: `{"object":"error","message":"This model's maximum context length is 4096 tokens.","type":"BadRequestError","param":null,"code":400}`},
			status: 400, wantMsg: "maximum context length",
		},
		{
			name:   "other 400",
			reply:  reply{status: 400, body: errorBody("Invalid value for 'tool_choice'.", "invalid_request_error", "invalid_value")},
			status: 400, wantMsg: "Invalid value",
		},
		{
			name:   "404",
			reply:  reply{status: 404, body: errorBody("The model `gpt-test` does not exist", "invalid_request_error", "model_not_found")},
			status: 404,
		},
		{
			name:   "quota exhausted",
			reply:  reply{status: 429, header: map[string]string{"Retry-After": "1"}, body: errorBody("You exceeded your current quota.", "insufficient_quota", "insufficient_quota")},
			is:     model.ErrQuota,
			status: 429,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := newWireServer(t, tt.reply, reply{status: 200, body: finalReply})
			clock := newFakeClock()
			m := newTestModel(t, ws, clock)
			_, err := m.Generate(context.Background(), &model.Request{Messages: []model.Message{model.UserMessage("hi")}})
			require.Error(t, err)
			if tt.is != nil {
				assert.ErrorIs(t, err, tt.is)
			}
			if tt.name == "context length, vLLM style" {
				assert.ErrorIs(t, err, model.ErrContextLength)
			}
			var apiErr *model.APIError
			require.ErrorAs(t, err, &apiErr)
			assert.Equal(t, tt.status, apiErr.StatusCode)
			assert.Contains(t, err.Error(), tt.wantMsg)
			assert.Len(t, ws.received(), 1, "not retried")
			assert.Empty(t, clock.Sleeps())
		})
	}
}

func TestCancelDuringBackoffReturnsPromptly(t *testing.T) {
	ws := newWireServer(t, reply{status: 503, header: map[string]string{"Retry-After": "60"}, body: errorBody("overloaded", "server_error", "")})
	retrying := make(chan struct{}, 1)
	m, err := openai.New(openai.Config{ // the real sleep and clock
		BaseURL: ws.URL + "/v1", Model: "gpt-test", HTTPClient: ws.Client(), MaxRetries: 4,
		Logger: slog.New(signalHandler{retrying}), // logs just before the backoff starts
	})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		select {
		case <-retrying:
			time.Sleep(10 * time.Millisecond)
		case <-time.After(10 * time.Second): // watchdog: the retry never started
		}
		cancel()
	}()
	start := time.Now()
	_, err = m.Generate(ctx, &model.Request{Messages: []model.Message{model.UserMessage("hi")}})
	<-done
	assert.Less(t, time.Since(start), 5*time.Second, "the 60s Retry-After wait was not cut short")
	require.ErrorIs(t, err, context.Canceled)
	var apiErr *model.APIError
	require.ErrorAs(t, err, &apiErr, "the last provider error is kept")
	assert.Equal(t, 503, apiErr.StatusCode)
	assert.Contains(t, err.Error(), "while waiting 1m0s to retry")
	assert.Len(t, ws.received(), 1)
}

func TestCancelDuringCall(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	m, err := openai.New(openai.Config{BaseURL: srv.URL + "/v1", Model: "m", HTTPClient: srv.Client()})
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err = m.Generate(ctx, &model.Request{Messages: []model.Message{model.UserMessage("hi")}})
	require.ErrorIs(t, err, context.DeadlineExceeded)
}

// signalHandler is a slog.Handler that signals each record on a channel.
type signalHandler struct{ ch chan struct{} }

func (h signalHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h signalHandler) Handle(context.Context, slog.Record) error {
	select {
	case h.ch <- struct{}{}:
	default:
	}
	return nil
}
func (h signalHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h signalHandler) WithGroup(string) slog.Handler      { return h }

func TestRateLimitBeyondBudgetReturnsRetryAfter(t *testing.T) {
	ws := newWireServer(t, reply{status: 429, header: map[string]string{"Retry-After": "120"}, body: errorBody("slow down", "requests", "rate_limit_exceeded")})
	clock := newFakeClock()
	m := newTestModel(t, ws, clock, func(c *openai.Config) { c.RetryBudget = time.Minute })
	_, err := m.Generate(context.Background(), &model.Request{Messages: []model.Message{model.UserMessage("hi")}})
	var rl *model.RateLimitError
	require.ErrorAs(t, err, &rl)
	assert.Equal(t, 120*time.Second, rl.RetryAfter)
	assert.Empty(t, clock.Sleeps())
}

func TestTransportError(t *testing.T) {
	ws := newWireServer(t)
	url := ws.URL
	ws.Close()
	m, err := openai.New(openai.Config{BaseURL: url + "/v1", Model: "m", HTTPClient: ws.Client()})
	require.NoError(t, err)
	_, err = m.Generate(context.Background(), &model.Request{Messages: []model.Message{model.UserMessage("hi")}})
	require.Error(t, err)
	var apiErr *model.APIError
	assert.False(t, errors.As(err, &apiErr), "a transport error is not a provider error")
	assert.Contains(t, err.Error(), "openai: chat completion")
}

func TestDroppedConnectionsAreRetried(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				_ = conn.Close() // cut before any answer
			}
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, finalReply)
	}))
	defer srv.Close()
	clock := newFakeClock()
	m, err := openai.New(openai.Config{BaseURL: srv.URL + "/v1", Model: "m", HTTPClient: srv.Client(), MaxRetries: 1,
		Rand: func() float64 { return 0.5 }, Sleep: clock.Sleep, Now: clock.Now})
	require.NoError(t, err)
	resp, err := m.Generate(context.Background(), &model.Request{Messages: []model.Message{model.UserMessage("hi")}})
	require.NoError(t, err)
	assert.Equal(t, "It is sunny in Paris.", resp.Message.Content)
	assert.EqualValues(t, 2, calls.Load())
	assert.Len(t, clock.Sleeps(), 1, "one backoff before the retry")
}
