package task_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/agents"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/sessiontest"
	"github.com/offshoot-dev/offshoot/tools/task"
)

// The child's prompt: its system prompt is the agent's prompt, "# Task"
// and the description (shown as written, even "{{"), then what it starts
// from and the subagent orientation; its first user message is the call's
// prompt; its tools are its caller's as its definition narrows them.
func TestTheChildsPrompt(t *testing.T) {
	w := newWorld(t, worldConfig{main: []scripted.Turn{scripted.Text("Looks fine.")}})
	out := w.call(t, scripted.New(), map[string]any{"subagent_type": "code-reviewer", "description": "Review {{ login }}", "prompt": "Review src/login.go for bugs.", "model": "main"})
	require.True(t, out.Success, out.Text)

	reqs := childRequests(w.main)
	require.Len(t, reqs, 1)
	msgs := reqs[0].Messages
	require.Len(t, msgs, 2, "an isolated agent gets its task alone")
	system := msgs[0].Content
	assert.Equal(t, model.RoleSystem, msgs[0].Role)
	def, err := w.reg.Find("code-reviewer")
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(system, def.Prompt+"\n\n# Task\n"+"Review {{ login }}"), system)
	assert.True(t, strings.HasPrefix(system,
		"You review code. Templates such as {{ .Secret }} stay as they are.\n\n# Task\nReview {{ login }}\n\n## 1. Starting State\n\n"), system)
	assert.Contains(t, system, "You start from a copy of the delegating agent's state:\n- 2 files in the workspace")
	assert.Contains(t, system, "You are a subagent: another agent delegated one task to you.")
	assert.NotContains(t, system, "Conversation So Far")
	assert.Equal(t, model.UserMessage("Review src/login.go for bugs."), msgs[1])
	// code-reviewer inherits every tool but Task, withheld at the depth
	// limit.
	assert.Equal(t, []string{"ls", "read_file", "write_file", "edit_file", "glob", "grep", "rm"}, toolNames(reqs[0]))
}

// The critical system reminder is in the child's system prompt.
func TestTheReminderIsInTheSystemPrompt(t *testing.T) {
	w := newWorld(t, worldConfig{
		agents: map[string]agents.Definition{"careful": {Description: "Careful.", Prompt: "You are careful.", CriticalSystemReminder: "Never delete files."}},
		main:   []scripted.Turn{scripted.Text("ok")},
	})
	require.True(t, w.call(t, w.main, input("careful", "Tidy the docs", "Tidy README.md.")).Success)
	system := childRequests(w.main)[0].Messages[0].Content
	assert.Contains(t, system, ". Reminder\n\nNever delete files.")
}

// A fork-context agent carries on its caller's conversation: everything
// the caller saw before it delegated, without the caller's system message
// and without the calls of the delegating turn, then its task. An
// isolated agent, delegated in the same turn, sees only its task. Both
// start from the caller's state, and the caller's state does not change.
func TestForkContextGivesTheChildTheConversation(t *testing.T) {
	w := newWorld(t, worldConfig{
		main:  []scripted.Turn{scripted.Repeat(scripted.Text("The bug is the empty Login body."))},
		light: []scripted.Turn{scripted.Text("Login is in src/login.go.")},
	})
	parent := scripted.New(
		scripted.ToolCall("ls", `{"path":""}`),
		scripted.Reply(&model.Response{Message: model.AssistantMessage("Let me delegate.",
			model.ToolCall{ID: "t1", Name: "Task", Arguments: `{"subagent_type":"forker","description":"Find the login bug","prompt":"Find the bug in Login.","model":"main"}`},
			model.ToolCall{ID: "t2", Name: "Task", Arguments: `{"subagent_type":"reader","description":"Locate Login","prompt":"Where is Login?"}`},
		)}),
		scripted.Text("Fixed."),
	)
	before := sessiontest.Capture(w.s)
	resp := w.evaluate(t, parent, "Login is broken; fix it.")
	require.Equal(t, "Fixed.", resp.Text)

	// The fork's first request is the caller's delegating request —
	// system message, conversation, tools, cache key — then the
	// delegation.
	forkReq := childRequests(w.main)
	require.Len(t, forkReq, 1)
	delegating := parent.Calls()[1].Request
	msgs := forkReq[0].Messages
	require.Len(t, msgs, len(delegating.Messages)+1, "%#v", msgs)
	assert.Equal(t, delegating.Messages, msgs[:len(delegating.Messages)])
	assert.Contains(t, msgs[0].Content, "You are a coding assistant.", "the caller's system message")
	assert.Equal(t, delegating.Tools, forkReq[0].Tools, "the caller's tools, in its order")
	assert.Equal(t, delegating.CacheKey, forkReq[0].CacheKey)
	assert.NotEmpty(t, forkReq[0].CacheKey)
	last := msgs[len(msgs)-1]
	assert.Equal(t, model.RoleUser, last.Role)
	for _, want := range []string{
		"You are now a subagent: the agent whose conversation is above delegated one task to you.",
		"# Role\nYou continue the work in progress.",
		"# Task\nFind the login bug\n\nFind the bug in Login.",
		"# Tools\nOf the tools listed, you may use only these: ",
	} {
		assert.Contains(t, last.Content, want)
	}
	assert.NotContains(t, last.Content, "Task,", "it may not delegate at the default depth")

	isolated := childRequests(w.light)
	require.Len(t, isolated, 1)
	require.Len(t, isolated[0].Messages, 2)
	assert.Equal(t, model.UserMessage("Where is Login?"), isolated[0].Messages[1])

	// The caller's state changed only by its own records.
	sessiontest.AssertUnchanged(t, before, w.s, sessiontest.Ignore[runner.PromptRendered](), sessiontest.Ignore[runner.ConversationMessage](),
		sessiontest.Ignore[runner.ModelCalled](), sessiontest.Ignore[runner.ContextUsage](), sessiontest.Ignore[runner.ToolInvoked](), sessiontest.Ignore[runner.PromptExecuted](),
		sessiontest.Ignore[runner.Spent]())
}

// Called outside an evaluation, a fork-context agent has no conversation
// to carry on and starts from its task.
func TestForkContextWithoutAConversation(t *testing.T) {
	w := newWorld(t, worldConfig{main: []scripted.Turn{scripted.Text("ok")}})
	require.True(t, w.call(t, w.main, map[string]any{"subagent_type": "forker", "description": "Carry on", "prompt": "Carry on.", "model": "main"}).Success)
	msgs := childRequests(w.main)[0].Messages
	require.Len(t, msgs, 2)
	assert.Equal(t, model.UserMessage("Carry on."), msgs[1])
}

// The project's instructions follow the agent's role in its system
// prompt, as Claude Code gives its subagents the project's CLAUDE.md; an
// agent of a program without them gets no such section.
func TestTheProjectInstructionsAreInTheSystemPrompt(t *testing.T) {
	for _, tc := range []struct {
		name, instructions string
	}{
		{"with", "Contents of CLAUDE.md (project instructions):\n\nRun go test {{ ./... }}."},
		{"without", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t, worldConfig{task: task.Options{Instructions: tc.instructions}, main: []scripted.Turn{scripted.Text("ok")}})
			require.True(t, w.call(t, w.main, input("code-reviewer", "Review", "Review it.")).Success)
			system := childRequests(w.main)[0].Messages[0].Content
			if tc.instructions == "" {
				assert.NotContains(t, system, "Project Instructions")
				return
			}
			assert.Contains(t, system, "Review\n\n## 1. Project Instructions\n\n"+tc.instructions+"\n\n## 2. Starting State")
		})
	}
}
