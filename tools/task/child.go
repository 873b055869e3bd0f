package task

import (
	"slices"
	"strings"
	"sync"

	"github.com/offshoot-dev/offshoot/agents"
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

// reminder is the agent's critical system reminder.
type reminder struct{ Text string }

// instructions are the project's instructions (Options.Instructions).
type instructions struct{ Text string }

// preloaded are the skills an agent's definition preloads: names and
// instructions, in the definition's order.
type preloaded struct{ Skills []preloadedSkill }

// preloadedSkill is one preloaded skill.
type preloadedSkill struct{ Name, Text string }

// childPrompt returns the prompt every Task child runs, oriented as a
// subagent. It is built once.
var childPrompt = sync.OnceValues(func() (*prompt.Prompt, error) {
	p, err := prompt.New("task", "agent",
		prompt.Markdown[role]("Role", "{{ .Text }}", prompt.WithoutHeading()),
		prompt.Markdown[instructions]("Project Instructions", "{{ .Text }}",
			prompt.WithEnabled(func(i instructions) bool { return i.Text != "" })),
		prompt.Markdown[preloaded]("Skills", `
			These skills are loaded for you; follow the one that fits your task.
			{{- range .Skills }}

			### Skill {{ .Name }}

			{{ .Text }}
			{{- end }}`, prompt.WithEnabled(func(p preloaded) bool { return len(p.Skills) > 0 })),
		prompt.Markdown[startState]("Starting State", `
			You start from a copy of the delegating agent's state:
			{{- range .Lines }}
			- {{ . }}
			{{- end }}`, prompt.WithEnabled(func(s startState) bool { return len(s.Lines) > 0 })),
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

// callerRequest returns the messages of the model call whose answer made
// the tool call callID — its evaluation's conversation, system message
// first, up to that answer — as snap recorded them, which is as they were
// sent — compacted and with cleared tool results, when the caller's
// conversation was (runner.AsSent): a fork-context child carries them on
// unchanged, so that its first request begins exactly as its caller's did
// and the provider's prompt cache serves that opening. It returns nil when
// snap holds no such call.
func callerRequest(snap session.Snapshot, callID string) []model.Message {
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
	n := 0
	for i := range last {
		if recorded.At(i).Evaluation == eval {
			n++
		}
	}
	out := make([]model.Message, 0, n)
	for i := range last {
		if m := recorded.At(i); m.Evaluation == eval {
			out = append(out, m.Message)
		}
	}
	return runner.AsSent(snap, eval, out)
}

// delegation is the message that hands a fork-context child its task,
// after its caller's conversation: what it is, its role, the task, the
// state it starts from, which of the listed tools it may use, and its
// reminder.
func delegation(def agents.Definition, in input, state startState, allowed []string) string {
	var b strings.Builder
	b.WriteString("You are now a subagent: the agent whose conversation is above delegated one task to you. " +
		"Use what that conversation established instead of finding it out again, but do not answer or act on its messages: your task is this message. " +
		"Work only on the task and stop when it is done. The delegating agent sees only your final answer, not your intermediate steps, " +
		"so end with a concise, self-contained result.\n\n# Role\n")
	b.WriteString(strings.TrimSpace(def.Prompt))
	b.WriteString("\n\n# Task\n")
	b.WriteString(in.Description)
	b.WriteString("\n\n")
	b.WriteString(in.Prompt)
	if len(state.Lines) > 0 {
		b.WriteString("\n\n# Starting State\nYou start from a copy of the delegating agent's state:")
		for _, l := range state.Lines {
			b.WriteString("\n- " + l)
		}
	}
	b.WriteString("\n\n# Tools\n")
	if len(allowed) == 0 {
		b.WriteString("You may use none of the tools listed: answer from what you know and what the conversation holds.")
	} else {
		b.WriteString("Of the tools listed, you may use only these: " + strings.Join(allowed, ", ") + ". A call to any other is refused.")
	}
	if r := strings.TrimSpace(def.CriticalSystemReminder); r != "" {
		b.WriteString("\n\n# Reminder\n" + r)
	}
	return b.String()
}
