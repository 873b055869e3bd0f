package offshoot_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot"
	"github.com/offshoot-dev/offshoot/subagent"
)

// Each message names its kind; a task notification is a system message,
// as in the Claude Agent SDK (its Subtype says "task_notification").
func TestMessageTypes(t *testing.T) {
	note := offshoot.TaskNotificationMessage{TaskNotification: subagent.TaskNotification{
		Type: "system", Subtype: "task_notification", TaskID: "agent-1", Status: subagent.TaskStatusCompleted,
	}}
	for _, tc := range []struct {
		msg  offshoot.Message
		want string
	}{
		{offshoot.TextDelta{}, "text_delta"},
		{offshoot.AssistantMessage{}, "assistant"},
		{offshoot.ToolResultMessage{}, "tool_result"},
		{note, "system"},
		{offshoot.ResultMessage{}, "result"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			assert.Equal(t, tc.want, tc.msg.MessageType())
		})
	}
	b, err := json.Marshal(note)
	require.NoError(t, err)
	var wire struct{ Type, Subtype string }
	require.NoError(t, json.Unmarshal(b, &wire))
	assert.Equal(t, note.MessageType(), wire.Type, "MessageType is the type on the wire")
	assert.Equal(t, "task_notification", wire.Subtype)
}
