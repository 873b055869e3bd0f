package subagent_test

import (
	"context"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/subagent"
	"github.com/offshoot-dev/offshoot/subagent/transcript"
	"github.com/offshoot-dev/offshoot/tools"
)

// freshSpec is a fresh child's spec, as the Task tool builds them.
func freshSpec(t testing.TB, parent *session.Session, m model.Model, ts ...tools.Tool) subagent.Spec {
	sp := spec(t, parent, m, ts...)
	sp.Mode = subagent.Fresh
	return sp
}

// resumeSpec is the spec a front end builds to resume agent id with a new
// prompt: the same type and model as the record says.
func resumeSpec(t testing.TB, e *subagent.Engine, parent *session.Session, id, prompt string, m model.Model, ts ...tools.Tool) subagent.Spec {
	t.Helper()
	meta, err := e.Agent(ctx, parent, id)
	require.NoError(t, err)
	sp := freshSpec(t, parent, m, ts...)
	sp.Name, sp.Request.ModelName = meta.Type, meta.Model
	sp.Resume, sp.Request.UserMessage = id, prompt
	return sp
}

func TestResumeContinuesTheSameAgent(t *testing.T) {
	dir := t.TempDir()
	parent := newParent(t)
	e := subagent.New(subagent.Options{Transcripts: transcript.Dir(dir), NewID: ids("r")})
	first := freshSpec(t, parent, scripted.New(scripted.ToolCall("write", `{"text":"read parse.go"}`), scripted.Text("The bug is in parse.go.")), writeTool(t))
	first.MaxDepth = 3
	out, err := e.Run(subagent.WithChain(ctx, "root/agent", "planner"), first) // depth 2
	require.NoError(t, err)
	before, err := transcript.Dir(dir).Read(out.AgentID)
	require.NoError(t, err)

	m := scripted.New(scripted.Text("Fixed parse.go."))
	sp := resumeSpec(t, e, parent, out.AgentID, "Now fix it.", m, writeTool(t))
	sp.MaxDepth = 3
	again, err := e.Run(ctx, sp)
	require.NoError(t, err)
	assert.Equal(t, out.AgentID, again.AgentID, "the same agent")
	assert.Equal(t, 2, again.Depth, "at its original depth")
	assert.Equal(t, "Fixed parse.go.", again.Text)

	req := m.Calls()[0].Request
	require.Equal(t, model.RoleSystem, req.Messages[0].Role)
	assert.Contains(t, req.Messages[0].Content, "You are worker.", "the same type's prompt")
	assert.Equal(t, append(before.Messages, model.UserMessage("Now fix it.")), req.Messages[1:], "its conversation, then the new prompt")

	after, err := transcript.Dir(dir).Read(out.AgentID)
	require.NoError(t, err)
	assert.Equal(t, append(before.Messages, model.UserMessage("Now fix it."), model.AssistantMessage("Fixed parse.go.")), after.Messages,
		"the transcript grows on, without the conversation again")
	assert.Equal(t, 2, after.Meta.Runs)
	assert.Equal(t, before.Meta.StartedAt, after.Meta.StartedAt)
	assert.Equal(t, 3, after.Meta.Usage.ModelCalls, "what both runs spent")
}

// A run cut short leaves a tool call without its result, and maybe a
// torn line: resuming drops both.
func TestResumeRepairsWhatARunCutShortLeft(t *testing.T) {
	dir := t.TempDir()
	parent := newParent(t)
	e := subagent.New(subagent.Options{Transcripts: transcript.Dir(dir), NewID: ids("o")})
	entered := make(chan struct{})
	block, err := tools.New("slow", "Wait.", func(ctx context.Context, _ *tools.Invocation, _ struct{}) (tools.Result[string], error) {
		close(entered)
		<-ctx.Done()
		return tools.Result[string]{}, ctx.Err()
	})
	require.NoError(t, err)
	c, cancel := context.WithCancel(ctx)
	go func() {
		select {
		case <-entered:
		case <-time.After(5 * time.Second):
		}
		cancel()
	}()
	cut := scripted.New(scripted.Reply(&model.Response{Message: model.AssistantMessage("Checking the parser.", model.ToolCall{ID: "call-1", Name: "slow", Arguments: `{}`})}))
	out, err := e.Run(c, freshSpec(t, parent, cut, block))
	require.Error(t, err)
	tr, err := transcript.Dir(dir).Read(out.AgentID)
	require.NoError(t, err)
	require.Len(t, tr.Messages, 2)
	assert.Len(t, tr.Messages[1].ToolCalls, 1, "the call was recorded, its result never")
	assert.Equal(t, string(subagent.TaskStatusStopped), tr.Meta.Status)

	// The process died while writing a line.
	f, err := os.OpenFile(tr.Path, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString(`{"role":"tool","tool_call_id":"call-1","cont`)
	require.NoError(t, err)
	require.NoError(t, f.Close())

	m := scripted.New(scripted.Text("The parser is fine."))
	_, err = e.Run(ctx, resumeSpec(t, e, parent, out.AgentID, "Go on.", m, block))
	require.NoError(t, err)
	assert.Equal(t, []model.Message{
		model.UserMessage("do the work"),
		model.AssistantMessage("Checking the parser."), // its text kept, its call without a result dropped
		model.UserMessage("Go on."),
	}, m.Calls()[0].Request.Messages[1:])

	after, err := transcript.Dir(dir).Read(out.AgentID)
	require.NoError(t, err, "the torn line was cut before appending")
	assert.Len(t, after.Messages, 4)
	assert.Equal(t, string(subagent.TaskStatusCompleted), after.Meta.Status)
}

func TestResumeRefusals(t *testing.T) {
	dir := t.TempDir()
	parent := newParent(t)
	e := subagent.New(subagent.Options{Transcripts: transcript.Dir(dir), NewID: ids("x")})
	carried := spec(t, parent, scripted.New(scripted.Text("done"))) // carries on its caller's conversation
	carried.Request.Messages = []model.Message{model.UserMessage("Where were we?"), model.AssistantMessage("In parse.go.")}
	forked, err := e.Run(ctx, carried)
	require.NoError(t, err)
	fresh, err := e.Run(ctx, freshSpec(t, parent, scripted.New(scripted.Text("done"))))
	require.NoError(t, err)

	resume := func(e *subagent.Engine, id, name string) error {
		sp := freshSpec(t, parent, scripted.New(scripted.Text("unreached")))
		sp.Resume, sp.Name = id, name
		_, err := e.Run(ctx, sp)
		return err
	}
	err = resume(e, "no-such-agent", "child/worker")
	require.ErrorIs(t, err, subagent.ErrTaskNotFound)
	assert.EqualError(t, err, "No agent found with ID: no-such-agent")
	_, err = e.Agent(ctx, parent, "no-such-agent")
	assert.EqualError(t, err, "No agent found with ID: no-such-agent")

	noTranscripts := "Agent " + fresh.AgentID + " cannot be resumed: this program keeps no transcripts of its agents, so their conversations are gone. " +
		"Start a new agent instead, and give it everything it needs in its prompt."
	err = resume(subagent.New(subagent.Options{}), fresh.AgentID, "child/worker")
	require.ErrorIs(t, err, subagent.ErrNotResumable, "an engine without transcripts says so")
	assert.EqualError(t, err, noTranscripts)
	_, err = subagent.New(subagent.Options{}).Agent(ctx, parent, fresh.AgentID)
	require.ErrorIs(t, err, subagent.ErrNotResumable)
	assert.EqualError(t, err, noTranscripts)

	err = resume(e, forked.AgentID, "child/worker")
	require.ErrorIs(t, err, subagent.ErrNotResumable)
	assert.Contains(t, err.Error(), "it carried on its caller's conversation, and only agents that started from their task alone can be resumed")

	err = resume(e, fresh.AgentID, "reviewer")
	require.ErrorIs(t, err, subagent.ErrNotResumable)
	assert.Contains(t, err.Error(), "is a child/worker agent, not reviewer")

	// An agent that is running cannot be resumed meanwhile.
	release, entered := make(chan struct{}), make(chan struct{})
	done := make(chan error, 1)
	hold := scripted.New(scripted.Func(func(ctx context.Context, _ *model.Request) (*model.Response, error) {
		close(entered)
		select {
		case <-release:
		case <-ctx.Done():
		}
		return &model.Response{Message: model.AssistantMessage("done")}, nil
	}))
	sp := resumeSpec(t, e, parent, fresh.AgentID, "again", hold)
	go func() { _, err := e.Run(ctx, sp); done <- err }()
	select {
	case <-entered:
	case <-time.After(5 * time.Second):
		t.Fatal("the resumed agent never ran")
	}
	err = resume(e, fresh.AgentID, "child/worker")
	require.ErrorIs(t, err, subagent.ErrNotResumable)
	assert.EqualError(t, err, "Agent "+fresh.AgentID+" is still running; wait for its result or stop it before resuming it")
	close(release)
	require.NoError(t, <-done)
}

// An agent whose state was forked from its parent's, but whose
// conversation started from its task alone (the Task tool's isolated
// agents), resumes on its parent's state as it is now.
func TestResumeAForkedAgentOnItsParentsStateNow(t *testing.T) {
	dir := t.TempDir()
	parent := newParent(t)
	e := subagent.New(subagent.Options{Transcripts: transcript.Dir(dir), NewID: ids("f")})
	out, err := e.Run(ctx, spec(t, parent, scripted.New(scripted.ToolCall("write", `{"text":"mine"}`), scripted.Text("noted")), writeTool(t)))
	require.NoError(t, err)
	meta, err := e.Agent(ctx, parent, out.AgentID)
	require.NoError(t, err)
	assert.Equal(t, "forked", meta.Mode)
	assert.False(t, meta.ForkedContext)

	// The parent moves on; the child's own write was never the parent's.
	require.NoError(t, parent.Dispatch(ctx, Note{"parent state, later"}))
	var seen []Note
	var wrote int
	sp := spec(t, parent, scripted.New(scripted.Text("I see the later state.")), writeTool(t))
	sp.Resume, sp.Request.UserMessage = out.AgentID, "Look again."
	sp.Setup = func(child *session.Session) error {
		seen = slices.Collect(session.All[Note](child))
		wrote = session.Len[Wrote](child)
		return nil
	}
	again, err := e.Run(ctx, sp)
	require.NoError(t, err)
	assert.Equal(t, out.AgentID, again.AgentID)
	assert.Equal(t, []Note{{"parent state"}, {"parent state, later"}}, seen, "the parent's state as it is now")
	assert.Zero(t, wrote, "not the copy the agent worked on before")
	tr, err := transcript.Dir(dir).Read(out.AgentID)
	require.NoError(t, err)
	assert.Equal(t, "forked", tr.Meta.Mode)
	assert.Equal(t, 2, tr.Meta.Runs)
}

// A transcript damaged otherwise than by a torn last write — a complete
// line that is not a message — is an error that names the file and the
// line, and resuming changes nothing of it.
func TestResumeRefusesADamagedTranscript(t *testing.T) {
	dir := t.TempDir()
	parent := newParent(t)
	e := subagent.New(subagent.Options{Transcripts: transcript.Dir(dir), NewID: ids("d")})
	out, err := e.Run(ctx, freshSpec(t, parent, scripted.New(scripted.Text("done"))))
	require.NoError(t, err)
	tr, err := transcript.Dir(dir).Read(out.AgentID)
	require.NoError(t, err)
	f, err := os.OpenFile(tr.Path, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString("this line is no message\n")
	require.NoError(t, err)
	require.NoError(t, f.Close())
	before, err := os.ReadFile(tr.Path)
	require.NoError(t, err)

	_, err = e.Run(ctx, resumeSpec(t, e, parent, out.AgentID, "Go on.", scripted.New(scripted.Text("never"))))
	require.Error(t, err)
	assert.Contains(t, err.Error(), tr.Path)
	assert.Contains(t, err.Error(), "line 3: not a message")
	after, err := os.ReadFile(tr.Path)
	require.NoError(t, err)
	assert.Equal(t, before, after, "nothing was cut or appended")
}
