package webfetch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
)

// reader is a small model that records what it was asked and answers
// with answer, or fails with err.
type reader struct {
	mu     sync.Mutex
	asked  []*model.Request
	answer string
	err    error
}

func (r *reader) Generate(_ context.Context, req *model.Request) (*model.Response, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.asked = append(r.asked, req)
	if r.err != nil {
		return nil, r.err
	}
	return &model.Response{Message: model.AssistantMessage(r.answer), FinishReason: model.FinishStop,
		Usage: model.Usage{InputTokens: 1200, OutputTokens: 30, TotalTokens: 1230}}, nil
}

// pageServer serves one HTML page at /doc.
func pageServer(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<html><body><h1>Effective Go</h1><p>One-method interfaces are named by the method plus an -er suffix.</p>
<table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>2</td></tr></table></body></html>`)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// With Options.Model, the page goes to that small model with the prompt,
// as Claude Code's WebFetch does, and the calling model reads its answer,
// not the page; without a prompt the small model says what the page holds.
func TestASmallModelReadsThePage(t *testing.T) {
	srv := pageServer(t)
	for _, tt := range []struct {
		name, prompt, asks string
	}{
		{"a prompt", "how are interfaces named?", "how are interfaces named?"},
		{"no prompt", "", "its main points"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			small := &reader{answer: "By the method plus -er (Reader)."}
			tool := newTool(t, Options{Model: small})
			out := call(t, t.Context(), tool, srv.URL+"/doc", tt.prompt)
			require.NoError(t, out.Err)
			assert.Contains(t, out.Text, "By the method plus -er (Reader).")
			assert.Contains(t, out.Text, srv.URL+"/doc")
			assert.NotContains(t, out.Text, "| a | b |", "the page itself is not returned")

			require.Len(t, small.asked, 1)
			req := small.asked[0]
			assert.Empty(t, req.Tools, "the small model gets no tools")
			var all strings.Builder
			for _, m := range req.Messages {
				all.WriteString(m.Content + "\n")
			}
			assert.Contains(t, all.String(), "One-method interfaces are named by the method plus an -er suffix.")
			assert.Contains(t, all.String(), "| a | b |", "it reads the page as Markdown")
			assert.Contains(t, all.String(), tt.asks)
			assert.Positive(t, req.MaxTokens, "its answer is bounded")
		})
	}
}

// A small model that fails leaves the calling model the page itself,
// with a word that it was not read for it; a run that stops is no
// fallback.
func TestASmallModelThatFails(t *testing.T) {
	srv := pageServer(t)
	tool := newTool(t, Options{Model: &reader{err: errors.New("rate limited")}})
	out := call(t, t.Context(), tool, srv.URL+"/doc", "how are interfaces named?")
	require.NoError(t, out.Err)
	assert.Contains(t, out.Text, "| a | b |", "the page itself")
	assert.Contains(t, out.Text, "rate limited")

	ctx, cancel := context.WithCancel(t.Context())
	tool = newTool(t, Options{Model: model.Func(func(context.Context, *model.Request) (*model.Response, error) {
		cancel()
		return nil, context.Canceled
	})})
	out = call(t, ctx, tool, srv.URL+"/doc", "how are interfaces named?")
	require.ErrorIs(t, out.Err, context.Canceled)
}

// What the small model spends counts for the evaluation that called the
// tool: in its Response.ChildUsage, and against its budget.
func TestTheSmallModelsTokensAreCounted(t *testing.T) {
	srv := pageServer(t)
	small := &reader{answer: "By the method plus -er."}
	tool := newTool(t, Options{Model: small})
	args, err := json.Marshal(map[string]string{"url": srv.URL + "/doc", "prompt": "how are interfaces named?"})
	require.NoError(t, err)
	turn := 0
	main := model.Func(func(_ context.Context, req *model.Request) (*model.Response, error) {
		turn++
		if turn == 1 {
			return &model.Response{Message: model.Message{Role: model.RoleAssistant, ToolCalls: []model.ToolCall{{ID: "c1", Name: "web_fetch", Arguments: string(args)}}},
				FinishReason: model.FinishToolCalls, Usage: model.Usage{InputTokens: 10, OutputTokens: 5, TotalTokens: 15}}, nil
		}
		return &model.Response{Message: model.AssistantMessage("done"), FinishReason: model.FinishStop,
			Usage: model.Usage{InputTokens: 20, OutputTokens: 5, TotalTokens: 25}}, nil
	})
	p, err := prompt.New("test", "reader", prompt.Markdown[prompt.NoParams]("Role", "You read pages.", prompt.WithTools(tool)))
	require.NoError(t, err)
	resp, err := runner.Evaluate(t.Context(), runner.Request{Session: newSession(t), Model: main, Prompt: p, UserMessage: "read it"})
	require.NoError(t, err)
	assert.Equal(t, 1230, resp.ChildUsage.TotalTokens)
	assert.Equal(t, 40, resp.Usage.TotalTokens)
}

// newSession returns a new session.
func newSession(t *testing.T) *session.Session {
	t.Helper()
	s, err := session.New()
	require.NoError(t, err)
	return s
}
