package runner

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/model"
)

// conversationOf builds a conversation from script: each byte is a turn —
// a user message (b%4 == 0), an answer (1), or an answer with b%5+1 tool
// calls and their results (2, 3).
func conversationOf(script []byte) []model.Message {
	msgs := []model.Message{model.SystemMessage("system")}
	for i, b := range script {
		switch b % 4 {
		case 0:
			msgs = append(msgs, model.UserMessage(fmt.Sprintf("question %d", i)))
		case 1:
			msgs = append(msgs, model.AssistantMessage(fmt.Sprintf("answer %d", i)))
		default:
			var calls []model.ToolCall
			for k := range int(b%5) + 1 {
				calls = append(calls, model.ToolCall{ID: fmt.Sprintf("c%d-%d", i, k), Name: "t", Arguments: "{}"})
			}
			msgs = append(msgs, model.AssistantMessage("", calls...))
			for _, c := range calls {
				msgs = append(msgs, model.ToolMessage(c.ID, c.Name, "result of "+c.ID))
			}
		}
	}
	return msgs
}

// However the conversation goes and wherever a compaction and a clearing
// cut it, what is sent keeps the system message, answers every call it
// sends and sends no result without its call, and keeps the last turns.
func FuzzRenderKeepsCallsWithResults(f *testing.F) {
	f.Add([]byte{0, 2, 1, 0, 3, 3, 1, 0, 2, 1}, uint8(2), uint8(1))
	f.Add([]byte{0, 1}, uint8(1), uint8(0))
	f.Add([]byte{2, 2, 2, 2, 2, 2}, uint8(3), uint8(2))
	f.Fuzz(func(t *testing.T, script []byte, keep, clear uint8) {
		if len(script) > 500 {
			return
		}
		msgs := conversationOf(script)
		r := &run{resp: &Response{Messages: msgs}}
		r.cx.keep = int(keep%5) + 1
		f := folded{}
		if cut := r.cutPoint(r.cx.keep); cut > 0 {
			f.upto, f.summary = cut, "summary"
		}
		if clear > 0 {
			upto, seen := len(msgs), 0
			for upto > 1 && seen < int(clear%5) {
				upto--
				if msgs[upto].Role == model.RoleAssistant {
					seen++
				}
			}
			f.cleared = upto
		}
		sent := render(msgs, f)
		require.Equal(t, msgs[0], sent[0], "the system message is unchanged")
		calls := map[string]bool{}
		answered := map[string]bool{}
		for i, m := range sent {
			if i > 0 {
				require.NotEqual(t, model.RoleSystem, m.Role)
			}
			for _, c := range m.ToolCalls {
				calls[c.ID] = true
			}
			if m.Role == model.RoleTool {
				require.True(t, calls[m.ToolCallID], "result %s sent after its call", m.ToolCallID)
				answered[m.ToolCallID] = true
			}
		}
		for id := range calls {
			require.True(t, answered[id], "call %s sent with its result", id)
		}
		if f.upto > 0 {
			require.Equal(t, len(msgs)-f.upto+2, len(sent))
			for i, m := range msgs[f.upto:] {
				require.Equal(t, m.ToolCalls, sent[2+i].ToolCalls)
				require.Equal(t, m.ToolCallID, sent[2+i].ToolCallID)
			}
			seen := 0
			for _, m := range msgs[f.upto:] {
				if m.Role == model.RoleAssistant {
					seen++
				}
			}
			require.GreaterOrEqual(t, seen, r.cx.keep, "the last turns are kept")
		}
	})
}
