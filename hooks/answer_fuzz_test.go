package hooks

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// A command hook's stdout is written by whoever wrote the project: read
// as an answer to any event, it never panics, and what the model reads
// of it stays bounded.
func FuzzCommandAnswer(f *testing.F) {
	f.Add(`{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "no"}}`, uint8(0))
	f.Add(`{"decision": "block", "reason": "tests fail", "continue": false, "stopReason": "x", "systemMessage": "y"}`, uint8(3))
	f.Add(`{"hookSpecificOutput": {"updatedInput": {"command": "ls"}, "additionalContext": "z"}}`, uint8(0))
	f.Add("plain text for the model", uint8(2))
	f.Fuzz(func(t *testing.T, stdout string, ev uint8) {
		event := events[int(ev)%len(events)]
		out, err := answer(event, stdout)
		if err != nil {
			require.Equal(t, Output{}, out)
			return
		}
		for _, s := range []string{out.Reason, out.PermissionDecisionReason, out.AdditionalContext} {
			require.LessOrEqual(t, len(s), maxText+len("…"))
		}
		require.Contains(t, []string{"", Allow, Deny, Ask}, out.PermissionDecision)
		if out.PermissionDecision != "" || out.UpdatedInput != nil {
			require.Equal(t, PreToolUse, event)
		}
	})
}
