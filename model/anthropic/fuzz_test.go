package anthropic

import (
	"bytes"
	"strings"
	"testing"

	"github.com/offshoot-dev/offshoot/model"
)

// Whatever a server sends as a whole message, parsing it returns an
// answer or an error, never panics, and keeps within its bounds.
func FuzzParseMessage(f *testing.F) {
	for _, seed := range []string{
		`{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"thinking","thinking":"Hm.","signature":"c2ln"},{"type":"text","text":"Hi"},{"type":"tool_use","id":"toolu_1","name":"ls","input":{"path":"."}}],"stop_reason":"tool_use","usage":{"input_tokens":5,"cache_read_input_tokens":2048,"cache_creation_input_tokens":10,"output_tokens":7}}`,
		`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`,
		`{"type":"message","content":[{"type":"tool_use","input":"not an object"}]}`,
		`{"type":"message","content":{}}`,
		`[]`, ``, `{`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := parseMessage(200, data, nil)
		if err != nil {
			return
		}
		resp := a.response(&model.Request{})
		for _, c := range resp.Message.ToolCalls {
			if c.ID == "" {
				t.Fatalf("a tool call without an id: %+v", c)
			}
		}
		if resp.Usage.TotalTokens != resp.Usage.InputTokens+resp.Usage.OutputTokens {
			t.Fatalf("usage does not add up: %+v", resp.Usage)
		}
	})
}

// Whatever a server streams, reading it returns an answer or an error,
// never panics, and the text delivered is the text of the answer.
func FuzzStream(f *testing.F) {
	for _, seed := range []string{
		"event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"usage\":{\"input_tokens\":3}}}\n\n" +
			"data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"thinking\",\"thinking\":\"\"}}\n\n" +
			"data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"Hm\"}}\n\n" +
			"data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"signature_delta\",\"signature\":\"c2ln\"}}\n\n" +
			"data: {\"type\":\"content_block_stop\",\"index\":0}\n\n" +
			"data: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n" +
			"data: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hi\"}}\n\n" +
			"data: {\"type\":\"content_block_start\",\"index\":2,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"ls\",\"input\":{}}}\n\n" +
			"data: {\"type\":\"content_block_delta\",\"index\":2,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"pa\"}}\n\n" +
			"data: {\"type\":\"content_block_delta\",\"index\":2,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"th\\\":1}\"}}\n\n" +
			"data: {\"type\":\"content_block_stop\",\"index\":2}\n\n" +
			"data: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\"},\"usage\":{\"output_tokens\":9}}\n\n" +
			"data: {\"type\":\"message_stop\"}\n\n",
		"data: {\"type\":\"content_block_delta\",\"index\":5,\"delta\":{\"type\":\"text_delta\",\"text\":\"orphan\"}}\n\n",
		"data: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n",
		"data: {\"type\":\"content_block_start\",\"content_block\":{\"type\":\"redacted_thinking\",\"data\":\"x\"}}\n\n",
		"data: not json\n\n",
		": ping\n\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var text strings.Builder
		s := streamState{req: &model.Request{}, fn: func(d model.Delta) error {
			text.WriteString(d.Text)
			return nil
		}, status: 200, limit: 1 << 20}
		err := s.read(newEventReader(bytes.NewReader(data)))
		if err != nil {
			_ = s.partial()
			return
		}
		resp := s.answer.response(s.req)
		if resp.Message.Content != text.String() {
			t.Fatalf("the answer's text %q is not the text delivered %q", resp.Message.Content, text.String())
		}
	})
}
