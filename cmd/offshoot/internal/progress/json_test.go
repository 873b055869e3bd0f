package progress

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/bus"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/subagent"
)

func TestJSON(t *testing.T) {
	b := bus.New()
	var out bytes.Buffer
	stop := JSON(b, &out)
	tell(t, b,
		ev{"s1", runner.ModelCalled{Turn: 1, Model: "main"}},
		text("s1", "<b>&"),
		ev{"s1", func() {}},
	)
	stop()
	tell(t, b, text("s1", "after stop"))

	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, lines, 3)
	var got []Line
	for _, l := range lines {
		var line Line
		require.NoError(t, json.Unmarshal([]byte(l), &line), l)
		got = append(got, line)
	}
	assert.Equal(t, "runner.ModelCalled", got[0].Type)
	assert.Equal(t, "s1", got[0].SessionID)
	assert.JSONEq(t, `{"evaluation":"","ns":"","key":"","model":"main","turn":1,"duration":0,"usage":{"input_tokens":0,"output_tokens":0,"total_tokens":0}}`, string(got[0].Event))
	assert.Equal(t, "runner.Delta", got[1].Type)
	assert.Contains(t, lines[1], `<b>&`, "no HTML escaping")
	assert.NotContains(t, lines[1], `"seq"`, "streamed text is told, not recorded: it has no place in a log")
	assert.Equal(t, "func()", got[2].Type)
	assert.Contains(t, got[2].Error, "cannot encode the event")
	assert.Empty(t, got[2].Event)
}

// An event told to observers only comes in an envelope addressed to no
// session: its line takes the event's own session id, and the key is
// always there.
func TestJSONSessionID(t *testing.T) {
	tests := []struct {
		name string
		ev   ev
		want string
	}{
		{"addressed to a session", ev{"s1", runner.ModelCalled{Turn: 1}}, "s1"},
		{"the envelope wins", ev{"s1", runner.Delta{SessionID: "s2"}}, "s1"},
		{"streamed text", text("s2", "hi"), "s2"},
		{"a subagent starts", ev{"", subagent.Started{AgentID: "a1", SessionID: "child", ParentID: "s1"}}, "child"},
		{"a subagent ends", ev{"", subagent.Finished{AgentID: "a1", SessionID: "child", ParentID: "s1"}}, "child"},
		{"start hook", ev{"", subagent.SubagentStart{AgentID: "a1", SessionID: "child", ParentSessionID: "s1"}}, "child"},
		{"stop hook", ev{"", subagent.SubagentStop{AgentID: "a1", SessionID: "child", ParentSessionID: "s1"}}, "child"},
		{"a background task ends", ev{"", subagent.TaskNotification{TaskID: "a1", SessionID: "s1"}}, "s1"},
		{"an event naming no session", ev{"", runner.ModelCalled{Turn: 1}}, ""},
		{"a session id that is no string", ev{"", map[string]any{"session_id": 5}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := bus.New()
			var out bytes.Buffer
			stop := JSON(b, &out)
			tell(t, b, tt.ev)
			stop()
			var line map[string]any
			require.NoError(t, json.Unmarshal(out.Bytes(), &line), out.String())
			require.Contains(t, line, "session_id", "the key is always written")
			assert.Equal(t, tt.want, line["session_id"])
		})
	}
}
