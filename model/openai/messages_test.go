package openai_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/model"
)

// Every message goes on the wire with "content": OpenAI refuses a tool or
// user message without it ("Missing required parameter"), and a tool's
// result may well be empty. An assistant message that only makes tool calls
// carries null, as OpenAI's own answers do.
func TestEveryMessageCarriesContent(t *testing.T) {
	call := model.ToolCall{ID: "a", Name: "t", Arguments: `{}`}
	tests := []struct {
		name string
		msg  model.Message
		want string
	}{
		{"empty tool result", model.ToolMessage("a", "t", ""), `{"role":"tool","tool_call_id":"a","content":""}`},
		{"tool result", model.ToolMessage("a", "t", "done"), `{"role":"tool","tool_call_id":"a","content":"done"}`},
		{"empty user message", model.UserMessage(""), `{"role":"user","content":""}`},
		{"empty system message", model.SystemMessage(""), `{"role":"system","content":""}`},
		{"empty assistant message", model.Message{Role: model.RoleAssistant}, `{"role":"assistant","content":""}`},
		{
			"assistant making tool calls only",
			model.Message{Role: model.RoleAssistant, ToolCalls: []model.ToolCall{call}},
			`{"role":"assistant","content":null,"tool_calls":[{"id":"a","type":"function","function":{"name":"t","arguments":"{}"}}]}`,
		},
		{
			"assistant with text and tool calls",
			model.Message{Role: model.RoleAssistant, Content: "Looking.", ToolCalls: []model.ToolCall{call}},
			`{"role":"assistant","content":"Looking.","tool_calls":[{"id":"a","type":"function","function":{"name":"t","arguments":"{}"}}]}`,
		},
	}
	for _, tt := range tests {
		req := &model.Request{Messages: []model.Message{tt.msg}}
		t.Run("Generate/"+tt.name, func(t *testing.T) {
			ws := newWireServer(t, reply{status: 200, body: finalReply})
			_, err := newTestModel(t, ws, newFakeClock()).Generate(context.Background(), req)
			require.NoError(t, err)
			require.Len(t, ws.received(), 1)
			assert.JSONEq(t, "["+tt.want+"]", jsonOf(t, ws.received()[0].body["messages"]))
		})
		t.Run("Stream/"+tt.name, func(t *testing.T) {
			srv := newSSEServer(t, events(textChunk("ok"), chunk(`{}`, "stop"), "[DONE]"))
			m, _ := newStreamModel(t, srv)
			_, err := m.Stream(context.Background(), req, nil)
			require.NoError(t, err)
			require.Len(t, srv.received(), 1)
			assert.JSONEq(t, "["+tt.want+"]", jsonOf(t, srv.received()[0].body["messages"]))
		})
	}
}
