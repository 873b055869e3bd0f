package scripted_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/scripted"
)

func load(t *testing.T, script string) *scripted.Model {
	t.Helper()
	m, err := scripted.LoadScript(strings.NewReader(script))
	require.NoError(t, err)
	return m
}

func TestLoadScriptTurns(t *testing.T) {
	sys := model.SystemMessage("You review code.")
	user := model.UserMessage("Review main.go")
	tests := []struct {
		name   string
		script string
		req    *model.Request
		want   model.Message
		finish model.FinishReason
		usage  *model.Usage
	}{
		{
			name:   "text",
			script: `{"turns": [{"text": "Hello."}]}`,
			req:    conv(user),
			want:   model.AssistantMessage("Hello."),
			finish: model.FinishStop,
		},
		{
			name:   "tool call with object arguments",
			script: `{"turns": [{"tool_calls": [{"name": "read_file", "arguments": {"path": "main.go", "limit": 10}}]}]}`,
			req:    conv(sys, user),
			want:   model.AssistantMessage("", model.ToolCall{ID: "call_2_0", Name: "read_file", Arguments: `{"path":"main.go","limit":10}`}),
			finish: model.FinishToolCalls,
		},
		{
			name:   "tool call with raw arguments and an id",
			script: `{"turns": [{"tool_calls": [{"id": "c9", "name": "grep", "arguments": "{\"pattern\": "}]}]}`,
			req:    conv(user),
			want:   model.AssistantMessage("", model.ToolCall{ID: "c9", Name: "grep", Arguments: `{"pattern": `}),
			finish: model.FinishToolCalls,
		},
		{
			name:   "tool call without arguments",
			script: `{"turns": [{"tool_calls": [{"name": "ls"}, {"name": "planning_read_plan"}]}]}`,
			req:    conv(user),
			want: model.AssistantMessage("",
				model.ToolCall{ID: "call_1_0", Name: "ls", Arguments: "{}"},
				model.ToolCall{ID: "call_1_1", Name: "planning_read_plan", Arguments: "{}"}),
			finish: model.FinishToolCalls,
		},
		{
			name:   "text with tool calls",
			script: `{"turns": [{"text": "Let me look.", "tool_calls": [{"name": "ls", "arguments": {}}]}]}`,
			req:    conv(sys, user),
			want:   model.AssistantMessage("Let me look.", model.ToolCall{ID: "call_2_0", Name: "ls", Arguments: "{}"}),
			finish: model.FinishToolCalls,
			// 2 messages in; "Let me look." + "ls" + "{}" is 16 bytes out.
			usage: &model.Usage{InputTokens: 20, OutputTokens: 4, TotalTokens: 24},
		},
		{
			name:   "json",
			script: `{"turns": [{"json": {"title": "Fix Close",  "priority": 2}}]}`,
			req:    conv(user),
			want:   model.AssistantMessage(`{"title":"Fix Close","priority":2}`),
			finish: model.FinishStop,
		},
		{
			name:   "usage given",
			script: `{"turns": [{"text": "Done.", "usage": {"input_tokens": 12, "output_tokens": 2}}]}`,
			req:    conv(user),
			want:   model.AssistantMessage("Done."),
			finish: model.FinishStop,
			usage:  &model.Usage{InputTokens: 12, OutputTokens: 2, TotalTokens: 14},
		},
		{
			name: "route by system text",
			script: `{"turns": [
				{"when": {"system_contains": "review"}, "turns": [{"text": "routed"}]},
				{"text": "in order"}
			]}`,
			req:    conv(sys, user),
			want:   model.AssistantMessage("routed"),
			finish: model.FinishStop,
		},
		{
			name: "route by every condition",
			script: `{"turns": [
				{"when": {"system_contains": "review", "last_user_contains": "other.go"}, "turns": [{"text": "routed"}]},
				{"text": "in order"}
			]}`,
			req:    conv(sys, user),
			want:   model.AssistantMessage("in order"),
			finish: model.FinishStop,
		},
		{
			name: "nested route",
			script: `{"turns": [
				{"when": {"system_contains": "review"}, "turns": [
					{"when": {"last_user_contains": "main.go"}, "turns": [{"text": "inner"}]},
					{"text": "outer"}
				]}
			]}`,
			req:    conv(sys, user),
			want:   model.AssistantMessage("inner"),
			finish: model.FinishStop,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := load(t, tt.script)
			resp, err := m.Generate(ctx, tt.req)
			require.NoError(t, err)
			assert.Equal(t, tt.want, resp.Message)
			assert.Equal(t, tt.finish, resp.FinishReason)
			if tt.usage != nil {
				assert.Equal(t, *tt.usage, resp.Usage)
			}
		})
	}
}

func TestLoadScriptErrorTurns(t *testing.T) {
	tests := []struct {
		name   string
		script string
		is     error
		check  func(t *testing.T, err error)
	}{
		{
			name:   "rate limit with a wait",
			script: `{"turns": [{"error": {"kind": "rate_limited", "message": "slow down", "retry_after": "2s"}}]}`,
			is:     model.ErrRateLimited,
			check: func(t *testing.T, err error) {
				var rl *model.RateLimitError
				require.ErrorAs(t, err, &rl)
				assert.Equal(t, 2*time.Second, rl.RetryAfter)
			},
		},
		{name: "context length", script: `{"turns": [{"error": {"kind": "context_length", "message": "too long"}}]}`, is: model.ErrContextLength},
		{name: "auth", script: `{"turns": [{"error": {"kind": "auth", "message": "bad key"}}]}`, is: model.ErrAuth},
		{
			name:   "any other error",
			script: `{"turns": [{"error": {"message": "the server is down"}}]}`,
			check: func(t *testing.T, err error) {
				var rec *scripted.RecordedError
				require.ErrorAs(t, err, &rec)
				assert.Equal(t, "the server is down", rec.Message)
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := load(t, tt.script)
			_, err := m.Generate(ctx, conv(model.UserMessage("hi")))
			require.Error(t, err)
			if tt.is != nil {
				assert.ErrorIs(t, err, tt.is)
			}
			if tt.check != nil {
				tt.check(t, err)
			}
		})
	}
}

func TestLoadScriptPlaysInOrderAndRepeats(t *testing.T) {
	m := load(t, `{"turns": [{"text": "one"}, {"text": "again", "repeat": true}]}`)
	for _, want := range []string{"one", "again", "again", "again"} {
		resp, err := m.Generate(ctx, conv(model.UserMessage("hi")))
		require.NoError(t, err)
		assert.Equal(t, want, resp.Message.Content)
	}
	require.NoError(t, m.Verify())

	m = load(t, `{"turns": [{"text": "only"}]}`)
	_, err := m.Generate(ctx, conv(model.UserMessage("hi")))
	require.NoError(t, err)
	_, err = m.Generate(ctx, conv(model.UserMessage("hi")))
	assert.ErrorIs(t, err, scripted.ErrUnexpectedRequest)

	m = load(t, `{"turns": []}`)
	_, err = m.Generate(ctx, conv(model.UserMessage("hi")))
	assert.ErrorIs(t, err, scripted.ErrUnexpectedRequest, "an empty script answers nothing")

	m = load(t, `{"turns": [{"when": {"has_tool_result": "ls"}, "turns": [{"text": "listed"}]}]}`)
	require.Error(t, m.Verify(), "an unused route is reported")
	resp, err := m.Generate(ctx, conv(model.UserMessage("hi"),
		model.AssistantMessage("", model.ToolCall{ID: "c", Name: "ls", Arguments: "{}"}),
		model.ToolMessage("c", "ls", "a.go")))
	require.NoError(t, err)
	assert.Equal(t, "listed", resp.Message.Content)
	require.NoError(t, m.Verify())
}

func TestLoadScriptRejects(t *testing.T) {
	tests := []struct {
		name   string
		script string
		line   int
		field  string
		msg    string
	}{
		{name: "empty", script: "", msg: "the script is empty"},
		{name: "not JSON", script: "{\"turns\": [\n  {\"text\": \"a\"},\n  {\"text\": }\n]}", line: 3, msg: "not valid JSON"},
		{name: "truncated", script: `{"turns": [`, msg: "not valid JSON"},
		{name: "not an object", script: `[{"text": "a"}]`, line: 1, msg: "must be a JSON object"},
		{name: "no turns", script: `{}`, line: 1, field: "turns", msg: "missing"},
		{name: "unknown top key", script: `{"turns": [], "model": "x"}`, line: 1, field: "model", msg: `a script has only "turns"`},
		{name: "turns not a list", script: `{"turns": {"text": "a"}}`, line: 1, field: "turns", msg: "must be a list of turns"},
		{name: "turn not an object", script: "{\"turns\": [\n\"hello\"]}", line: 2, field: "turns[0]", msg: "must be an object"},
		{name: "unknown turn key", script: "{\"turns\": [\n{\"text\": \"a\",\n \"txet\": \"b\"}]}", line: 3, field: "turns[0].txet", msg: "unknown key"},
		{name: "duplicate key", script: `{"turns": [{"text": "a", "text": "b"}]}`, line: 1, field: "turns[0].text", msg: "appears twice"},
		{name: "empty turn", script: `{"turns": [{}]}`, field: "turns[0]", line: 1, msg: `give one of "text", "tool_calls", "json", "error" or "when"`},
		{name: "two kinds", script: `{"turns": [{"text": "a", "json": {}}]}`, field: "turns[0]", line: 1, msg: `"text" and "json"`},
		{name: "text not a string", script: `{"turns": [{"text": 5}]}`, field: "turns[0].text", line: 1, msg: "must be a string"},
		{name: "turns without when", script: `{"turns": [{"turns": [{"text": "a"}]}]}`, field: "turns[0].turns", line: 1, msg: `add "when"`},
		{name: "turns beside text", script: `{"turns": [{"text": "a", "turns": []}]}`, field: "turns[0].turns", line: 1, msg: "nested turns belong to a route"},
		{name: "no calls", script: `{"turns": [{"tool_calls": []}]}`, field: "turns[0].tool_calls", line: 1, msg: "is empty"},
		{name: "call without name", script: `{"turns": [{"tool_calls": [{"arguments": {}}]}]}`, field: "turns[0].tool_calls[0].name", line: 1, msg: "missing"},
		{name: "call with blank name", script: `{"turns": [{"tool_calls": [{"name": " "}]}]}`, field: "turns[0].tool_calls[0].name", line: 1, msg: "is empty"},
		{name: "arguments a list", script: `{"turns": [{"tool_calls": [{"name": "ls", "arguments": [1]}]}]}`, field: "turns[0].tool_calls[0].arguments", line: 1, msg: "not a list"},
		{name: "unknown call key", script: `{"turns": [{"tool_calls": [{"name": "ls", "args": {}}]}]}`, field: "turns[0].tool_calls[0].args", line: 1, msg: "unknown key"},
		{name: "error without message", script: `{"turns": [{"error": {"kind": "auth"}}]}`, field: "turns[0].error.message", line: 1, msg: "missing"},
		{name: "unknown error kind", script: `{"turns": [{"error": {"kind": "teapot", "message": "x"}}]}`, field: "turns[0].error.kind", line: 1, msg: `unknown kind "teapot"`},
		{name: "bad wait", script: `{"turns": [{"error": {"kind": "rate_limited", "message": "x", "retry_after": "soon"}}]}`, field: "turns[0].error.retry_after", line: 1, msg: "must be a duration"},
		{name: "wait without rate limit", script: `{"turns": [{"error": {"message": "x", "retry_after": "1s"}}]}`, field: "turns[0].error.retry_after", line: 1, msg: "only a rate limit"},
		{name: "usage on an error", script: `{"turns": [{"error": {"message": "x"}, "usage": {}}]}`, field: "turns[0].usage", line: 1, msg: "only an answer has usage"},
		{name: "negative usage", script: `{"turns": [{"text": "a", "usage": {"input_tokens": -1}}]}`, field: "turns[0].usage.input_tokens", line: 1, msg: "0 or more"},
		{name: "unknown usage key", script: `{"turns": [{"text": "a", "usage": {"tokens": 1}}]}`, field: "turns[0].usage.tokens", line: 1, msg: "unknown key"},
		{name: "repeat not a bool", script: `{"turns": [{"text": "a", "repeat": "yes"}]}`, field: "turns[0].repeat", line: 1, msg: "true or false"},
		{name: "route without turns", script: `{"turns": [{"when": {"system_contains": "x"}}]}`, field: "turns[0].turns", line: 1, msg: "missing"},
		{name: "route with no turn", script: `{"turns": [{"when": {"system_contains": "x"}, "turns": []}]}`, field: "turns[0].turns", line: 1, msg: "is empty"},
		{name: "route without condition", script: `{"turns": [{"when": {}, "turns": [{"text": "a"}]}]}`, field: "turns[0].when", line: 1, msg: "has no condition"},
		{name: "unknown condition", script: `{"turns": [{"when": {"model": "x"}, "turns": [{"text": "a"}]}]}`, field: "turns[0].when.model", line: 1, msg: "unknown condition"},
		{name: "empty condition", script: `{"turns": [{"when": {"system_contains": ""}, "turns": [{"text": "a"}]}]}`, field: "turns[0].when.system_contains", line: 1, msg: "matches every request"},
		{name: "error in a route", script: "{\"turns\": [{\"when\": {\"system_contains\": \"x\"}, \"turns\": [\n\n{\"text\": 1}]}]}", field: "turns[0].turns[0].text", line: 3, msg: "must be a string"},
		{name: "too deep", script: strings.Repeat(`{"when": {"system_contains": "x"}, "turns": [`, 20) + `{"text": "a"}` + strings.Repeat("]}", 20), msg: "nest more than 16 deep"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			script := tt.script
			if tt.name == "too deep" {
				script = `{"turns": [` + script + `]}`
			}
			m, err := scripted.LoadScript(strings.NewReader(script))
			require.Error(t, err)
			assert.Nil(t, m)
			var se *scripted.ScriptError
			require.ErrorAs(t, err, &se)
			assert.Contains(t, se.Message, tt.msg)
			if tt.line != 0 {
				assert.Equal(t, tt.line, se.Line, "line")
			}
			if tt.field != "" {
				assert.Equal(t, tt.field, se.Field)
			}
			assert.True(t, strings.HasPrefix(err.Error(), "scripted: script"), err.Error())
		})
	}
}

func TestLoadScriptLimits(t *testing.T) {
	big := `{"turns": [{"text": "` + strings.Repeat("a", 8<<20) + `"}]}`
	_, err := scripted.LoadScript(strings.NewReader(big))
	var se *scripted.ScriptError
	require.ErrorAs(t, err, &se)
	assert.Contains(t, se.Message, "larger than 8 MiB")

	_, err = scripted.LoadScript(failingReader{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "read the script")
}

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("disk on fire") }

func TestScriptErrorText(t *testing.T) {
	assert.Equal(t, "scripted: script line 3: turns[1].text: must be a string",
		(&scripted.ScriptError{Line: 3, Field: "turns[1].text", Message: "must be a string"}).Error())
	assert.Equal(t, "scripted: script: the script is empty",
		(&scripted.ScriptError{Message: "the script is empty"}).Error())
}

// FuzzLoadScript checks that any input either loads or fails with a
// *ScriptError whose line lies in the input, never panics, and that a
// loaded script answers a request, or refuses it, without hanging.
func FuzzLoadScript(f *testing.F) {
	f.Add([]byte(`{"turns": [{"text": "Hello."}]}`))
	f.Add([]byte(`{"turns": [{"tool_calls": [{"name": "ls", "arguments": {"path": "."}}]}, {"text": "a", "repeat": true}]}`))
	f.Add([]byte(`{"turns": [{"when": {"system_contains": "x", "last_user_contains": "y"}, "turns": [{"json": [1, 2]}]}]}`))
	f.Add([]byte(`{"turns": [{"error": {"kind": "rate_limited", "message": "m", "retry_after": "1s"}}]}`))
	f.Add([]byte("{\"turns\": [\n{\"text\": }]}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := scripted.LoadScript(bytes.NewReader(data))
		if err != nil {
			require.Nil(t, m)
			var se *scripted.ScriptError
			require.ErrorAs(t, err, &se)
			require.NotEmpty(t, se.Message)
			require.LessOrEqual(t, se.Line, 1+bytes.Count(data, []byte("\n")))
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_, _ = m.Generate(ctx, conv(model.SystemMessage("sys"), model.UserMessage("hi")))
		require.NoError(t, ctx.Err(), "a loaded script must answer at once")
	})
}

func ExampleLoadScript() {
	m, err := scripted.LoadScript(strings.NewReader(`{"turns": [
		{"when": {"system_contains": "You review code"}, "turns": [{"text": "main.go ignores the error of Close."}]},
		{"text": "Hello."}
	]}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	resp, _ := m.Generate(context.Background(), &model.Request{Messages: []model.Message{
		model.SystemMessage("You review code."), model.UserMessage("Review main.go."),
	}})
	fmt.Println(resp.Message.Content)

	_, err = scripted.LoadScript(strings.NewReader("{\"turns\": [\n  {\"txt\": \"Hello.\"}\n]}"))
	fmt.Println(err)
	// Output:
	// main.go ignores the error of Close.
	// scripted: script line 2: turns[0].txt: unknown key; a turn has "text", "tool_calls", "json", "error", "when", "turns", "usage", "repeat"
}
