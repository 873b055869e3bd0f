package anthropic_test

import (
	"context"
	"errors"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/anthropic"
	"github.com/offshoot-dev/offshoot/model/anthropic/anthropictest"
)

// Errors map to the model package's kinds with advice; throttling (with
// its retry-after) and overload are retried by the retry policy, a bad
// key, a forbidden model, a prompt too long and an empty balance are not.
func TestErrorsAndRetries(t *testing.T) {
	ctx := watchdog(t)
	tests := []struct {
		name     string
		err      anthropictest.Turn
		attempts int // requests the server receives with 2 retries allowed, when every one fails
		is       error
		waited   time.Duration // the least the first retry waits
		says     string
	}{
		{"throttled", anthropictest.Turn{Status: 429, ErrorType: "rate_limit_error", ErrorMessage: "Number of request tokens has exceeded your per-minute rate limit", RetryAfter: "7"},
			3, model.ErrRateLimited, 7 * time.Second, "per-minute rate limit"},
		{"overloaded", anthropictest.Turn{Status: 529, ErrorType: "overloaded_error", ErrorMessage: "Overloaded"}, 3, nil, 0, "HTTP 529"},
		{"server error", anthropictest.Turn{Status: 500, ErrorType: "api_error", ErrorMessage: "Internal server error"}, 3, nil, 0, "Internal server error"},
		{"bad key", anthropictest.Turn{Status: 401, ErrorType: "authentication_error", ErrorMessage: "invalid x-api-key"}, 1, model.ErrAuth, 0, "ANTHROPIC_API_KEY"},
		{"forbidden", anthropictest.Turn{Status: 403, ErrorType: "permission_error", ErrorMessage: "Your API key does not have permission to use the specified resource."}, 1, model.ErrAuth, 0, "permission"},
		{"prompt too long", anthropictest.Turn{Status: 400, ErrorType: "invalid_request_error", ErrorMessage: "prompt is too long: 208310 tokens > 200000 maximum"},
			1, model.ErrContextLength, 0, "shorten the conversation"},
		{"no credit", anthropictest.Turn{Status: 400, ErrorType: "invalid_request_error", ErrorMessage: "Your credit balance is too low to access the Anthropic API."},
			1, model.ErrQuota, 0, "add credit"},
		{"bad request", anthropictest.Turn{Status: 400, ErrorType: "invalid_request_error", ErrorMessage: "max_tokens: Field required"}, 1, nil, 0, "max_tokens: Field required"},
	}
	for _, tt := range tests {
		for how, do := range calls {
			t.Run(tt.name+"/"+how, func(t *testing.T) {
				srv := anthropictest.NewServer()
				defer srv.Close()
				var n atomic.Int32
				srv.Answer = func([]byte) anthropictest.Turn {
					n.Add(1)
					return tt.err
				}
				var waits []time.Duration
				m := newModel(t, srv, anthropic.Config{MaxRetries: 2, Rand: func() float64 { return 0 }, APIKey: "sk-ant-secret-key",
					Sleep: func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }})
				_, _, err := do(ctx, m, &model.Request{Messages: []model.Message{model.UserMessage("Hi")}})
				require.Error(t, err)
				assert.Equal(t, tt.attempts, int(n.Load()), "requests sent")
				if tt.is != nil {
					assert.ErrorIs(t, err, tt.is)
				}
				var api *model.APIError
				require.ErrorAs(t, err, &api)
				assert.Equal(t, tt.err.Status, api.StatusCode)
				assert.Equal(t, tt.err.ErrorType, api.Code)
				assert.Contains(t, err.Error(), tt.says)
				assert.NotContains(t, err.Error(), "sk-ant-secret-key")
				if tt.waited > 0 {
					require.NotEmpty(t, waits)
					assert.GreaterOrEqual(t, waits[0], tt.waited)
				}
			})
		}
	}
}

// A retried call succeeds once the server recovers.
func TestRetryThenSucceed(t *testing.T) {
	ctx := watchdog(t)
	srv := anthropictest.NewServer()
	defer srv.Close()
	var n atomic.Int32
	srv.Answer = func([]byte) anthropictest.Turn {
		if n.Add(1) < 3 {
			return anthropictest.Turn{Status: 529, ErrorType: "overloaded_error", ErrorMessage: "Overloaded"}
		}
		return anthropictest.Turn{Text: "Back."}
	}
	m := newModel(t, srv, anthropic.DefaultConfig())
	resp, err := m.Generate(ctx, &model.Request{Messages: []model.Message{model.UserMessage("Hi")}})
	require.NoError(t, err)
	assert.Equal(t, "Back.", resp.Message.Content)
	assert.Equal(t, int32(3), n.Load())
}

// An error the server sends inside a stream (overloaded mid-answer) is
// mapped, and the text received before it is returned with it.
func TestStreamErrorEvent(t *testing.T) {
	ctx := watchdog(t)
	srv := httpServer(t, "text/event-stream", "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"model\":\"claude-sonnet-4-5\",\"usage\":{\"input_tokens\":10,\"output_tokens\":1}}}\n\n"+
		"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"+
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Half\"}}\n\n"+
		"event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n")
	m, err := anthropic.New(anthropic.Config{BaseURL: srv.URL, HTTPClient: srv.Client(), Model: "claude-sonnet-4-5", MaxRetries: 3})
	require.NoError(t, err)
	resp, err := m.Stream(ctx, &model.Request{Messages: []model.Message{model.UserMessage("Hi")}}, nil)
	var api *model.APIError
	require.ErrorAs(t, err, &api)
	assert.Equal(t, "overloaded_error", api.Code)
	require.NotNil(t, resp)
	assert.Equal(t, "Half", resp.Message.Content)
	assert.Empty(t, resp.FinishReason)
}

// A stream cut before message_stop is a "response body invalid" error,
// not a retried one.
func TestStreamCutShort(t *testing.T) {
	ctx := watchdog(t)
	srv := httpServer(t, "text/event-stream", "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"usage\":{\"input_tokens\":10}}}\n\n")
	m, err := anthropic.New(anthropic.Config{BaseURL: srv.URL, HTTPClient: srv.Client(), Model: "claude-sonnet-4-5", MaxRetries: 3})
	require.NoError(t, err)
	_, err = m.Stream(ctx, &model.Request{Messages: []model.Message{model.UserMessage("Hi")}}, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "response body invalid")
	assert.Contains(t, err.Error(), "no message_stop")
}

// A cancelled context ends the call with the context's error.
func TestCancelled(t *testing.T) {
	srv := anthropictest.NewServer()
	defer srv.Close()
	m := newModel(t, srv, anthropic.DefaultConfig())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := m.Generate(ctx, &model.Request{Messages: []model.Message{model.UserMessage("Hi")}})
	assert.True(t, errors.Is(err, context.Canceled), "%v", err)
}

// Bad configuration is refused with what to do.
func TestNewRefusesBadConfig(t *testing.T) {
	for _, cfg := range []anthropic.Config{{BaseURL: "api.anthropic.com"}, {MaxRetries: -1}, {ThinkingBudget: -5}} {
		_, err := anthropic.New(cfg)
		assert.Error(t, err)
	}
	m, err := anthropic.New(anthropic.Config{})
	require.NoError(t, err)
	_, err = m.Generate(context.Background(), &model.Request{Messages: []model.Message{model.UserMessage("Hi")}})
	assert.ErrorContains(t, err, "no model id")
}

// httpServer is a server that answers every request with body.
func httpServer(t *testing.T, contentType, body string) *httptestServer {
	t.Helper()
	return newHTTPServer(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", contentType)
		_, _ = w.Write([]byte(body))
	}))
}
