package runner_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/serde"
	"github.com/offshoot-dev/offshoot/session"
)

// The conversation of an evaluation is session state: every message, in
// order, under the evaluation's id.
func TestTheConversationIsRecordedInTheSession(t *testing.T) {
	s := newSession(t)
	m := scripted.New(scripted.ToolCall("echo", `{"text":"hello"}`), scripted.Text("all done"))
	resp, err := runner.Evaluate(ctx, request(newPrompt(t, echoTool(t)), s, m))
	require.NoError(t, err)
	require.NotEmpty(t, resp.Evaluation)
	assert.Equal(t, resp.Messages, runner.Conversation(s.Snapshot(), resp.Evaluation))
	assert.Equal(t, []string{resp.Evaluation}, runner.Evaluations(s.Snapshot()))
	assert.Nil(t, runner.Conversation(s.Snapshot(), "no such evaluation"))

	second, err := runner.Evaluate(ctx, request(newPrompt(t), s, scripted.New(scripted.Text("again"))))
	require.NoError(t, err)
	assert.NotEqual(t, resp.Evaluation, second.Evaluation)
	assert.Equal(t, []string{resp.Evaluation, second.Evaluation}, runner.Evaluations(s.Snapshot()))
	assert.Len(t, runner.Conversation(s.Snapshot(), second.Evaluation), 3, "system, user, assistant: its own only")
	for _, rec := range session.Get[runner.ModelCalled](s).Values() {
		assert.Contains(t, []string{resp.Evaluation, second.Evaluation}, rec.Evaluation, "the records name their evaluation")
	}
}

// A conversation saved with MarshalSnapshot, restored into a new session,
// goes on with a second Evaluate from the session alone.
func TestAConversationRestoredFromSnapshotJSONContinues(t *testing.T) {
	s := newSession(t)
	first := scripted.New(scripted.ToolCall("echo", `{"text":"remember me"}`), scripted.Text("noted"))
	resp, err := runner.Evaluate(ctx, request(newPrompt(t, echoTool(t)), s, first))
	require.NoError(t, err)

	data, err := session.MarshalSnapshot(s.Snapshot(), s.Registry())
	require.NoError(t, err)
	// A new process: a registry that knows the runner's records and the
	// program's own events, nothing else.
	reg := serde.NewRegistry()
	require.NoError(t, runner.Reducers().Name(reg))
	_, err = reg.Ensure(reflect.TypeFor[Echoed]())
	require.NoError(t, err)
	snap, err := session.UnmarshalSnapshot(data, reg)
	require.NoError(t, err)
	restored, err := session.New(session.WithSnapshot(snap), session.WithRegistry(reg))
	require.NoError(t, err)
	defer restored.Close()

	var seen []model.Message
	second := scripted.New(scripted.Func(func(_ context.Context, req *model.Request) (*model.Response, error) {
		seen = req.Messages
		return &model.Response{Message: model.AssistantMessage("you said: remember me")}, nil
	}))
	cont, err := runner.Evaluate(ctx, runner.Request{
		Prompt: newPrompt(t, echoTool(t)), Params: []any{Task{Goal: "testing"}}, Session: restored,
		Model: second, Continue: resp.Evaluation, UserMessage: "what did I ask you to echo?",
	})
	require.NoError(t, err)
	assert.Equal(t, resp.Evaluation, cont.Evaluation, "the same evaluation goes on")
	require.Len(t, seen, len(resp.Messages)+1, "the model saw the whole conversation, then the new message")
	assert.Equal(t, resp.Messages, seen[:len(resp.Messages)])
	assert.Equal(t, model.UserMessage("what did I ask you to echo?"), seen[len(seen)-1])

	conv := runner.Conversation(restored.Snapshot(), resp.Evaluation)
	assert.Equal(t, append(append([]model.Message{}, seen...), model.AssistantMessage("you said: remember me")), conv)
	assert.Len(t, runner.Conversation(s.Snapshot(), resp.Evaluation), len(resp.Messages), "the original session is untouched")
}

// A conversation that stopped between a tool call and its result goes on
// without the orphan call, which no provider would accept.
func TestContinuingDropsToolCallsWithoutResults(t *testing.T) {
	s := newSession(t)
	calls := 0
	m := scripted.New(scripted.Func(func(ctx context.Context, _ *model.Request) (*model.Response, error) {
		calls++
		return &model.Response{Message: model.AssistantMessage("let me look", model.ToolCall{ID: "c1", Name: "echo", Arguments: `{"text":"x"}`})}, nil
	}))
	req := request(newPrompt(t, echoTool(t)), s, m)
	req.MaxTurns = 1
	resp, err := runner.Evaluate(ctx, req)
	require.ErrorIs(t, err, runner.ErrMaxTurns)

	// Record a call that never ran, as a crash between the reply and the
	// tool would leave it.
	require.NoError(t, s.Dispatch(ctx, runner.ConversationMessage{Evaluation: resp.Evaluation,
		Message: model.AssistantMessage("", model.ToolCall{ID: "orphan", Name: "echo", Arguments: `{}`})}))

	recorded := runner.Conversation(s.Snapshot(), resp.Evaluation)
	var seen []model.Message
	next := scripted.New(scripted.Func(func(_ context.Context, req *model.Request) (*model.Response, error) {
		seen = req.Messages
		return &model.Response{Message: model.AssistantMessage("resumed")}, nil
	}))
	_, err = runner.Evaluate(ctx, runner.Request{Prompt: newPrompt(t, echoTool(t)), Params: []any{Task{Goal: "testing"}},
		Session: s, Model: next, Continue: resp.Evaluation, UserMessage: "go on"})
	require.NoError(t, err)
	for _, msg := range seen {
		for _, c := range msg.ToolCalls {
			assert.NotEqual(t, "orphan", c.ID, "the orphan call is dropped")
		}
	}
	roles := []model.Role{}
	for _, msg := range seen {
		roles = append(roles, msg.Role)
	}
	assert.Equal(t, []model.Role{model.RoleSystem, model.RoleUser, model.RoleAssistant, model.RoleTool, model.RoleUser}, roles,
		"the answered call stays; the empty orphan message is gone")
	after := runner.Conversation(s.Snapshot(), resp.Evaluation)
	require.Greater(t, len(after), len(recorded))
	assert.Equal(t, recorded, after[:len(recorded)], "the repair leaves the recorded conversation as it was")
}

func TestContinuingAnUnknownEvaluationFails(t *testing.T) {
	s := newSession(t)
	req := request(newPrompt(t), s, scripted.New(scripted.Text("x")))
	req.Continue = "nope"
	_, err := runner.Evaluate(ctx, req)
	var ee *runner.EvaluationError
	require.ErrorAs(t, err, &ee)
	assert.Equal(t, runner.PhaseRender, ee.Phase)
	assert.ErrorContains(t, err, `holds no evaluation "nope" to continue`)
}

// Some servers send tool calls without ids; each gets call_<turn>_<index>
// so its answer can name it and the next request is valid.
func TestToolCallsWithoutIDsGetOne(t *testing.T) {
	s := newSession(t)
	m := scripted.New(
		scripted.Func(func(context.Context, *model.Request) (*model.Response, error) {
			return &model.Response{Message: model.AssistantMessage("", model.ToolCall{Name: "echo", Arguments: `{"text":"a"}`}, model.ToolCall{Name: "echo", Arguments: `{"text":"b"}`})}, nil
		}),
		scripted.Text("done"),
	)
	resp, err := runner.Evaluate(ctx, request(newPrompt(t, echoTool(t)), s, m))
	require.NoError(t, err)
	asked := resp.Messages[2]
	require.Len(t, asked.ToolCalls, 2)
	assert.Equal(t, "call_1_0", asked.ToolCalls[0].ID)
	assert.Equal(t, "call_1_1", asked.ToolCalls[1].ID)
	assert.Equal(t, "call_1_0", resp.Messages[3].ToolCallID)
	assert.Equal(t, "call_1_1", resp.Messages[4].ToolCallID)
	last := m.Calls()[1].Request.Messages
	assert.Equal(t, "call_1_1", last[len(last)-1].ToolCallID, "the next request names the calls")
}

// A continued evaluation records its render once: a turn that renders
// the same text and tools as the turn before records a repeat, not the
// prompt again; a render that changed is recorded whole.
func TestAContinuedEvaluationRecordsARepeatedRenderOnce(t *testing.T) {
	s := newSession(t)
	m := scripted.New(scripted.Repeat(scripted.Text("ok")))
	first, err := runner.Evaluate(ctx, request(newPrompt(t, echoTool(t)), s, m))
	require.NoError(t, err)
	again := request(newPrompt(t, echoTool(t)), s, m)
	again.Continue, again.UserMessage = first.Evaluation, "and again"
	for range 2 {
		_, err = runner.Evaluate(ctx, again)
		require.NoError(t, err)
	}
	changed := request(newPrompt(t), s, m)
	changed.Continue, changed.UserMessage = first.Evaluation, "without the tool"
	_, err = runner.Evaluate(ctx, changed)
	require.NoError(t, err)

	renders := session.Get[runner.PromptRendered](s).Values()
	require.Len(t, renders, 4)
	assert.False(t, renders[0].Repeat)
	assert.NotEmpty(t, renders[0].Text)
	assert.Equal(t, []string{"echo"}, renders[0].Tools)
	for _, r := range renders[1:3] {
		assert.True(t, r.Repeat)
		assert.Empty(t, r.Text)
		assert.Empty(t, r.Tools)
		assert.Equal(t, first.Evaluation, r.Evaluation)
	}
	assert.False(t, renders[3].Repeat, "the toolset changed")
	assert.NotEmpty(t, renders[3].Text)
	assert.Equal(t, []string{first.Evaluation}, runner.Evaluations(s.Snapshot()))
}
