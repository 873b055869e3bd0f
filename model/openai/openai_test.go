package openai_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/internal/modelconfig"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/openai"
)

const weatherParams = `{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`

const toolCallReply = `{
  "id": "chatcmpl-abc123",
  "object": "chat.completion",
  "created": 1741569952,
  "model": "gpt-test-2025-01-01",
  "choices": [{
    "index": 0,
    "message": {
      "role": "assistant",
      "content": null,
      "tool_calls": [{
        "id": "call_weather_1",
        "type": "function",
        "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}
      }],
      "refusal": null,
      "annotations": []
    },
    "logprobs": null,
    "finish_reason": "tool_calls"
  }],
  "usage": {
    "prompt_tokens": 82, "completion_tokens": 17, "total_tokens": 99,
    "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
    "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0, "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0}
  },
  "service_tier": "default",
  "system_fingerprint": "fp_44709d6fcb"
}`

const finalReply = `{
  "id": "chatcmpl-abc124",
  "object": "chat.completion",
  "created": 1741569953,
  "model": "gpt-test-2025-01-01",
  "choices": [{
    "index": 0,
    "message": {"role": "assistant", "content": "It is sunny in Paris.", "refusal": null, "annotations": []},
    "logprobs": null,
    "finish_reason": "stop"
  }],
  "usage": {"prompt_tokens": 120, "completion_tokens": 8, "total_tokens": 128},
  "system_fingerprint": "fp_44709d6fcb"
}`

func TestToolCallRoundThenFinalAnswer(t *testing.T) {
	ws := newWireServer(t, reply{status: 200, body: toolCallReply}, reply{status: 200, body: finalReply})
	m := newTestModel(t, ws, newFakeClock())
	ctx := context.Background()
	temp := 0.2

	req := &model.Request{
		Messages: []model.Message{
			model.SystemMessage("You are a weather bot."),
			model.UserMessage("Weather in Paris?"),
		},
		Tools: []model.ToolSpec{
			{Name: "get_weather", Description: "Current weather for a city.", Parameters: json.RawMessage(weatherParams)},
			{Name: "noop"},
		},
		ToolChoice:  "auto",
		Temperature: &temp,
		MaxTokens:   256,
	}
	resp, err := m.Generate(ctx, req)
	require.NoError(t, err)
	assert.Equal(t, &model.Response{
		Message: model.Message{Role: model.RoleAssistant, ToolCalls: []model.ToolCall{
			{ID: "call_weather_1", Name: "get_weather", Arguments: `{"city":"Paris"}`},
		}},
		FinishReason: model.FinishToolCalls,
		Usage:        model.Usage{InputTokens: 82, OutputTokens: 17, TotalTokens: 99},
		Model:        "gpt-test-2025-01-01",
		ID:           "chatcmpl-abc123",
	}, resp)

	req.Messages = append(req.Messages, resp.Message,
		model.ToolMessage("call_weather_1", "get_weather", `{"sky":"sunny"}`))
	req.ToolChoice = "get_weather"
	resp, err = m.Generate(ctx, req)
	require.NoError(t, err)
	assert.Equal(t, &model.Response{
		Message:      model.Message{Role: model.RoleAssistant, Content: "It is sunny in Paris."},
		FinishReason: model.FinishStop,
		Usage:        model.Usage{InputTokens: 120, OutputTokens: 8, TotalTokens: 128},
		Model:        "gpt-test-2025-01-01",
		ID:           "chatcmpl-abc124",
	}, resp)

	got := ws.received()
	require.Len(t, got, 2)
	for _, r := range got {
		assert.Equal(t, http.MethodPost, r.method)
		assert.Equal(t, "/v1/chat/completions", r.path)
		assert.Equal(t, "Bearer sk-test", r.header.Get("Authorization"))
		assert.Equal(t, "application/json", r.header.Get("Content-Type"))
		assert.Equal(t, "gpt-test", r.body["model"])
		if stream, ok := r.body["stream"]; ok {
			assert.Equal(t, false, stream, "stream must be absent or false")
		}
		assert.NotContains(t, r.body, "response_format")
		assert.NotContains(t, r.body, "max_tokens")
		assert.InDelta(t, 0.2, r.body["temperature"], 1e-6)
		assert.Equal(t, 256.0, r.body["max_completion_tokens"])
		assert.JSONEq(t, `[
			{"type": "function", "function": {"name": "get_weather", "description": "Current weather for a city.",
				"parameters": `+weatherParams+`}},
			{"type": "function", "function": {"name": "noop", "parameters": {"type": "object", "properties": {}}}}
		]`, jsonOf(t, r.body["tools"]))
		keys := make([]string, 0, len(r.body))
		for k := range r.body {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		assert.Subset(t, []string{"max_completion_tokens", "messages", "model", "stream", "temperature", "tool_choice", "tools"}, keys,
			"unexpected top-level fields in %s", r.raw)
	}

	first := got[0].body
	assert.Equal(t, "auto", first["tool_choice"])
	assert.JSONEq(t, `[
		{"role": "system", "content": "You are a weather bot."},
		{"role": "user", "content": "Weather in Paris?"}
	]`, jsonOf(t, first["messages"]))

	second := got[1].body
	assert.JSONEq(t, `{"type": "function", "function": {"name": "get_weather"}}`, jsonOf(t, second["tool_choice"]))
	assert.JSONEq(t, `[
		{"role": "system", "content": "You are a weather bot."},
		{"role": "user", "content": "Weather in Paris?"},
		{"role": "assistant", "content": null, "tool_calls": [
			{"id": "call_weather_1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}}
		]},
		{"role": "tool", "tool_call_id": "call_weather_1", "content": "{\"sky\":\"sunny\"}"}
	]`, jsonOf(t, second["messages"]))
}

func TestStructuredOutputStrict(t *testing.T) {
	answer := `{"city":"Paris","country":null,"stats":{"population":2102650,"area":null},"tags":[{"name":"capital","note":null}],"alias":null}`
	body := strings.Replace(finalReply, `"It is sunny in Paris."`, jsonString(answer), 1)
	ws := newWireServer(t, reply{status: 200, body: body})
	m := newTestModel(t, ws, newFakeClock())

	schema := `{
		"type": "object",
		"properties": {
			"city": {"type": "string"},
			"country": {"type": "string", "enum": ["FR", "DE"]},
			"stats": {"$ref": "#/$defs/stats"},
			"tags": {"type": "array", "items": {"type": "object",
				"properties": {"name": {"type": "string"}, "note": {"type": "string"}}, "required": ["name"]}},
			"alias": {"type": ["string", "null"]}
		},
		"required": ["city", "tags", "alias"],
		"$defs": {"stats": {"type": "object",
			"properties": {"population": {"type": "integer"}, "area": {"type": "number"}}, "required": ["population"]}}
	}`
	resp, err := m.Generate(context.Background(), &model.Request{
		Messages: []model.Message{model.UserMessage("Facts about Paris")},
		Output:   &model.OutputSpec{Name: "city facts", Description: "Facts.", Schema: json.RawMessage(schema), Strict: true},
	})
	require.NoError(t, err)
	// Optional fields the model had to send as null are gone; a required
	// nullable field keeps its null; key order is the model's.
	assert.Equal(t, `{"city":"Paris","stats":{"population":2102650},"tags":[{"name":"capital"}],"alias":null}`, resp.Message.Content)

	got := ws.received()
	require.Len(t, got, 1)
	assert.JSONEq(t, `{
		"type": "json_schema",
		"json_schema": {
			"name": "city_facts",
			"description": "Facts.",
			"strict": true,
			"schema": {
				"type": "object",
				"properties": {
					"city": {"type": "string"},
					"country": {"type": ["string", "null"], "enum": ["FR", "DE", null]},
					"stats": {"anyOf": [{"$ref": "#/$defs/stats"}, {"type": "null"}]},
					"tags": {"type": "array", "items": {"type": "object",
						"properties": {"name": {"type": "string"}, "note": {"type": ["string", "null"]}},
						"required": ["name", "note"], "additionalProperties": false}},
					"alias": {"type": ["string", "null"]}
				},
				"required": ["city", "country", "stats", "tags", "alias"],
				"additionalProperties": false,
				"$defs": {"stats": {"type": "object",
					"properties": {"population": {"type": "integer"}, "area": {"type": ["number", "null"]}},
					"required": ["population", "area"], "additionalProperties": false}}
			}
		}
	}`, jsonOf(t, got[0].body["response_format"]))
	// Property order is kept on the wire.
	assert.Less(t, strings.Index(got[0].raw, `"city"`), strings.Index(got[0].raw, `"country"`))
	assert.Less(t, strings.Index(got[0].raw, `"stats"`), strings.Index(got[0].raw, `"alias"`))
}

func TestStructuredOutputNotStrict(t *testing.T) {
	answer := `{"a":null}`
	ws := newWireServer(t, reply{status: 200, body: strings.Replace(finalReply, `"It is sunny in Paris."`, jsonString(answer), 1)})
	m := newTestModel(t, ws, newFakeClock())
	schema := `{"type":"object","properties":{"a":{"type":"string"}}}`
	resp, err := m.Generate(context.Background(), &model.Request{
		Messages: []model.Message{model.UserMessage("x")},
		Output:   &model.OutputSpec{Schema: json.RawMessage(schema)},
	})
	require.NoError(t, err)
	assert.Equal(t, answer, resp.Message.Content, "non-strict answers are returned as given")
	assert.JSONEq(t, `{"type":"json_schema","json_schema":{"name":"output","strict":false,"schema":`+schema+`}}`,
		jsonOf(t, ws.received()[0].body["response_format"]))
}

func TestRefusal(t *testing.T) {
	body := strings.Replace(finalReply, `"content": "It is sunny in Paris.", "refusal": null`, `"content": null, "refusal": "I can't help with that."`, 1)
	ws := newWireServer(t, reply{status: 200, body: body})
	m := newTestModel(t, ws, newFakeClock())
	resp, err := m.Generate(context.Background(), &model.Request{Messages: []model.Message{model.UserMessage("x")}})
	require.NoError(t, err)
	assert.Equal(t, model.FinishRefusal, resp.FinishReason)
	assert.Equal(t, "I can't help with that.", resp.Message.Content)
}

func TestCancelledBeforeCall(t *testing.T) {
	ws := newWireServer(t)
	m := newTestModel(t, ws, newFakeClock())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := m.Generate(ctx, &model.Request{Messages: []model.Message{model.UserMessage("hi")}})
	require.ErrorIs(t, err, context.Canceled)
	assert.Empty(t, ws.received())
}

func TestRequestValidation(t *testing.T) {
	ws := newWireServer(t)
	tests := []struct {
		name    string
		cfg     func(*openai.Config)
		req     *model.Request
		wantErr string
	}{
		{name: "nil request", req: nil, wantErr: "needs a request"},
		{name: "no model id", cfg: func(c *openai.Config) { c.Model = "" }, req: &model.Request{}, wantErr: "LLM_MODEL_ID"},
		{name: "bad role", req: &model.Request{Messages: []model.Message{{Role: "function"}}}, wantErr: `message 0: unknown role "function"`},
		{name: "tool message without id", req: &model.Request{Messages: []model.Message{{Role: model.RoleTool, Content: "x"}}}, wantErr: "without tool_call_id"},
		{name: "bad tool schema", req: &model.Request{Tools: []model.ToolSpec{{Name: "t", Parameters: json.RawMessage(`{`)}}}, wantErr: `tool "t"`},
		{name: "bad output schema", req: &model.Request{Output: &model.OutputSpec{Schema: json.RawMessage(`[`), Strict: true}}, wantErr: "output schema"},
		{name: "output schema not an object", req: &model.Request{Output: &model.OutputSpec{Schema: json.RawMessage(`[]`), Strict: true}}, wantErr: "want a JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var mutate []func(*openai.Config)
			if tt.cfg != nil {
				mutate = append(mutate, tt.cfg)
			}
			m := newTestModel(t, ws, newFakeClock(), mutate...)
			_, err := m.Generate(context.Background(), tt.req)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.wantErr)
		})
	}
	assert.Empty(t, ws.received())
}

func TestSamplingAndLegacyFields(t *testing.T) {
	ws := newWireServer(t, reply{status: 200, body: finalReply})
	m := newTestModel(t, ws, newFakeClock(), func(c *openai.Config) { c.LegacyMaxTokens = true; c.APIKey = "" })
	zero, seed := 0.0, 7
	_, err := m.Generate(context.Background(), &model.Request{
		Model:       "other-model",
		Messages:    []model.Message{{Role: model.RoleUser, Name: "ann", Content: "hi"}},
		Temperature: &zero,
		MaxTokens:   10,
		Stop:        []string{"END"},
		Seed:        &seed,
		ToolChoice:  "none",
	})
	require.NoError(t, err)
	body := ws.received()[0].body
	assert.Empty(t, ws.received()[0].header.Get("Authorization"), "no key, no header")
	assert.Equal(t, "other-model", body["model"])
	assert.Equal(t, 10.0, body["max_tokens"])
	assert.NotContains(t, body, "max_completion_tokens")
	assert.InDelta(t, 0, body["temperature"], 1e-30, "an explicit zero temperature is sent")
	assert.Contains(t, body, "temperature")
	assert.Equal(t, []any{"END"}, body["stop"])
	assert.Equal(t, 7.0, body["seed"])
	assert.Equal(t, "none", body["tool_choice"])
	assert.JSONEq(t, `[{"role":"user","name":"ann","content":"hi"}]`, jsonOf(t, body["messages"]))
}

func TestNoChoices(t *testing.T) {
	ws := newWireServer(t, reply{status: 200, body: `{"id":"x","object":"chat.completion","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":1,"completion_tokens":0,"total_tokens":1}}`})
	m := newTestModel(t, ws, newFakeClock())
	_, err := m.Generate(context.Background(), &model.Request{Messages: []model.Message{model.UserMessage("hi")}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "without choices")
}

func TestNewRejectsBadBaseURL(t *testing.T) {
	for _, u := range []string{"localhost:8000", "ftp://x/v1", "http://"} {
		_, err := openai.New(openai.Config{BaseURL: u})
		require.Error(t, err, u)
		assert.Contains(t, err.Error(), "absolute http(s) URL")
	}
}

func TestFactoryWithRouter(t *testing.T) {
	ws := newWireServer(t, reply{status: 200, body: finalReply})
	cfg, err := modelconfig.FromEnv(func(k string) string {
		return map[string]string{"LLM_MODEL_ID": "gpt-main", "LLM_BASE_URL": ws.URL + "/v1", "LIGHT_LLM_MODEL_ID": "gpt-light", "LLM_API_KEY": "sk-env"}[k]
	})
	require.NoError(t, err)
	r, err := model.NewRouter(cfg, openai.Factory(openai.Config{HTTPClient: ws.Client()}))
	require.NoError(t, err)
	light, err := r.Resolve("light", nil)
	require.NoError(t, err)
	_, err = light.Generate(context.Background(), &model.Request{Messages: []model.Message{model.UserMessage("hi")}})
	require.NoError(t, err)
	got := ws.received()[0]
	assert.Equal(t, "gpt-light", got.body["model"])
	assert.Equal(t, "Bearer sk-env", got.header.Get("Authorization"))

	_, err = model.NewRouter(model.Config{Models: map[string]model.ModelConfig{"main": {ModelID: "m", BaseURL: "nope"}}}, openai.Factory(openai.Config{}))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `build model "main"`)
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
