package subagent_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/serde"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/store"
	"github.com/offshoot-dev/offshoot/store/journal"
	"github.com/offshoot-dev/offshoot/subagent"
)

// An engine with a store resumes an agent from the store: in a later
// process (a new engine, the parent reopened), with no transcripts, the
// agent carries on its conversation.
func TestResumeReadsTheStore(t *testing.T) {
	st := store.NewMemory()
	j := journal.New(st, journal.Options{})
	parent, err := session.New(session.WithID("main"), session.WithRegistry(serde.NewRegistry()), session.WithJournal(j))
	require.NoError(t, err)
	e := subagent.New(subagent.Options{Store: st, NewID: ids("s")})
	first := freshSpec(t, parent, scripted.New(scripted.ToolCall("write", `{"text":"read parse.go"}`), scripted.Text("The bug is in parse.go.")), writeTool(t))
	first.Description = "find the bug"
	out, err := e.Run(ctx, first)
	require.NoError(t, err)
	require.NoError(t, parent.Close())
	require.NoError(t, j.Close())

	// A later process.
	j2 := journal.New(st, journal.Options{})
	defer j2.Close()
	reopened, err := j2.Open(ctx, "main", serde.NewRegistry(), nil)
	require.NoError(t, err)
	defer reopened.Close()
	e2 := subagent.New(subagent.Options{Store: st, NewID: ids("t")})
	meta, err := e2.Agent(ctx, reopened, out.AgentID)
	require.NoError(t, err)
	assert.Equal(t, first.Name, meta.Type)
	assert.Equal(t, "scripted", meta.Model)
	assert.Equal(t, "find the bug", meta.Description)
	assert.Equal(t, 1, meta.Depth)

	m := scripted.New(scripted.Text("Fixed parse.go."))
	sp := resumeSpec(t, e2, reopened, out.AgentID, "Now fix it.", m, writeTool(t))
	again, err := e2.Run(ctx, sp)
	require.NoError(t, err)
	assert.Equal(t, out.AgentID, again.AgentID)
	assert.Equal(t, "Fixed parse.go.", again.Text)
	req := m.Calls()[0].Request
	var roles []model.Role
	for _, msg := range req.Messages {
		roles = append(roles, msg.Role)
	}
	assert.Equal(t, []model.Role{model.RoleSystem, model.RoleUser, model.RoleAssistant, model.RoleTool, model.RoleAssistant, model.RoleUser}, roles,
		"the stored conversation, then the new prompt")
	assert.Equal(t, "The bug is in parse.go.", req.Messages[4].Content)

	// Resumed again, it reads its latest run.
	m3 := scripted.New(scripted.Text("Tested."))
	_, err = e2.Run(ctx, resumeSpec(t, e2, reopened, out.AgentID, "Test it.", m3, writeTool(t)))
	require.NoError(t, err)
	msgs := m3.Calls()[0].Request.Messages
	assert.Equal(t, model.UserMessage("Test it."), msgs[len(msgs)-1])
	assert.Equal(t, "Fixed parse.go.", msgs[len(msgs)-2].Content)

	// Another tree does not see it.
	other, err := session.New(session.WithID("other"))
	require.NoError(t, err)
	defer other.Close()
	_, err = e2.Agent(ctx, other, out.AgentID)
	require.ErrorIs(t, err, subagent.ErrTaskNotFound)
}

// An engine without a store or transcripts cannot resume.
func TestResumeWithoutAStoreOrTranscripts(t *testing.T) {
	e := subagent.New(subagent.Options{})
	_, err := e.Agent(ctx, newParent(t), "anything")
	require.ErrorIs(t, err, subagent.ErrNotResumable)
}
