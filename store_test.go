package offshoot_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/store"
	"github.com/offshoot-dev/offshoot/subagent"
	"github.com/offshoot-dev/offshoot/tools/vfs"
)

// With a store and a session id, a client in a new process carries the
// conversation on: the files its agent wrote, the plan, the records.
func TestAStoredConversationGoesOnInANewClient(t *testing.T) {
	st := store.NewMemory()
	first := scripted.New(
		scripted.ToolCall("write_file", `{"file_path":"notes/plan.md","content":"ship on Friday"}`),
		scripted.Text("Noted."),
	)
	c := newClient(t, first, offshoot.Options{Store: st, SessionID: "chat-7", Files: map[string]string{"README.md": "hello"}})
	require.NoError(t, final(t, collect(t, c, "Note that we ship on Friday.")).Err)
	require.NoError(t, c.Close())

	second := scripted.New(scripted.Text("We ship on Friday."))
	again := newClient(t, second, offshoot.Options{Store: st, SessionID: "chat-7", Files: map[string]string{"README.md": "not written again"}})
	assert.Equal(t, "chat-7", again.Session().ID())
	files := vfs.Files(again.Session())
	plan, ok := files.Get("notes/plan.md")
	require.True(t, ok, "the file the agent wrote")
	assert.Equal(t, "ship on Friday", plan.Content)
	readme, ok := files.Get("README.md")
	require.True(t, ok)
	assert.Equal(t, "hello", readme.Content, "files are written into a new session only")

	res := final(t, collect(t, again, "When do we ship?"))
	assert.Equal(t, "We ship on Friday.", res.Text)
	msgs := second.Calls()[0].Request.Messages
	assert.Contains(t, msgs, model.UserMessage("Note that we ship on Friday."), "the conversation so far")
	assert.Equal(t, model.UserMessage("When do we ship?"), msgs[len(msgs)-1])
	assert.Equal(t, 2, session.Len[runner.PromptExecuted](again.Session()))
}

// A program's own session and a store do not go together.
func TestAStoreNeedsTheClientsOwnSession(t *testing.T) {
	s, err := session.New()
	require.NoError(t, err)
	defer s.Close()
	_, err = offshoot.NewClient(offshoot.Options{Model: scripted.New(), Session: s, Store: store.NewMemory()})
	require.ErrorContains(t, err, "give one or the other")
}

// A background task that was running when its process died is reported
// failed at the next open — with what it had written — once.
func TestAnInterruptedTaskIsReportedAtTheNextOpen(t *testing.T) {
	st := store.NewMemory()
	a := newClient(t, scripted.New(), offshoot.Options{Store: st, SessionID: "chat-9"})
	parent := a.Session()
	// What a background launch leaves in the parent, and what the child
	// had done when the process died.
	require.NoError(t, parent.Dispatch(ctx, subagent.TaskStarted{TaskID: "agent-1", Name: "reader", Description: "Find the login code", SessionID: "child-1"}))
	child, err := parent.Fork(session.WithID("child-1"))
	require.NoError(t, err)
	require.NoError(t, child.Dispatch(ctx,
		runner.PromptRendered{Evaluation: "e1", NS: "task", Key: "agent"},
		runner.ConversationMessage{Evaluation: "e1", Message: model.AssistantMessage("Login is in src/login.go, so far.")}))
	require.NoError(t, child.Close())
	require.NoError(t, a.Close()) // the task never ended

	m := scripted.New(scripted.Text("The reader was cut short."))
	b := newClient(t, m, offshoot.Options{Store: st, SessionID: "chat-9"})
	assert.Empty(t, subagent.Interrupted(b.Session().Snapshot()), "told once")
	res := final(t, collect(t, b, "What happened to the reader?"))
	require.NoError(t, res.Err)
	msgs := m.Calls()[0].Request.Messages
	note := msgs[len(msgs)-1].Content
	assert.Contains(t, note, "<task-notification>\nThe background task agent-1 (Find the login code, by the reader agent) failed: the process that ran it ended before it finished.")
	assert.Contains(t, note, "Login is in src/login.go, so far.")
	require.NoError(t, b.Close())

	c := newClient(t, scripted.New(), offshoot.Options{Store: st, SessionID: "chat-9"})
	assert.Equal(t, 1, countNotifications(c.Session()), "not told again")
}

func countNotifications(s *session.Session) int {
	n := 0
	for in := range session.All[runner.Inbound](s) {
		if strings.Contains(in.Text, "<task-notification>") {
			n++
		}
	}
	return n
}
