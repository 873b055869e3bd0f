package anthropic_test

import (
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/internal/modelconfig"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/anthropic"
	"github.com/offshoot-dev/offshoot/model/anthropic/anthropictest"
)

// contractRequest uses every part of a request the adapter maps.
func contractRequest() *model.Request {
	temp := 0.0
	failed := model.ToolMessage("toolu_2", "read_file", "Tool 'read_file' execution failed: no such file")
	failed.Failed = true
	return &model.Request{
		Messages: []model.Message{
			model.SystemMessage("You are careful."),
			model.UserMessage("Look around."),
			{Role: model.RoleAssistant, Content: "Listing.", Reasoning: []json.RawMessage{
				json.RawMessage(`{"type":"thinking","thinking":"Start with ls.","signature":"c2lnbmVk"}`),
				json.RawMessage(`{"type":"redacted_thinking","data":"ZW5jcnlwdGVk"}`)},
				ToolCalls: []model.ToolCall{{ID: "toolu_1", Name: "ls", Arguments: `{"path":"."}`}, {ID: "toolu_2", Name: "read_file", Arguments: `{"file_path":"x"}`}}},
			model.ToolMessage("toolu_1", "ls", "a.go\nb.go"),
			failed,
			model.UserMessage("Now answer."),
		},
		Tools: []model.ToolSpec{
			{Name: "ls", Description: "Lists a directory.", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)},
			{Name: "read_file", Description: "Reads a file."},
		},
		ToolChoice:  "auto",
		Output:      &model.OutputSpec{Name: "answer", Schema: json.RawMessage(`{"type":"object","properties":{"files":{"type":"array","items":{"type":"string"}}},"required":["files"],"additionalProperties":false}`)},
		Temperature: &temp,
		MaxTokens:   1000,
		Stop:        []string{"END"},
	}
}

// A request decodes into the SDK's own MessageNewParams and encodes back
// to the same JSON: every field the adapter sends is one the API defines,
// where the API defines it.
func TestRequestMatchesTheSDKsTypes(t *testing.T) {
	ctx := watchdog(t)
	var body []byte
	srv := newHTTPServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ = io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"{\"files\":[]}"}],"stop_reason":"end_turn","usage":{"input_tokens":3,"output_tokens":2}}`))
	}))
	m, err := anthropic.New(anthropic.Config{BaseURL: srv.URL, HTTPClient: srv.Client(), Model: "claude-sonnet-4-5", ThinkingBudget: 1024})
	require.NoError(t, err)
	resp, err := m.Generate(ctx, contractRequest())
	require.NoError(t, err)
	assert.JSONEq(t, `{"files":[]}`, resp.Message.Content)

	var params sdk.MessageNewParams
	require.NoError(t, json.Unmarshal(body, &params))
	known := map[string]bool{}
	for f := range reflect.TypeFor[sdk.MessageNewParams]().Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		known[name] = true
	}
	var top map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(body, &top))
	for key := range top {
		assert.True(t, known[key], "%q is a field of the SDK's MessageNewParams", key)
	}

	assert.Equal(t, sdk.Model("claude-sonnet-4-5"), params.Model)
	assert.Equal(t, int64(1024+8192), params.MaxTokens, "max_tokens is raised above the thinking budget")
	assert.Equal(t, int64(1024), params.Thinking.OfEnabled.BudgetTokens)
	require.Len(t, params.System, 1)
	assert.Equal(t, "You are careful.", params.System[0].Text)
	require.Len(t, params.Tools, 2)
	require.NotNil(t, params.Tools[1].OfTool)
	assert.Equal(t, "read_file", params.Tools[1].OfTool.Name)
	require.Len(t, params.Messages, 3, "the tool results and the user's text make one turn")
	require.NotNil(t, params.Messages[1].OfAssistant)
	assistant := params.Messages[1].OfAssistant.Content
	require.Len(t, assistant, 5)
	assert.NotNil(t, assistant[0].OfThinking)
	assert.Equal(t, "c2lnbmVk", assistant[0].OfThinking.Signature)
	assert.NotNil(t, assistant[1].OfRedactedThinking)
	assert.NotNil(t, assistant[3].OfToolUse)
	require.NotNil(t, params.Messages[2].OfUser)
	results := params.Messages[2].OfUser.Content
	require.Len(t, results, 3)
	require.NotNil(t, results[1].OfToolResult)
	assert.True(t, results[1].OfToolResult.IsError.Value)
	assert.Equal(t, "auto", *params.ToolChoice.GetType())
	assert.Contains(t, string(body), `"output_config":{"format":{"type":"json_schema","schema":{"type":"object"`)
}

// The fake server's answers, whole and streamed, decode into the SDK's
// Message and stream event types: the adapter is tested against the
// API's shapes.
func TestServerAnswersMatchTheSDKsTypes(t *testing.T) {
	srv := anthropictest.NewServer()
	defer srv.Close()
	srv.Answer = func([]byte) anthropictest.Turn {
		return anthropictest.Turn{Thinking: "Hm.", Text: "Here.", ToolCalls: []model.ToolCall{{ID: "toolu_1", Name: "ls", Arguments: `{"path":"."}`}}}
	}
	post := func(stream bool) string {
		body := `{"model":"claude-sonnet-4-5","max_tokens":10,"messages":[{"role":"user","content":[{"type":"text","text":"Hi"}]}]}`
		if stream {
			body = strings.Replace(body, `"max_tokens":10`, `"max_tokens":10,"stream":true`, 1)
		}
		resp, err := srv.Client().Post(srv.URL+"/v1/messages", "application/json", strings.NewReader(body))
		require.NoError(t, err)
		defer resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode)
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return string(b)
	}
	var msg sdk.Message
	require.NoError(t, json.Unmarshal([]byte(post(false)), &msg))
	require.Len(t, msg.Content, 3)
	assert.Equal(t, "thinking", msg.Content[0].Type)
	assert.Equal(t, "Here.", msg.Content[1].Text)
	assert.Equal(t, "ls", msg.Content[2].Name)
	assert.Equal(t, sdk.StopReasonToolUse, msg.StopReason)

	types := map[string]int{}
	for line := range strings.SplitSeq(post(true), "\n") {
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			continue
		}
		var ev sdk.MessageStreamEventUnion
		require.NoError(t, json.Unmarshal([]byte(data), &ev), data)
		types[ev.Type]++
	}
	assert.Equal(t, 1, types["message_start"])
	assert.Equal(t, 3, types["content_block_start"])
	assert.Equal(t, 1, types["message_stop"])
}

// The command's default Claude is the adapter's.
func TestDefaultModelIsTheCommands(t *testing.T) {
	assert.Equal(t, anthropic.DefaultModel, modelconfig.DefaultClaude)
}
