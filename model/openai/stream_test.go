package openai_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/openai"
)

// chunk is a chat.completion.chunk shaped like OpenAI's, with the given
// delta object and finish reason (JSON null when empty).
func chunk(delta, finish string) string {
	f := "null"
	if finish != "" {
		f = `"` + finish + `"`
	}
	return `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1741569952,"model":"gpt-test-2025-01-01",` +
		`"system_fingerprint":"fp_1","choices":[{"index":0,"delta":` + delta + `,"logprobs":null,"finish_reason":` + f + `}],"usage":null}`
}

func textChunk(s string) string { return chunk(`{"content":`+jsonString(s)+`}`, "") }

const usageChunk = `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1741569952,"model":"gpt-test-2025-01-01",` +
	`"choices":[],"usage":{"prompt_tokens":20,"completion_tokens":3,"total_tokens":23}}`

// sseServer answers every request with the next script: it writes its
// events as server-sent events, flushing after each.
type sseServer struct {
	*httptest.Server
	mu       sync.Mutex
	scripts  []func(w http.ResponseWriter, r *http.Request)
	requests []received
}

func newSSEServer(t *testing.T, scripts ...func(w http.ResponseWriter, r *http.Request)) *sseServer {
	t.Helper()
	s := &sseServer{scripts: scripts}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var body map[string]any
		_ = json.Unmarshal(raw, &body)
		s.mu.Lock()
		s.requests = append(s.requests, received{method: r.Method, path: r.URL.Path, header: r.Header.Clone(), body: body, raw: string(raw)})
		script := events()
		if len(s.scripts) > 0 {
			script, s.scripts = s.scripts[0], s.scripts[1:]
		}
		s.mu.Unlock()
		script(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *sseServer) received() []received {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]received(nil), s.requests...)
}

// events is a script that streams the given event data, then ends.
func events(data ...string) func(w http.ResponseWriter, r *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		for _, d := range data {
			_, _ = fmt.Fprintf(w, "data: %s\n\n", d)
			w.(http.Flusher).Flush()
		}
	}
}

func newStreamModel(t *testing.T, srv *sseServer, mutate ...func(*openai.Config)) (*openai.Model, *fakeClock) {
	t.Helper()
	clock := newFakeClock()
	cfg := openai.Config{BaseURL: srv.URL + "/v1", APIKey: "sk-test", Model: "gpt-test", HTTPClient: srv.Client(),
		MaxRetries: 2, Rand: func() float64 { return 0.5 }, Sleep: clock.Sleep, Now: clock.Now}
	for _, f := range mutate {
		f(&cfg)
	}
	m, err := openai.New(cfg)
	require.NoError(t, err)
	return m, clock
}

// collect returns a callback that records the deltas.
func collect(into *[]model.Delta) func(model.Delta) error {
	return func(d model.Delta) error {
		*into = append(*into, d)
		return nil
	}
}

func userRequest(text string) *model.Request {
	return &model.Request{Messages: []model.Message{model.UserMessage(text)}}
}

func TestStreamText(t *testing.T) {
	srv := newSSEServer(t, events(
		chunk(`{"role":"assistant","content":"","refusal":null}`, ""),
		textChunk("It is"), textChunk(" sunny"), textChunk(" in Paris."),
		chunk(`{}`, "stop"), usageChunk, "[DONE]"))
	m, _ := newStreamModel(t, srv)
	var got []model.Delta
	resp, err := m.Stream(context.Background(), userRequest("Weather?"), collect(&got))
	require.NoError(t, err)
	assert.Equal(t, []model.Delta{{Text: "It is"}, {Text: " sunny"}, {Text: " in Paris."}}, got)
	assert.Equal(t, &model.Response{
		Message:      model.AssistantMessage("It is sunny in Paris."),
		FinishReason: model.FinishStop,
		Usage:        model.Usage{InputTokens: 20, OutputTokens: 3, TotalTokens: 23},
		Model:        "gpt-test-2025-01-01",
		ID:           "chatcmpl-1",
	}, resp)

	req := srv.received()
	require.Len(t, req, 1)
	assert.Equal(t, "/v1/chat/completions", req[0].path)
	assert.Equal(t, "text/event-stream", req[0].header.Get("Accept"))
	assert.Equal(t, "Bearer sk-test", req[0].header.Get("Authorization"))
	assert.Equal(t, true, req[0].body["stream"])
	assert.Equal(t, map[string]any{"include_usage": true}, req[0].body["stream_options"])
}

func TestStreamToolCalls(t *testing.T) {
	call := func(frag string) string { return chunk(`{"tool_calls":[`+frag+`]}`, "") }
	tests := []struct {
		name   string
		events []string
		deltas []model.ToolCallDelta
		calls  []model.ToolCall
	}{
		{
			name: "OpenAI: fragments by index, interleaved",
			events: []string{
				chunk(`{"role":"assistant","content":null}`, ""),
				call(`{"index":0,"id":"call_a","type":"function","function":{"name":"get_weather","arguments":""}}`),
				call(`{"index":0,"function":{"arguments":"{\"ci"}}`),
				call(`{"index":1,"id":"call_b","type":"function","function":{"name":"get_time","arguments":"{}"}}`),
				call(`{"index":0,"function":{"arguments":"ty\":\"Paris\"}"}}`),
				chunk(`{}`, "tool_calls"), usageChunk, "[DONE]",
			},
			deltas: []model.ToolCallDelta{
				{Index: 0, ID: "call_a", Name: "get_weather"},
				{Index: 0, Arguments: `{"ci`},
				{Index: 1, ID: "call_b", Name: "get_time", Arguments: `{}`},
				{Index: 0, Arguments: `ty":"Paris"}`},
			},
			calls: []model.ToolCall{{ID: "call_a", Name: "get_weather", Arguments: `{"city":"Paris"}`}, {ID: "call_b", Name: "get_time", Arguments: `{}`}},
		},
		{
			name: "whole calls without index, finish reason stop",
			events: []string{
				call(`{"id":"call_x","type":"function","function":{"name":"ls","arguments":"{\"dir\":\"/\"}"}}`),
				call(`{"id":"call_y","type":"function","function":{"name":"ls","arguments":"{}"}}`),
				chunk(`{}`, "stop"), "[DONE]",
			},
			deltas: []model.ToolCallDelta{
				{Index: 0, ID: "call_x", Name: "ls", Arguments: `{"dir":"/"}`},
				{Index: 1, ID: "call_y", Name: "ls", Arguments: `{}`},
			},
			calls: []model.ToolCall{{ID: "call_x", Name: "ls", Arguments: `{"dir":"/"}`}, {ID: "call_y", Name: "ls", Arguments: `{}`}},
		},
		{
			name: "no ids, arguments as an object",
			events: []string{
				call(`{"index":0,"type":"function","function":{"name":"ls","arguments":{"dir":"/"}}}`),
				call(`{"index":1,"type":"function","function":{"name":"pwd"}}`),
				chunk(`{}`, "tool_calls"), "[DONE]",
			},
			deltas: []model.ToolCallDelta{
				{Index: 0, ID: "call_1_0", Name: "ls", Arguments: `{"dir":"/"}`},
				{Index: 1, ID: "call_1_1", Name: "pwd"},
			},
			calls: []model.ToolCall{{ID: "call_1_0", Name: "ls", Arguments: `{"dir":"/"}`}, {ID: "call_1_1", Name: "pwd"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newSSEServer(t, events(tt.events...))
			m, _ := newStreamModel(t, srv)
			var got []model.Delta
			resp, err := m.Stream(context.Background(), userRequest("go"), collect(&got))
			require.NoError(t, err)
			var deltas []model.ToolCallDelta
			for _, d := range got {
				require.NotNil(t, d.ToolCall, "text delta %q", d.Text)
				deltas = append(deltas, *d.ToolCall)
			}
			assert.Equal(t, tt.deltas, deltas)
			assert.Equal(t, tt.calls, resp.Message.ToolCalls)
			assert.Equal(t, model.FinishToolCalls, resp.FinishReason)
			assert.Empty(t, resp.Message.Content)
		})
	}
}

func TestStreamRetriesOnlyBeforeTheAnswer(t *testing.T) {
	overloaded := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(503)
		_, _ = io.WriteString(w, errorBody("overloaded", "server_error", ""))
	}
	t.Run("an error status is retried", func(t *testing.T) {
		srv := newSSEServer(t, overloaded, events(textChunk("ok"), chunk(`{}`, "stop"), "[DONE]"))
		m, clock := newStreamModel(t, srv)
		resp, err := m.Stream(context.Background(), userRequest("hi"), nil)
		require.NoError(t, err)
		assert.Equal(t, "ok", resp.Message.Content)
		assert.Len(t, srv.received(), 2)
		assert.Len(t, clock.Sleeps(), 1)
	})
	t.Run("a stream cut after deltas is not", func(t *testing.T) {
		srv := newSSEServer(t, events(textChunk("Once upon"), textChunk(" a time")), events(textChunk("again"), chunk(`{}`, "stop")))
		m, clock := newStreamModel(t, srv)
		var got []model.Delta
		resp, err := m.Stream(context.Background(), userRequest("hi"), collect(&got))
		require.Error(t, err)
		assert.Contains(t, err.Error(), "response body invalid: the stream ended before the answer was complete")
		assert.ErrorIs(t, err, io.ErrUnexpectedEOF)
		require.NotNil(t, resp, "what was received is returned")
		assert.Equal(t, "Once upon a time", resp.Message.Content)
		assert.Empty(t, resp.FinishReason)
		assert.Len(t, got, 2)
		assert.Len(t, srv.received(), 1)
		assert.Empty(t, clock.Sleeps())
	})
	t.Run("an empty stream is not", func(t *testing.T) {
		srv := newSSEServer(t, events(), events(textChunk("again"), chunk(`{}`, "stop")))
		m, _ := newStreamModel(t, srv)
		resp, err := m.Stream(context.Background(), userRequest("hi"), nil)
		require.ErrorContains(t, err, "response body invalid")
		assert.Nil(t, resp, "nothing was received")
		assert.Len(t, srv.received(), 1)
	})
}

func TestStreamCancelReturnsPromptly(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	srv := newSSEServer(t, func(w http.ResponseWriter, r *http.Request) {
		events(textChunk("partial"), textChunk(" text"))(w, r)
		select { // then nothing, until the client goes away
		case <-r.Context().Done():
		case <-release:
		}
	})
	m, _ := newStreamModel(t, srv)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var got []model.Delta
	type result struct {
		resp *model.Response
		err  error
	}
	done := make(chan result, 1)
	go func() {
		resp, err := m.Stream(ctx, userRequest("hi"), func(d model.Delta) error {
			got = append(got, d)
			if len(got) == 2 {
				cancel()
			}
			return nil
		})
		done <- result{resp, err}
	}()
	select {
	case r := <-done:
		require.ErrorIs(t, r.err, context.Canceled)
		require.NotNil(t, r.resp)
		assert.Equal(t, "partial text", r.resp.Message.Content)
		assert.Empty(t, r.resp.FinishReason)
	case <-time.After(5 * time.Second):
		t.Fatal("Stream did not return after its context was cancelled")
	}
}

func TestStreamCallbackErrorStops(t *testing.T) {
	srv := newSSEServer(t, events(textChunk("a"), textChunk("b"), chunk(`{}`, "stop"), "[DONE]"))
	m, _ := newStreamModel(t, srv)
	stop := errors.New("the user closed the window")
	calls := 0
	resp, err := m.Stream(context.Background(), userRequest("hi"), func(model.Delta) error {
		calls++
		return stop
	})
	require.ErrorIs(t, err, stop)
	assert.Equal(t, 1, calls)
	require.NotNil(t, resp)
	assert.Equal(t, "a", resp.Message.Content)
}

func TestStreamErrors(t *testing.T) {
	tests := []struct {
		name   string
		events []string
		is     error
		want   string
	}{
		{
			name:   "an error event",
			events: []string{textChunk("Hi"), `{"error":{"message":"The server had an error while processing your request.","type":"server_error","param":null,"code":null}}`},
			want:   "model: provider error: The server had an error while processing your request.",
		},
		{
			name:   "context length in the stream",
			events: []string{`{"error":{"message":"maximum context length is 8192 tokens","type":"invalid_request_error","code":"context_length_exceeded"}}`},
			is:     model.ErrContextLength,
			want:   "code context_length_exceeded",
		},
		{
			name:   "not JSON",
			events: []string{textChunk("Hi"), `{"choices":[{"delta":`},
			want:   "response body invalid: event 2 of the stream is not valid JSON",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newSSEServer(t, events(tt.events...))
			m, _ := newStreamModel(t, srv)
			_, err := m.Stream(context.Background(), userRequest("hi"), nil)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			if tt.is != nil {
				assert.ErrorIs(t, err, tt.is)
			}
			assert.Len(t, srv.received(), 1)
		})
	}
}

func TestStreamAcceptsAWholeAnswer(t *testing.T) {
	srv := newSSEServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		_, _ = io.WriteString(w, toolCallReply)
	})
	m, _ := newStreamModel(t, srv)
	var got []model.Delta
	resp, err := m.Stream(context.Background(), userRequest("Weather in Paris?"), collect(&got))
	require.NoError(t, err)
	want := model.ToolCall{ID: "call_weather_1", Name: "get_weather", Arguments: `{"city":"Paris"}`}
	assert.Equal(t, []model.ToolCall{want}, resp.Message.ToolCalls)
	assert.Equal(t, []model.Delta{{ToolCall: &model.ToolCallDelta{ID: want.ID, Name: want.Name, Arguments: want.Arguments}}}, got)
	assert.Equal(t, 99, resp.Usage.TotalTokens)
}

func TestStreamStructuredOutput(t *testing.T) {
	srv := newSSEServer(t, events(
		textChunk(`{"items":[{"line":3,`), textChunk(`"note":null}]}`), chunk(`{}`, "stop"), "[DONE]"))
	m, _ := newStreamModel(t, srv)
	var text strings.Builder
	resp, err := m.Stream(context.Background(), &model.Request{
		Messages: []model.Message{model.UserMessage("List the issues")},
		Output: &model.OutputSpec{Name: "issues", Strict: true, Schema: json.RawMessage(
			`{"type":"array","items":{"type":"object","properties":{"line":{"type":"integer"},"note":{"type":"string"}},"required":["line"]}}`)},
	}, func(d model.Delta) error {
		text.WriteString(d.Text)
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, `{"items":[{"line":3,"note":null}]}`, text.String(), "deltas are the text as generated")
	assert.Equal(t, `[{"line":3}]`, resp.Message.Content, "the answer is mapped back")
}

func TestStreamRefusal(t *testing.T) {
	srv := newSSEServer(t, events(chunk(`{"refusal":"I can't"}`, ""), chunk(`{"refusal":" help."}`, "stop"), "[DONE]"))
	m, _ := newStreamModel(t, srv)
	var got []model.Delta
	resp, err := m.Stream(context.Background(), userRequest("x"), collect(&got))
	require.NoError(t, err)
	assert.Equal(t, []model.Delta{{Text: "I can't"}, {Text: " help."}}, got)
	assert.Equal(t, "I can't help.", resp.Message.Content)
	assert.Equal(t, model.FinishRefusal, resp.FinishReason)
}

func TestStreamServerWithoutDone(t *testing.T) {
	var n atomic.Int32
	srv := newSSEServer(t, func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		w.Header().Set("Content-Type", "text/event-stream")
		// CRLF line ends, a comment, an event name and a data field split over two lines.
		_, _ = io.WriteString(w, ": keep-alive\r\n\r\nevent: chunk\r\ndata: "+textChunk("a\\nb")+"\r\n\r\n"+
			"data: "+chunk(`{}`, "length")+"\r\n")
	})
	m, _ := newStreamModel(t, srv)
	resp, err := m.Stream(context.Background(), userRequest("x"), nil)
	require.NoError(t, err, "a finish reason then the end of the stream is complete")
	assert.Equal(t, "a\\nb", resp.Message.Content)
	assert.Equal(t, model.FinishLength, resp.FinishReason)
}
