package runner_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/sessiontest"
	"github.com/offshoot-dev/offshoot/tools"
)

type AskParams struct {
	Question string `json:"question"`
}

// askTool asks its question: answered at once by answer when it is not
// nil, else it parks the evaluation (runner.Wait).
func askTool(t testing.TB, answer func(string) string, opts ...tools.Option) tools.Tool {
	t.Helper()
	tool, err := tools.New("ask", "Ask the user.", func(_ context.Context, _ *tools.Invocation, p AskParams) (tools.Result[struct{}], error) {
		if answer == nil {
			return tools.Result[struct{}]{}, runner.Wait(p.Question)
		}
		return tools.OK(answer(p.Question), struct{}{}), nil
	}, opts...)
	require.NoError(t, err)
	return tool
}

// askTurns is a script whose first turn asks, then echoes in the same
// turn, and whose second answers.
func askTurns() []scripted.Turn {
	return []scripted.Turn{
		scripted.ToolCalls(
			model.ToolCall{ID: "c1", Name: "ask", Arguments: `{"question":"Which colour?"}`},
			model.ToolCall{ID: "c2", Name: "echo", Arguments: `{"text":"after"}`},
		),
		scripted.Text("done"),
	}
}

// parkedError checks that err is a park on the ask call c1 of eval.
func parkedError(t *testing.T, err error, eval string) {
	t.Helper()
	require.Error(t, err)
	w, ok := errors.AsType[*runner.Waiting](err)
	require.True(t, ok, "the error carries the question: %v", err)
	assert.Equal(t, runner.Waiting{Evaluation: eval, CallID: "c1", Tool: "ask", Question: "Which colour?"}, *w)
	assert.Contains(t, err.Error(), "wait for an answer")
}

// A tool that asks to wait parks the evaluation: it ends "waiting" with
// the question recorded, the calls after it in the turn do not run, and
// the answer, later, is the call's result, the rest of the turn runs and
// the loop goes on.
func TestWaitParksAndTheAnswerContinues(t *testing.T) {
	s := newSession(t)
	m := scripted.New(askTurns()...)
	req := request(newPrompt(t, askTool(t, nil), echoTool(t)), s, m)
	resp, err := runner.Evaluate(ctx, req)
	require.NotNil(t, resp)
	parkedError(t, err, resp.Evaluation)

	end, ok := session.Latest[runner.PromptExecuted](s)
	require.True(t, ok)
	assert.Equal(t, "waiting", end.Status)
	assert.True(t, end.Parked())
	assert.False(t, end.Succeeded())
	w, ok := session.Latest[runner.Waiting](s)
	require.True(t, ok)
	assert.Equal(t, runner.Waiting{Evaluation: resp.Evaluation, CallID: "c1", Tool: "ask", Question: "Which colour?"}, w)
	assert.Zero(t, session.Len[Echoed](s), "the call after the waiting one waits too")
	assert.Zero(t, session.Len[runner.ToolInvoked](s))

	again := req
	again.UserMessage, again.Continue, again.Answer = "", resp.Evaluation, "blue"
	resp2, err := runner.Evaluate(ctx, again)
	require.NoError(t, err)
	assert.Equal(t, "done", resp2.Text)
	assert.Equal(t, []string{"blue", "echoed\n\n{\"echo\":\"after\"}"}, toolMessages(resp2))
	assert.Equal(t, 1, session.Len[Echoed](s))
	w, _ = session.Latest[runner.Waiting](s)
	assert.True(t, w.Answered)
	require.NoError(t, m.Verify())

	// Answering twice is an error, and records nothing of the answer.
	n := session.Len[runner.ToolInvoked](s)
	_, err = runner.Evaluate(ctx, again)
	require.ErrorContains(t, err, "waits for no answer")
	assert.Equal(t, n, session.Len[runner.ToolInvoked](s))
}

// The conversation of a run parked and answered is the one of a run
// answered at once, message for message, and so are the model's requests.
func TestWaitParityWithAnAnswerAtOnce(t *testing.T) {
	atOnce := newSession(t)
	m1 := scripted.New(askTurns()...)
	resp1, err := runner.Evaluate(ctx, request(newPrompt(t, askTool(t, func(string) string { return "blue" }), echoTool(t)), atOnce, m1))
	require.NoError(t, err)

	parked := newSession(t)
	m2 := scripted.New(askTurns()...)
	req := request(newPrompt(t, askTool(t, nil), echoTool(t)), parked, m2)
	resp, err := runner.Evaluate(ctx, req)
	require.Error(t, err)
	req.UserMessage, req.Continue, req.Answer = "", resp.Evaluation, "blue"
	resp2, err := runner.Evaluate(ctx, req)
	require.NoError(t, err)

	assert.Equal(t, resp1.Messages, resp2.Messages)
	assert.Equal(t, runner.Conversation(atOnce.Snapshot(), resp1.Evaluation), runner.Conversation(parked.Snapshot(), resp2.Evaluation))
	// The sessions hold the same conversation and the same tool events;
	// the records of how the evaluations ran (two of them, one parked)
	// differ, as do their timings.
	d := sessiontest.Diff(atOnce.Snapshot(), parked.Snapshot(),
		sessiontest.Ignore[runner.PromptRendered](), sessiontest.Ignore[runner.PromptExecuted](), sessiontest.Ignore[runner.ModelCalled](),
		sessiontest.Ignore[runner.ContextUsage](), sessiontest.Ignore[runner.Waiting](), sessiontest.Ignore[runner.ToolInvoked]())
	assert.Empty(t, d)
	c1, c2 := m1.Calls(), m2.Calls()
	require.Len(t, c2, len(c1))
	assert.Equal(t, c1[len(c1)-1].Request.Messages, c2[len(c2)-1].Request.Messages)
}

// An answer needs an evaluation that waits, as Continue; an evaluation
// that waits needs one.
func TestWaitAnswerErrors(t *testing.T) {
	s := newSession(t)
	req := request(newPrompt(t, askTool(t, nil), echoTool(t)), s, scripted.New(scripted.Text("hello")))
	resp, err := runner.Evaluate(ctx, req)
	require.NoError(t, err)

	notWaiting := req
	notWaiting.UserMessage, notWaiting.Continue, notWaiting.Answer = "", resp.Evaluation, "blue"
	_, err = runner.Evaluate(ctx, notWaiting)
	require.ErrorContains(t, err, "waits for no answer")

	s = newSession(t)
	req = request(newPrompt(t, askTool(t, nil), echoTool(t)), s, scripted.New(askTurns()...))
	resp, err = runner.Evaluate(ctx, req)
	require.Error(t, err)
	tests := map[string]struct {
		edit func(*runner.Request)
		want string
	}{
		"continued without the answer": {func(r *runner.Request) { r.Continue, r.UserMessage = resp.Evaluation, "and?" }, "waits for an answer to its ask call"},
		"the answer with a message":    {func(r *runner.Request) { r.Continue, r.Answer = resp.Evaluation, "blue" }, "comes alone"},
		"the answer to another":        {func(r *runner.Request) { r.UserMessage, r.Answer = "", "blue" }, "continue that one"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			r := req
			tt.edit(&r)
			_, err := runner.Evaluate(ctx, r)
			require.ErrorContains(t, err, tt.want)
			w, _ := session.Latest[runner.Waiting](s)
			assert.False(t, w.Answered, "the session still waits")
		})
	}
}

// A fork of a waiting session waits too; answering the fork leaves the
// original waiting.
func TestWaitForkOfAWaitingSession(t *testing.T) {
	s := newSession(t)
	p := newPrompt(t, askTool(t, nil), echoTool(t))
	resp, err := runner.Evaluate(ctx, request(p, s, scripted.New(askTurns()...)))
	require.Error(t, err)

	fork, err := s.Fork()
	require.NoError(t, err)
	t.Cleanup(func() { _ = fork.Close() })
	w, ok := session.Latest[runner.Waiting](fork)
	require.True(t, ok)
	assert.False(t, w.Answered)

	req := request(p, fork, scripted.New(scripted.Text("done")))
	req.UserMessage, req.Continue, req.Answer = "", resp.Evaluation, "green"
	resp2, err := runner.Evaluate(ctx, req)
	require.NoError(t, err)
	assert.Equal(t, "done", resp2.Text)
	assert.Equal(t, "green", toolMessages(resp2)[0])

	w, _ = session.Latest[runner.Waiting](s)
	assert.False(t, w.Answered, "the original still waits")
	assert.Zero(t, session.Len[Echoed](s))
}

// Request.Approve parks a call the same way; on the answer the call is
// approved again, Approve reading the answer (AnswerOf): a yes runs the
// tool, a no is the denial the model reads.
func TestWaitFromApprove(t *testing.T) {
	tests := map[string]struct {
		answer, result string
		ran            bool
	}{
		"yes": {answer: "yes", result: "echoed\n\n{\"echo\":\"hi\"}", ran: true},
		"no":  {answer: "no", result: "Permission to use the tool 'echo' was denied: the user said no"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			s := newSession(t)
			req := request(newPrompt(t, echoTool(t)), s, scripted.New(
				scripted.ToolCalls(model.ToolCall{ID: "c1", Name: "echo", Arguments: `{"text":"hi"}`}),
				scripted.Text("done"),
			))
			var answers []string
			req.Approve = func(ctx context.Context, _ *tools.Invocation, c model.ToolCall) error {
				answer, ok := runner.AnswerOf(ctx)
				answers = append(answers, answer)
				switch {
				case !ok:
					return runner.Wait("May " + c.Name + " run?")
				case answer == "yes":
					return nil
				}
				return errors.New("the user said no")
			}
			resp, err := runner.Evaluate(ctx, req)
			w, ok := errors.AsType[*runner.Waiting](err)
			require.True(t, ok, "%v", err)
			assert.Equal(t, runner.Waiting{Evaluation: resp.Evaluation, CallID: "c1", Tool: "echo", Question: "May echo run?", Approval: true}, *w)
			assert.Zero(t, session.Len[runner.ToolInvoked](s))

			req.UserMessage, req.Continue, req.Answer = "", resp.Evaluation, tt.answer
			resp2, err := runner.Evaluate(ctx, req)
			require.NoError(t, err)
			assert.Equal(t, "done", resp2.Text)
			assert.Equal(t, []string{tt.result}, toolMessages(resp2)[:1])
			assert.Equal(t, tt.ran, session.Len[Echoed](s) == 1)
			assert.Equal(t, []string{"", tt.answer}, answers, "asked again with the answer")
			latest, _ := session.Latest[runner.Waiting](s)
			assert.True(t, latest.Answered)
			rec, _ := session.Latest[runner.ToolInvoked](s)
			assert.Equal(t, "c1", rec.CallID)

			_, err = runner.Evaluate(ctx, req)
			require.ErrorContains(t, err, "waits for no answer")
		})
	}
}

// Of calls run at once, the first that waits parks the evaluation, the
// others are recorded, and a second that waits is told to ask later.
func TestWaitConcurrentCalls(t *testing.T) {
	s := newSession(t)
	req := request(newPrompt(t, askTool(t, nil, tools.ConcurrentSafe()), echoTool(t, tools.ConcurrentSafe())), s, scripted.New(
		scripted.ToolCalls(
			model.ToolCall{ID: "c0", Name: "echo", Arguments: `{"text":"before"}`},
			model.ToolCall{ID: "c1", Name: "ask", Arguments: `{"question":"Which colour?"}`},
			model.ToolCall{ID: "c2", Name: "ask", Arguments: `{"question":"Which size?"}`},
		),
		scripted.Text("done"),
	))
	resp, err := runner.Evaluate(ctx, req)
	parkedError(t, err, resp.Evaluation)
	assert.Equal(t, 2, session.Len[runner.ToolInvoked](s))

	req.UserMessage, req.Continue, req.Answer = "", resp.Evaluation, "blue"
	resp2, err := runner.Evaluate(ctx, req)
	require.NoError(t, err)
	msgs := toolMessages(resp2)
	require.Len(t, msgs, 3)
	assert.Contains(t, msgs[1], "Not asked: another call of this turn is waiting")
	assert.Equal(t, "blue", msgs[2])
}
