package offshoot_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/store"
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
