package runner_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/tools"
)

// recording is a hand-written tool that keeps the arguments it was called
// with.
type recording struct {
	handmade
	got *[]string
}

func (r recording) Call(_ context.Context, _ *tools.Invocation, args json.RawMessage) tools.Outcome {
	*r.got = append(*r.got, string(args))
	return tools.Outcome{Text: "ran", Success: true}
}

// A hand-written tool (one not built with tools.New) gets the arguments
// the loop checked: malformed or non-object arguments are the call's
// validation failure and the tool is not called; empty ones are {}.
func TestHandWrittenToolsGetOnlyObjectArguments(t *testing.T) {
	for _, tc := range []struct {
		name, args, want string
		ran              string // the arguments the tool got, when it ran
	}{
		{"an array", `["a"]`, "Tool validation failed: raw: must be a JSON object, got an array", ""},
		{"a string", `"x"`, "Tool validation failed: raw: must be a JSON object, got a string", ""},
		{"a number", ` 42 `, "Tool validation failed: raw: must be a JSON object, got a number", ""},
		{"a boolean", `true`, "Tool validation failed: raw: must be a JSON object, got a boolean", ""},
		{"null", `null`, "Tool validation failed: raw: must be a JSON object, got null", ""},
		{"truncated", `{"path":`, "Tool validation failed: raw: the arguments are not valid JSON: unexpected end of JSON input; send one JSON object", ""},
		{"a stray comma", `{"path":"a",}`, "Tool validation failed: raw: the arguments are not valid JSON: invalid character '}' looking for beginning of object key string at byte 13; send one JSON object", ""},
		{"two values", `{} {}`, "Tool validation failed: raw: the arguments are not valid JSON: invalid character '{' after top-level value at byte 4; send one JSON object", ""},
		{"an array that is not JSON", `[1,`, "Tool validation failed: raw: the arguments are not valid JSON: unexpected end of JSON input; send one JSON object", ""},
		{"empty", ``, "ran", `{}`},
		{"white space", " \n\t", "ran", `{}`},
		{"an object", ` {"path": "a"} `, "ran", `{"path": "a"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			tool := recording{handmade: handmade{name: "raw"}, got: &got}
			s := newSession(t)
			m := scripted.New(scripted.ToolCall("raw", tc.args), scripted.Text("done"))
			resp, err := runner.Evaluate(ctx, request(newPrompt(t, tool), s, m))
			require.NoError(t, err)
			assert.Equal(t, tc.want, lastToolMessage(t, resp))
			ti, ok := session.Latest[runner.ToolInvoked](s)
			require.True(t, ok)
			if tc.ran == "" {
				assert.Empty(t, got, "the tool is not called")
				assert.False(t, ti.Success)
				assert.Equal(t, tc.want, ti.Result)
				return
			}
			assert.Equal(t, []string{tc.ran}, got)
			assert.True(t, ti.Success)
		})
	}
}

// Arguments the loop refuses are not put to Request.Approve: there is no
// call to approve.
func TestRefusedArgumentsAreNotPutToTheApprover(t *testing.T) {
	var got []string
	asked := 0
	s := newSession(t)
	m := scripted.New(scripted.ToolCall("raw", `[]`), scripted.ToolCall("raw", `{}`), scripted.Text("done"))
	req := request(newPrompt(t, recording{handmade: handmade{name: "raw"}, got: &got}), s, m)
	req.Approve = func(context.Context, *tools.Invocation, model.ToolCall) error {
		asked++
		return nil
	}
	_, err := runner.Evaluate(ctx, req)
	require.NoError(t, err)
	assert.Equal(t, 1, asked, "only the call with an object")
	assert.Equal(t, []string{`{}`}, got)
}
