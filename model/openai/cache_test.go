package openai_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/openai"
)

const cachedReply = `{"id":"x","object":"chat.completion","created":1,"model":"m",
  "choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}],
  "usage":{"prompt_tokens":2048,"completion_tokens":8,"total_tokens":2056,"prompt_tokens_details":{"cached_tokens":1920}}}`

const cachedUsageChunk = `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m",` +
	`"choices":[],"usage":{"prompt_tokens":2048,"completion_tokens":3,"total_tokens":2051,"prompt_tokens_details":{"cached_tokens":1920}}}`

// What the provider read from its prompt cache is in the usage, whether
// the answer came whole or streamed.
func TestCachedInputTokensAreReported(t *testing.T) {
	ws := newWireServer(t, reply{status: 200, body: cachedReply})
	resp, err := newTestModel(t, ws, newFakeClock()).Generate(context.Background(), &model.Request{Messages: []model.Message{model.UserMessage("hi")}})
	require.NoError(t, err)
	assert.Equal(t, model.Usage{InputTokens: 2048, CachedInputTokens: 1920, OutputTokens: 8, TotalTokens: 2056}, resp.Usage)

	srv := newSSEServer(t, events(textChunk("ok"), chunk(`{}`, "stop"), cachedUsageChunk, "[DONE]"))
	m, _ := newStreamModel(t, srv)
	resp, err = m.Stream(context.Background(), &model.Request{Messages: []model.Message{model.UserMessage("hi")}}, func(model.Delta) error { return nil })
	require.NoError(t, err)
	assert.Equal(t, model.Usage{InputTokens: 2048, CachedInputTokens: 1920, OutputTokens: 3, TotalTokens: 2051}, resp.Usage)

	assert.Equal(t, model.Usage{InputTokens: 4096, CachedInputTokens: 3840, OutputTokens: 11, TotalTokens: 4107}, resp.Usage.Add(model.Usage{InputTokens: 2048, CachedInputTokens: 1920, OutputTokens: 8, TotalTokens: 2056}))
}

// toServer sends every request to srv, whatever its URL says: a stand-in
// for OpenAI's API.
type toServer struct{ srv *url.URL }

func (t toServer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.URL.Scheme, r.URL.Host = t.srv.Scheme, t.srv.Host
	return http.DefaultTransport.RoundTrip(r)
}

// A request's cache key goes out as prompt_cache_key to OpenAI's API, and
// to another server only when the program says it takes the field.
func TestTheCacheKeyIsSentWhereItIsTaken(t *testing.T) {
	tests := []struct {
		name    string
		baseURL string
		send    bool
		want    any
	}{
		{"OpenAI's API", "https://api.openai.com/v1", false, "eval-1"},
		{"another server", "", false, nil},
		{"another server that takes it", "", true, "eval-1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := newWireServer(t, reply{status: 200, body: cachedReply})
			u, err := url.Parse(ws.URL)
			require.NoError(t, err)
			m := newTestModel(t, ws, newFakeClock(), func(c *openai.Config) {
				if tt.baseURL != "" {
					c.BaseURL, c.HTTPClient = tt.baseURL, &http.Client{Transport: toServer{u}}
				}
				c.SendCacheKey = tt.send
			})
			_, err = m.Generate(context.Background(), &model.Request{Messages: []model.Message{model.UserMessage("hi")}, CacheKey: "eval-1"})
			require.NoError(t, err)
			got := ws.received()
			require.Len(t, got, 1)
			assert.Equal(t, tt.want, got[0].body["prompt_cache_key"])
		})
	}
}
