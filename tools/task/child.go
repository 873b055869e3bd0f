package task

import (
	"slices"
	"sync"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/subagent"
)

// The child's system prompt is one prompt for every agent, built once:
// the agent's own text goes in as params, never as template source, so a
// prompt that contains "{{" is shown as it is.

// role is the agent's prompt followed by "\n\n# Task\n" and the call's
// description: the opening of the child's system prompt, shown without a
// heading, so that the system prompt begins with the agent's own words.
type role struct{ Text string }

// startState lists, in plain words, the state the child starts from (the
// files and plan of its caller), one line per state that has something.
type startState struct{ Lines []string }

// forked marks a child that carries on its caller's conversation.
type forked struct{ On bool }

// reminder is the agent's critical system reminder.
type reminder struct{ Text string }

// childPrompt returns the prompt every Task child runs, oriented as a
// subagent. It is built once.
var childPrompt = sync.OnceValues(func() (*prompt.Prompt, error) {
	p, err := prompt.New("task", "agent",
		prompt.Markdown[role]("Role", "{{ .Text }}", prompt.WithoutHeading()),
		prompt.Markdown[startState]("Starting State", `
			You start from a copy of the delegating agent's state:
			{{- range .Lines }}
			- {{ . }}
			{{- end }}`, prompt.WithEnabled(func(s startState) bool { return len(s.Lines) > 0 })),
		prompt.Markdown[forked]("Conversation So Far", `
			The messages before your task are the delegating agent's conversation up to the moment it
			handed the task to you. Use what was established there instead of finding it out again,
			but do not answer or act on those messages: your task is the last message.`,
			prompt.WithEnabled(func(f forked) bool { return f.On })),
		prompt.Markdown[reminder]("Reminder", "{{ .Text }}",
			prompt.WithEnabled(func(r reminder) bool { return r.Text != "" })),
	)
	if err != nil {
		return nil, err
	}
	return subagent.Orient(p)
})

// systemText is the agent's part of the child's system prompt.
func systemText(agentPrompt, description string) string {
	return agentPrompt + "\n\n# Task\n" + description
}

// callerConversation returns the conversation of the evaluation that made
// the tool call callID, as snap recorded it up to that call, for a child
// to carry on: its system message left out (the child has its own), and
// the tool calls of the current turn — this one and any made beside it —
// dropped, since they have no results yet. It returns nil when snap holds
// no such call. It reads the records in place and allocates the result
// once.
func callerConversation(snap session.Snapshot, callID string) []model.Message {
	if callID == "" {
		return nil
	}
	recorded := session.SliceOfSnapshot[runner.ConversationMessage](snap)
	last, eval := -1, ""
	for i := recorded.Len() - 1; i >= 0; i-- {
		if m := recorded.At(i); m.Role == model.RoleAssistant && slices.ContainsFunc(m.ToolCalls, func(c model.ToolCall) bool { return c.ID == callID }) {
			last, eval = i, m.Evaluation
			break
		}
	}
	if last < 0 {
		return nil
	}
	// upTo yields the evaluation's messages up to the call.
	upTo := func(yield func(model.Message) bool) {
		i := 0
		for m := range recorded.All() {
			if i > last {
				return
			}
			i++
			if m.Evaluation == eval && !yield(m.Message) {
				return
			}
		}
	}
	n, answered := 0, map[string]bool{}
	for m := range upTo {
		n++
		if m.Role == model.RoleTool {
			answered[m.ToolCallID] = true
		}
	}
	out := make([]model.Message, 0, n)
	for m := range upTo {
		switch {
		case m.Role == model.RoleSystem:
			continue
		case m.Role == model.RoleAssistant && slices.ContainsFunc(m.ToolCalls, func(c model.ToolCall) bool { return !answered[c.ID] }):
			m.ToolCalls = slices.DeleteFunc(slices.Clone(m.ToolCalls), func(c model.ToolCall) bool { return !answered[c.ID] })
			if len(m.ToolCalls) == 0 {
				if m.Content == "" {
					continue
				}
				m.ToolCalls = nil
			}
		}
		out = append(out, m)
	}
	return out
}
