package runcmd

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/cli"
)

// fakeOpenAI is an OpenAI-compatible server that streams its answers: the
// main agent lists the files, then answers; the explore agent it hands a
// search to answers at once.
type fakeOpenAI struct {
	*httptest.Server
	mu   sync.Mutex
	seen []chatRequest
}

type chatRequest struct {
	auth     string
	Model    string `json:"model"`
	Stream   bool   `json:"stream"`
	Messages []struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"messages"`
}

func newFakeOpenAI(t *testing.T) *fakeOpenAI {
	s := &fakeOpenAI{}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *fakeOpenAI) requests() []chatRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]chatRequest(nil), s.seen...)
}

func (s *fakeOpenAI) serve(w http.ResponseWriter, r *http.Request) {
	var req chatRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Messages) == 0 {
		http.Error(w, `{"error": {"message": "bad request"}}`, http.StatusBadRequest)
		return
	}
	req.auth = r.Header.Get("Authorization")
	s.mu.Lock()
	s.seen = append(s.seen, req)
	s.mu.Unlock()
	answer := stream
	if !req.Stream {
		answer = whole
	}
	system, last := req.Messages[0].Content, req.Messages[len(req.Messages)-1]
	switch {
	case strings.Contains(system, "# Task\nFind the tests"):
		answer(w, "The tests are in main_test.go.", nil)
	case last.Role == "user":
		answer(w, "Let me look at the files first.", []toolCall{{"ls", map[string]string{"path": ""}}})
	case strings.HasPrefix(last.Content, "Subagent (explore"):
		answer(w, "There is one program, main.go, and its tests are in main_test.go.", nil)
	default:
		answer(w, "", []toolCall{{"Task", map[string]string{"subagent_type": "explore", "description": "Find the tests", "prompt": "Where are the tests?"}}})
	}
}

// whole writes an answer as one chat completion, for a request that did
// not ask for a stream.
func whole(w http.ResponseWriter, text string, calls []toolCall) {
	msg := map[string]any{"role": "assistant", "content": text}
	finish := "stop"
	if len(calls) > 0 {
		finish = "tool_calls"
		var tc []map[string]any
		for i, c := range calls {
			args, _ := json.Marshal(c.args)
			tc = append(tc, map[string]any{"id": fmt.Sprintf("call_%d", i), "type": "function",
				"function": map[string]string{"name": c.name, "arguments": string(args)}})
		}
		msg["tool_calls"] = tc
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"id": "chatcmpl-1", "object": "chat.completion", "model": "gpt-test",
		"choices": []map[string]any{{"index": 0, "message": msg, "finish_reason": finish}},
		"usage":   map[string]int{"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}})
}

type toolCall struct {
	name string
	args any
}

// stream writes an answer as server-sent events, as OpenAI streams: the
// text word by word, each tool call with its arguments in two pieces, the
// finish reason, the usage, [DONE].
func stream(w http.ResponseWriter, text string, calls []toolCall) {
	w.Header().Set("Content-Type", "text/event-stream")
	send := func(v any) {
		data, _ := json.Marshal(v)
		fmt.Fprintf(w, "data: %s\n\n", data)
		w.(http.Flusher).Flush()
	}
	delta := func(d map[string]any, finish any) map[string]any {
		return map[string]any{"id": "chatcmpl-1", "object": "chat.completion.chunk", "model": "gpt-test",
			"choices": []map[string]any{{"index": 0, "delta": d, "finish_reason": finish}}}
	}
	for i, word := range strings.SplitAfter(text, " ") {
		if word != "" {
			d := map[string]any{"content": word}
			if i == 0 {
				d["role"] = "assistant"
			}
			send(delta(d, nil))
		}
	}
	for i, c := range calls {
		args, _ := json.Marshal(c.args)
		half := len(args) / 2
		send(delta(map[string]any{"tool_calls": []map[string]any{{"index": i, "id": fmt.Sprintf("call_%d", i), "type": "function",
			"function": map[string]string{"name": c.name, "arguments": string(args[:half])}}}}, nil))
		send(delta(map[string]any{"tool_calls": []map[string]any{{"index": i, "function": map[string]string{"arguments": string(args[half:])}}}}, nil))
	}
	finish := "stop"
	if len(calls) > 0 {
		finish = "tool_calls"
	}
	send(delta(map[string]any{}, finish))
	send(map[string]any{"id": "chatcmpl-1", "object": "chat.completion.chunk", "choices": []any{},
		"usage": map[string]int{"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}})
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// run against an OpenAI-compatible server configured with the LLM_*
// variables: the answers stream, an agent runs on the light model (which
// takes main's settings), and the key reaches the server.
func TestRunAgainstAnOpenAIServer(t *testing.T) {
	srv := newFakeOpenAI(t)
	f := newFixture(t, map[string]string{"main.go": "package main\n", "main_test.go": "package main\n"})
	f.vars["LLM_MODEL_ID"], f.vars["LLM_API_KEY"], f.vars["LLM_BASE_URL"] = "gpt-test", "sk-test", srv.URL+"/v1"
	f.vars["LIGHT_LLM_MODEL_ID"] = "gpt-test-mini"
	err := f.run(t, context.Background(), &run{task: "What is in this project?"})
	require.NoError(t, err, f.stderr.String())
	out := f.stdout.String()
	for _, want := range []string{
		"  ✎ Let me look at the files first.\n",
		// The models by the ids configured, not by their routes (main, light).
		"  ↳ calls ls · gpt-test · 120 tokens · ",
		"  ✓ ls {\"path\":\"\"} → /: 2 entries",
		" started · explore · forked from ",
		"   ↳ answers · gpt-test-mini · 120 tokens · ",
		"→ Subagent (explore, gpt-test-mini) completed.",
		"  ✓ Task {\"description\":\"Find the tests\",",
		"  ✎ There is one program, main.go, and its tests are in main_test.go.\n",
	} {
		assert.Contains(t, out, want)
	}
	reqs := srv.requests()
	require.Len(t, reqs, 4)
	for _, r := range reqs {
		assert.Equal(t, "Bearer sk-test", r.auth)
		assert.Contains(t, []string{"gpt-test", "gpt-test-mini"}, r.Model)
		assert.True(t, r.Stream, "the run streams")
	}
}

func TestRunWhenTheServerRefusesTheKey(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprint(w, `{"error": {"message": "Incorrect API key provided", "type": "invalid_request_error", "code": "invalid_api_key"}}`)
	}))
	defer srv.Close()
	f := newFixture(t, nil)
	f.vars["LLM_MODEL_ID"], f.vars["LLM_API_KEY"], f.vars["LLM_BASE_URL"] = "gpt-test", "sk-wrong", srv.URL+"/v1"
	err := f.run(t, context.Background(), &run{task: "Hi."})
	require.Error(t, err)
	assert.Equal(t, cli.ExitFailed, code(err))
	assert.Contains(t, err.Error(), "the run failed: ")
	assert.Contains(t, err.Error(), "check the key (LLM_API_KEY, or \"api_key\" in .offshoot/config.json)")
}

// A run that fails on the provider's side, or cannot reach it, says what
// to do about that.
func TestRunWhenTheServerFails(t *testing.T) {
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		fmt.Fprint(w, `{"error": {"message": "The server had an error while processing your request.", "type": "server_error"}}`)
	}))
	t.Cleanup(failing.Close) // after the parallel subtests
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close() // nothing listens there any more: connection refused

	tests := []struct {
		name string
		url  string
		want string
	}{
		{"HTTP 500 after the retries", failing.URL + "/v1", "the model's provider failed on its side (HTTP 500): The server had an error while processing your request.; wait a while and run it again"},
		{"connection refused", closed.URL + "/v1", "the model's server could not be reached (connection refused); check LLM_BASE_URL (or \"base_url\" in .offshoot/config.json) and that the server is up"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel() // each waits through the adapter's retries
			f := newFixture(t, nil)
			f.vars["LLM_MODEL_ID"], f.vars["LLM_API_KEY"], f.vars["LLM_BASE_URL"] = "gpt-test", "sk-test", tt.url
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			err := f.run(t, ctx, &run{task: "Hi."})
			require.Error(t, err)
			assert.Equal(t, cli.ExitFailed, code(err))
			assert.Contains(t, err.Error(), tt.want)
			assert.NotContains(t, err.Error(), "fix the cause above")
		})
	}
}
