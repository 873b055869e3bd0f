package openai_test

import (
	"context"
	"encoding/json"
	"io"
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

func TestExplicitZeroSamplingIsSentAsZero(t *testing.T) {
	ws := newWireServer(t, reply{status: 200, body: finalReply}, reply{status: 200, body: finalReply})
	m := newTestModel(t, ws, newFakeClock())
	zero, half := 0.0, 0.5
	_, err := m.Generate(context.Background(), &model.Request{
		Messages: []model.Message{model.UserMessage("hi")}, Temperature: &zero, TopP: &zero,
	})
	require.NoError(t, err)
	_, err = m.Generate(context.Background(), &model.Request{
		Messages: []model.Message{model.UserMessage("hi")}, Temperature: &half,
	})
	require.NoError(t, err)

	got := ws.received()
	require.Len(t, got, 2)
	assert.Regexp(t, `"temperature":0[,}]`, got[0].raw)
	assert.Regexp(t, `"top_p":0[,}]`, got[0].raw)
	assert.Equal(t, 0.0, got[0].body["temperature"])
	assert.Equal(t, 0.0, got[0].body["top_p"])
	assert.Equal(t, 0.5, got[1].body["temperature"], "sent exactly, not rounded to float32")
	assert.NotContains(t, got[1].body, "top_p", "unset stays unset")
}

func TestMaxRetriesZeroMeansNone(t *testing.T) {
	overloaded := func() reply { return reply{status: 503, body: errorBody("overloaded", "server_error", "")} }
	tests := []struct {
		name     string
		cfg      func(*openai.Config)
		attempts int
	}{
		{name: "zero means no retries", cfg: func(c *openai.Config) { c.MaxRetries = 0 }, attempts: 1},
		{name: "two retries", cfg: func(c *openai.Config) { c.MaxRetries = 2 }, attempts: 3},
		{name: "DefaultConfig retries", cfg: func(c *openai.Config) { c.MaxRetries = openai.DefaultConfig().MaxRetries }, attempts: openai.DefaultMaxRetries + 1},
	}
	calls := map[string]func(*openai.Model, *model.Request) error{
		"Generate": func(m *openai.Model, req *model.Request) error {
			_, err := m.Generate(context.Background(), req)
			return err
		},
		"Stream": func(m *openai.Model, req *model.Request) error {
			_, err := m.Stream(context.Background(), req, nil)
			return err
		},
	}
	for _, tt := range tests {
		for name, call := range calls {
			t.Run(name+"/"+tt.name, func(t *testing.T) {
				ws := newWireServer(t, overloaded(), overloaded(), overloaded(), overloaded(), overloaded(), overloaded(), overloaded())
				m := newTestModel(t, ws, newFakeClock(), tt.cfg)
				err := call(m, &model.Request{Messages: []model.Message{model.UserMessage("hi")}})
				var apiErr *model.APIError
				require.ErrorAs(t, err, &apiErr)
				assert.Equal(t, 503, apiErr.StatusCode)
				assert.Len(t, ws.received(), tt.attempts)
			})
		}
	}
	assert.Equal(t, 4, openai.DefaultMaxRetries)

	_, err := openai.New(openai.Config{Model: "m", MaxRetries: -1})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "MaxRetries")
	assert.Contains(t, err.Error(), "0 for no retries")
}

func TestInvalidBodyIsNotRetried(t *testing.T) {
	tests := []struct {
		name  string
		write func(w http.ResponseWriter)
		cause error
		want  string
	}{
		{
			name:  "empty",
			write: func(w http.ResponseWriter) { w.WriteHeader(200) },
			cause: io.EOF, want: "the body is empty",
		},
		{
			name:  "truncated JSON",
			write: func(w http.ResponseWriter) { _, _ = io.WriteString(w, finalReply[:len(finalReply)/2]) },
			cause: io.ErrUnexpectedEOF, want: "ends before",
		},
		{
			name: "cut below its announced length",
			write: func(w http.ResponseWriter) {
				w.Header().Set("Content-Length", "5000")
				_, _ = io.WriteString(w, finalReply[:100])
			},
			cause: io.ErrUnexpectedEOF, want: "reading it failed",
		},
		{
			name:  "not JSON",
			write: func(w http.ResponseWriter) { _, _ = io.WriteString(w, "gateway timeout") },
			want:  "invalid character",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var calls atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				calls.Add(1)
				w.Header().Set("Content-Type", "application/json")
				tt.write(w)
			}))
			defer srv.Close()
			clock := newFakeClock()
			m, err := openai.New(openai.Config{BaseURL: srv.URL + "/v1", Model: "m", HTTPClient: srv.Client(),
				MaxRetries: 4, Sleep: clock.Sleep, Now: clock.Now})
			require.NoError(t, err)
			_, err = m.Generate(context.Background(), &model.Request{Messages: []model.Message{model.UserMessage("hi")}})
			require.Error(t, err)
			assert.Contains(t, err.Error(), "response body invalid")
			assert.Contains(t, err.Error(), tt.want)
			assert.Contains(t, err.Error(), "not retried")
			if tt.cause != nil {
				assert.ErrorIs(t, err, tt.cause)
			}
			assert.EqualValues(t, 1, calls.Load(), "not retried")
			assert.Empty(t, clock.Sleeps())
		})
	}
}

func TestToolCallWithoutIDGetsOne(t *testing.T) {
	noIDs := strings.Replace(toolCallReply, `"id": "call_weather_1",`, ``, 1)
	noIDs = strings.Replace(noIDs, `"tool_calls": [{`, `"tool_calls": [{"id": "", "type": "function", "function": {"name": "noop", "arguments": ""}}, {`, 1)
	ws := newWireServer(t, reply{status: 200, body: noIDs}, reply{status: 200, body: finalReply})
	m := newTestModel(t, ws, newFakeClock())
	req := &model.Request{Messages: []model.Message{model.UserMessage("Weather in Paris?")}}
	resp, err := m.Generate(context.Background(), req)
	require.NoError(t, err)
	require.Len(t, resp.Message.ToolCalls, 2)
	assert.Equal(t, "call_1_0", resp.Message.ToolCalls[0].ID)
	assert.Equal(t, "call_1_1", resp.Message.ToolCalls[1].ID)

	req.Messages = append(req.Messages, resp.Message,
		model.ToolMessage(resp.Message.ToolCalls[0].ID, "noop", "done"),
		model.ToolMessage(resp.Message.ToolCalls[1].ID, "get_weather", "sunny"))
	_, err = m.Generate(context.Background(), req)
	require.NoError(t, err, "the next request is valid")
	assert.JSONEq(t, `[
		{"role": "user", "content": "Weather in Paris?"},
		{"role": "assistant", "content": null, "tool_calls": [
			{"id": "call_1_0", "type": "function", "function": {"name": "noop", "arguments": "{}"}},
			{"id": "call_1_1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}}
		]},
		{"role": "tool", "tool_call_id": "call_1_0", "content": "done"},
		{"role": "tool", "tool_call_id": "call_1_1", "content": "sunny"}
	]`, jsonOf(t, ws.received()[1].body["messages"]))
}

func TestArrayOutputIsRequestedAsAnObject(t *testing.T) {
	schema := `{"type":"array","items":{"$ref":"#/$defs/issue"},"$defs":{"issue":{"type":"object",
		"properties":{"line":{"type":"integer"},"note":{"type":"string"}},"required":["line"]}}}`
	tests := []struct {
		name, answer, want string
	}{
		{"wrapped answer is unwrapped", `{"items":[{"line":3,"note":null},{"line":4,"note":"x"}]}`, `[{"line":3},{"line":4,"note":"x"}]`},
		{"a bare array is kept", `[{"line":3}]`, `[{"line":3}]`},
		{"not JSON is left for the caller", `oops`, `oops`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := newWireServer(t, reply{status: 200, body: strings.Replace(finalReply, `"It is sunny in Paris."`, jsonString(tt.answer), 1)})
			m := newTestModel(t, ws, newFakeClock())
			resp, err := m.Generate(context.Background(), &model.Request{
				Messages: []model.Message{model.UserMessage("List the issues")},
				Output:   &model.OutputSpec{Name: "issues", Schema: json.RawMessage(schema), Strict: true},
			})
			require.NoError(t, err)
			assert.Equal(t, tt.want, resp.Message.Content)
			assert.JSONEq(t, `{"type": "json_schema", "json_schema": {"name": "issues", "strict": true, "schema": {
				"type": "object",
				"properties": {"items": {"type": "array", "items": {"$ref": "#/$defs/issue"}}},
				"required": ["items"],
				"additionalProperties": false,
				"$defs": {"issue": {"type": "object",
					"properties": {"line": {"type": "integer"}, "note": {"type": ["string", "null"]}},
					"required": ["line", "note"], "additionalProperties": false}}
			}}}`, jsonOf(t, ws.received()[0].body["response_format"]))
		})
	}
}

func TestStrictModeKeywordsMoveToDescriptions(t *testing.T) {
	schema := `{"type":"object","properties":{
		"title":{"type":"string","description":"The title.","minLength":1,"maxLength":80},
		"tags":{"type":"array","items":{"type":"string","minLength":2},"uniqueItems":true,"minItems":1},
		"site":{"type":"string","format":"uri","pattern":"^https://"},
		"when":{"type":"string","format":"date-time"},
		"score":{"type":"integer","minimum":1,"maximum":5},
		"meta":{"type":"object","minProperties":1,"additionalProperties":{"type":"string"}},
		"status":{"type":"string","enum":["draft","done"],"default":"draft","not":{"const":"done"}}},
		"required":["title","tags","site","when","score","meta","status"],
		"if":{"properties":{"score":{"const":5}}},"then":{"required":["meta"]}}`
	ws := newWireServer(t, reply{status: 200, body: finalReply})
	m := newTestModel(t, ws, newFakeClock())
	_, err := m.Generate(context.Background(), &model.Request{
		Messages: []model.Message{model.UserMessage("x")},
		Output:   &model.OutputSpec{Schema: json.RawMessage(schema), Strict: true},
	})
	require.NoError(t, err)
	assert.JSONEq(t, `{
		"type": "object",
		"properties": {
			"title": {"type": "string", "description": "The title. (at least 1 character; at most 80 characters)"},
			"tags": {"type": "array", "items": {"type": "string", "description": "at least 2 characters"}, "minItems": 1,
				"description": "no duplicate items"},
			"site": {"type": "string", "pattern": "^https://", "description": "in uri format"},
			"when": {"type": "string", "format": "date-time"},
			"score": {"type": "integer", "minimum": 1, "maximum": 5},
			"meta": {"type": "object", "additionalProperties": {"type": "string"}, "description": "at least 1 key"},
			"status": {"type": "string", "enum": ["draft", "done"], "description": "default: \"draft\"; not \"done\""}
		},
		"required": ["title", "tags", "site", "when", "score", "meta", "status"],
		"additionalProperties": false
	}`, jsonOf(t, ws.received()[0].body["response_format"].(map[string]any)["json_schema"].(map[string]any)["schema"]))
}

// A server that closes the connection before answering is retried, while
// the one that answers 200 then sends nothing useful is not: the retry
// decision is made on whether an answer arrived.
func TestDroppedBeforeAnswerRetriedButNotAfter(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				_ = conn.Close()
			}
			return
		}
		w.WriteHeader(200)
	}))
	defer srv.Close()
	clock := newFakeClock()
	m, err := openai.New(openai.Config{BaseURL: srv.URL + "/v1", Model: "m", HTTPClient: srv.Client(),
		MaxRetries: 3, Rand: func() float64 { return 0.5 }, Sleep: clock.Sleep, Now: clock.Now})
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err = m.Generate(ctx, &model.Request{Messages: []model.Message{model.UserMessage("hi")}})
	require.ErrorContains(t, err, "response body invalid")
	assert.EqualValues(t, 2, calls.Load())
}
