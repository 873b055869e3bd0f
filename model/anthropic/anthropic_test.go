package anthropic_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/anthropic"
	"github.com/offshoot-dev/offshoot/model/anthropic/anthropictest"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// watchdog bounds a test that could hang.
func watchdog(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// newModel returns a Model on srv with cfg's settings, no real waits.
func newModel(t testing.TB, srv *anthropictest.Server, cfg anthropic.Config) *anthropic.Model {
	t.Helper()
	cfg.BaseURL, cfg.HTTPClient = srv.URL, srv.Client()
	if cfg.Model == "" {
		cfg.Model = "claude-sonnet-4-5"
	}
	if cfg.Sleep == nil {
		cfg.Sleep = func(context.Context, time.Duration) error { return nil }
	}
	m, err := anthropic.New(cfg)
	require.NoError(t, err)
	return m
}

// call is Generate or Stream, gathering the streamed text.
type call func(ctx context.Context, m *anthropic.Model, req *model.Request) (*model.Response, string, error)

var calls = map[string]call{
	"whole": func(ctx context.Context, m *anthropic.Model, req *model.Request) (*model.Response, string, error) {
		r, err := m.Generate(ctx, req)
		return r, "", err
	},
	"streamed": func(ctx context.Context, m *anthropic.Model, req *model.Request) (*model.Response, string, error) {
		var b strings.Builder
		r, err := m.Stream(ctx, req, func(d model.Delta) error {
			b.WriteString(d.Text)
			return nil
		})
		return r, b.String(), err
	},
}

// An answer of text, of tool calls, or cut at the token limit maps to the
// message, finish reason and usage the model package expects, streamed or
// not.
func TestAnswers(t *testing.T) {
	ctx := watchdog(t)
	tests := []struct {
		name   string
		turn   anthropictest.Turn
		text   string
		calls  []model.ToolCall
		finish model.FinishReason
	}{
		{"text", anthropictest.Turn{Text: "Hello, world — ünïcode."}, "Hello, world — ünïcode.", nil, model.FinishStop},
		{"tool call", anthropictest.Turn{Text: "Looking.", ToolCalls: []model.ToolCall{{ID: "toolu_1", Name: "ls", Arguments: `{"path":"src"}`}}},
			"Looking.", []model.ToolCall{{ID: "toolu_1", Name: "ls", Arguments: `{"path":"src"}`}}, model.FinishToolCalls},
		{"max tokens", anthropictest.Turn{Text: "Cut", StopReason: "max_tokens"}, "Cut", nil, model.FinishLength},
		{"refusal", anthropictest.Turn{Text: "I can't help with that.", StopReason: "refusal"}, "I can't help with that.", nil, model.FinishRefusal},
		{"pause turn", anthropictest.Turn{Text: "Still searching", StopReason: "pause_turn"}, "Still searching", nil, "pause_turn"},
	}
	for _, tt := range tests {
		for how, do := range calls {
			t.Run(tt.name+"/"+how, func(t *testing.T) {
				srv := anthropictest.NewServer()
				defer srv.Close()
				srv.Answer = func([]byte) anthropictest.Turn { return tt.turn }
				m := newModel(t, srv, anthropic.Config{})
				resp, streamed, err := do(ctx, m, &model.Request{Messages: []model.Message{model.SystemMessage("Be brief."), model.UserMessage("Hi")}})
				require.NoError(t, err)
				assert.Equal(t, tt.text, resp.Message.Content)
				assert.Equal(t, tt.calls, resp.Message.ToolCalls)
				assert.Equal(t, tt.finish, resp.FinishReason)
				assert.Equal(t, "claude-sonnet-4-5", resp.Model)
				assert.NotEmpty(t, resp.ID)
				assert.Positive(t, resp.Usage.InputTokens)
				assert.Equal(t, resp.Usage.InputTokens+resp.Usage.OutputTokens, resp.Usage.TotalTokens)
				if how == "streamed" {
					assert.Equal(t, tt.text, streamed)
				}
			})
		}
	}
}

// toolLoop runs a conversation of turns tool-calling turns and a final
// answer through m, answering each call with result, and returns the
// final response.
func toolLoop(ctx context.Context, t testing.TB, do call, m *anthropic.Model, req *model.Request, result string) *model.Response {
	t.Helper()
	for {
		resp, _, err := do(ctx, m, req)
		require.NoError(t, err)
		if len(resp.Message.ToolCalls) == 0 {
			return resp
		}
		req.Messages = append(req.Messages, resp.Message)
		for _, c := range resp.Message.ToolCalls {
			req.Messages = append(req.Messages, model.ToolMessage(c.ID, c.Name, result))
		}
	}
}

// With extended thinking, each answer's thinking block is kept in the
// message's Reasoning and sent back unchanged within the tool loop — the
// server refuses the request otherwise — and streamed as Thinking deltas.
func TestThinkingIsSentBackUnchangedInTheToolLoop(t *testing.T) {
	ctx := watchdog(t)
	for how, do := range calls {
		t.Run(how, func(t *testing.T) {
			srv := anthropictest.NewServer()
			defer srv.Close()
			srv.Answer = func(body []byte) anthropictest.Turn {
				if strings.Count(string(body), `"tool_result"`) < 2 {
					return anthropictest.Turn{Thinking: "I should list the files \"first\".", ToolCalls: []model.ToolCall{{ID: fmt.Sprintf("toolu_%d", len(body)), Name: "ls", Arguments: `{}`}}}
				}
				return anthropictest.Turn{Thinking: "Two listings are enough.", Text: "Done."}
			}
			m := newModel(t, srv, anthropic.Config{ThinkingBudget: 2048})
			req := &model.Request{Messages: []model.Message{model.SystemMessage("You list files."), model.UserMessage("List twice.")},
				Tools: []model.ToolSpec{{Name: "ls", Description: "Lists files."}}}
			final := toolLoop(ctx, t, do, m, req, "a.go")
			bodies := srv.Bodies()
			assert.Equal(t, "Done.", final.Message.Content)
			require.Len(t, final.Message.Reasoning, 1)
			assert.JSONEq(t, `{"type":"thinking","thinking":"Two listings are enough.","signature":"`+signatureOf(t, srv, "Two listings are enough.")+`"}`, string(final.Message.Reasoning[0]))
			require.Len(t, bodies, 3)
			assert.Contains(t, string(bodies[0]), `"thinking":{"type":"enabled","budget_tokens":2048}`)
			assert.Contains(t, string(bodies[2]), `{"type":"thinking","thinking":"I should list the files \"first\".","signature":`)
		})
	}
}

// signatureOf returns the signature srv gives a thinking text, read from
// what it answered.
func signatureOf(t *testing.T, srv *anthropictest.Server, thinking string) string {
	t.Helper()
	m := newModel(t, srv, anthropic.Config{ThinkingBudget: 1024})
	old := srv.Answer
	srv.Answer = func([]byte) anthropictest.Turn { return anthropictest.Turn{Thinking: thinking, Text: "x"} }
	defer func() { srv.Answer = old }()
	resp, err := m.Generate(context.Background(), &model.Request{Messages: []model.Message{model.UserMessage("sign")}})
	require.NoError(t, err)
	var b struct{ Signature string }
	require.NoError(t, json.Unmarshal(resp.Message.Reasoning[0], &b))
	return b.Signature
}

// A streamed answer's thinking arrives as Thinking deltas, apart from the
// text.
func TestStreamDeliversThinkingApart(t *testing.T) {
	ctx := watchdog(t)
	srv := anthropictest.NewServer()
	defer srv.Close()
	srv.Answer = func([]byte) anthropictest.Turn {
		return anthropictest.Turn{Thinking: "The user greets me; I greet back.", Text: "Hello!"}
	}
	m := newModel(t, srv, anthropic.Config{ThinkingBudget: 1024})
	var thinking, text strings.Builder
	resp, err := m.Stream(ctx, &model.Request{Messages: []model.Message{model.UserMessage("Hi")}}, func(d model.Delta) error {
		thinking.WriteString(d.Thinking)
		text.WriteString(d.Text)
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, "The user greets me; I greet back.", thinking.String())
	assert.Equal(t, "Hello!", text.String())
	assert.Equal(t, "Hello!", resp.Message.Content)
}
