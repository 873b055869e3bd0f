package runner_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
)

// refuse registers a reducer that refuses every E on s: the session's
// record of the evaluation cannot commit.
func refuse[E any](t *testing.T, s *session.Session) {
	t.Helper()
	require.NoError(t, session.Register(s, func(_ session.ReducerContext, sl session.Slice[int], _ E) (session.Slice[int], error) {
		return sl, errors.New("refused")
	}))
}

// What the runner records of an evaluation must commit, or a later
// Continue breaks silently: a record that fails ends the evaluation in
// the record phase, saying so.
func TestARecordThatFailsEndsTheEvaluation(t *testing.T) {
	for _, tt := range []struct {
		name   string
		refuse func(*testing.T, *session.Session)
		turns  []scripted.Turn
	}{
		{"a model call with tool calls", refuse[runner.ModelCalled], []scripted.Turn{scripted.ToolCall("echo", `{"text":"x"}`), scripted.Text("done")}},
		{"the final answer", refuse[runner.PromptExecuted], []scripted.Turn{scripted.Text("done")}},
		{"a failed model call", refuse[runner.ModelCalled], []scripted.Turn{scripted.Fail(errors.New("the provider is down"))}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := newSession(t)
			tt.refuse(t, s)
			_, err := runner.Evaluate(ctx, request(newPrompt(t, echoTool(t)), s, scripted.New(tt.turns...)))
			require.Error(t, err)
			assert.Contains(t, err.Error(), "recording the evaluation in session")
			assert.Contains(t, err.Error(), "refused")
			var ee *runner.EvaluationError
			require.ErrorAs(t, err, &ee)
			if tt.name != "a failed model call" {
				assert.Equal(t, runner.PhaseRecord, ee.Phase)
			}
		})
	}
}

// The turn limit is a limit, not a failed request, and says so once.
func TestMaxTurnsIsALimit(t *testing.T) {
	req := request(newPrompt(t, echoTool(t)), newSession(t), scripted.New(scripted.Repeat(scripted.ToolCall("echo", `{"text":"x"}`))))
	req.MaxTurns = 2
	_, err := runner.Evaluate(ctx, req)
	require.ErrorIs(t, err, runner.ErrMaxTurns)
	var ee *runner.EvaluationError
	require.ErrorAs(t, err, &ee)
	assert.Equal(t, runner.PhaseLimit, ee.Phase)
	assert.Equal(t, 1, strings.Count(err.Error(), "raise MaxTurns"), "the advice is given once")
}
