package openai_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/model"
)

// An answer without content and without tool calls is not an answer: it
// is a "response body invalid" error, not an empty message the caller
// would take for the model's last word. An answer whose content is an
// empty string is the model saying nothing, and is returned.
func TestAnswerWithoutContentOrToolCalls(t *testing.T) {
	noContent := strings.Replace(finalReply, `"content": "It is sunny in Paris.", `, ``, 1)
	nullContent := strings.Replace(finalReply, `"content": "It is sunny in Paris."`, `"content": null`, 1)
	emptyContent := strings.Replace(finalReply, `"content": "It is sunny in Paris."`, `"content": ""`, 1)
	whole := func(body string) func(w http.ResponseWriter, r *http.Request) {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, body)
		}
	}
	tests := []struct {
		name     string
		generate string                                       // the chat completion Generate gets, if any
		stream   func(w http.ResponseWriter, r *http.Request) // what Stream gets, if any
		wantErr  bool
	}{
		{name: "no content", generate: noContent, wantErr: true},
		{name: "null content", generate: nullContent, wantErr: true},
		{name: "empty content", generate: emptyContent},
		{name: "stream of a finish reason only", stream: events(chunk(`{}`, "stop"), usageChunk, "[DONE]"), wantErr: true},
		{name: "stream of a role and null content", stream: events(chunk(`{"role":"assistant","content":null}`, ""), chunk(`{}`, "stop"), "[DONE]"), wantErr: true},
		{name: "stream cut by length before any content", stream: events(chunk(`{"role":"assistant"}`, ""), chunk(`{}`, "length"), "[DONE]"), wantErr: true},
		{name: "stream of empty content", stream: events(chunk(`{"role":"assistant","content":"","refusal":null}`, ""), chunk(`{}`, "stop"), "[DONE]")},
		{name: "whole answer to a stream, null content", stream: whole(nullContent), wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var resp *model.Response
			var err error
			var requests int
			if tt.generate != "" {
				ws := newWireServer(t, reply{status: 200, body: tt.generate})
				resp, err = newTestModel(t, ws, newFakeClock()).Generate(context.Background(), userRequest("hi"))
				requests = len(ws.received())
			} else {
				srv := newSSEServer(t, tt.stream)
				m, _ := newStreamModel(t, srv)
				resp, err = m.Stream(context.Background(), userRequest("hi"), nil)
				requests = len(srv.received())
			}
			assert.Equal(t, 1, requests, "never retried")
			if !tt.wantErr {
				require.NoError(t, err)
				assert.Equal(t, model.Message{Role: model.RoleAssistant}, resp.Message)
				return
			}
			require.Error(t, err)
			assert.Nil(t, resp)
			var apiErr *model.APIError
			require.ErrorAs(t, err, &apiErr)
			assert.Contains(t, err.Error(), "response body invalid: the answer has neither content nor tool calls")
		})
	}
}
