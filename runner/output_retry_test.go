package runner_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
)

// An answer that does not match the declared output gets a second chance:
// the model is told, in plain words, what was wrong; the retries are
// turns, with their usage; past OutputRetries the last error stands.
func TestStructuredOutputGetsASecondChance(t *testing.T) {
	p, err := prompt.New("test", "judge", prompt.Markdown[Task]("Task", "Judge: {{ .Goal }}"), prompt.WithOutput[Verdict]())
	require.NoError(t, err)
	bad := scripted.Reply(&model.Response{Message: model.AssistantMessage(`{"ok": true}`), Usage: model.Usage{TotalTokens: 10}})
	good := scripted.Reply(&model.Response{Message: model.AssistantMessage(`{"ok": true, "reason": "fine"}`), Usage: model.Usage{TotalTokens: 10}})
	for _, tt := range []struct {
		name    string
		retries int
		turns   []scripted.Turn
		wantErr bool
		calls   int
	}{
		{"right at once", 0, []scripted.Turn{good}, false, 1},
		{"right the second time", 0, []scripted.Turn{bad, good}, false, 2},
		{"right the third time", 0, []scripted.Turn{bad, bad, good}, false, 3},
		{"wrong three times", 0, []scripted.Turn{bad, bad, bad}, true, 3},
		{"no retries", -1, []scripted.Turn{bad}, true, 1},
		{"one retry", 1, []scripted.Turn{bad, bad}, true, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := newSession(t)
			m := scripted.New(tt.turns...)
			req := request(p, s, m)
			req.OutputRetries = tt.retries
			resp, err := runner.Evaluate(ctx, req)
			require.NoError(t, m.Verify(), "every scripted answer was asked for")
			assert.Len(t, m.Calls(), tt.calls)
			require.NotNil(t, resp)
			assert.Equal(t, tt.calls, resp.Turns)
			assert.Equal(t, 10*tt.calls, resp.Usage.TotalTokens)
			if tt.wantErr {
				var ee *runner.EvaluationError
				require.ErrorAs(t, err, &ee)
				assert.Equal(t, runner.PhaseResponse, ee.Phase)
				assert.Contains(t, err.Error(), "reason: is required")
				return
			}
			require.NoError(t, err)
			v, err := runner.Output[Verdict](resp)
			require.NoError(t, err)
			assert.Equal(t, Verdict{Ok: true, Reason: "fine"}, v)
			if tt.calls > 1 {
				second := m.Calls()[1].Request.Messages
				ask := second[len(second)-1]
				assert.Equal(t, model.RoleUser, ask.Role)
				assert.Equal(t, "Your answer could not be used: reason: is required. Answer again with the whole result as JSON that matches the required output, and nothing else.", ask.Content)
				// The conversation in the session holds the retries as turns.
				conv := runner.Conversation(s.Snapshot(), resp.Evaluation)
				assert.Equal(t, ask, conv[len(conv)-2])
				assert.Equal(t, tt.calls, session.Len[runner.ModelCalled](s))
			}
		})
	}
}
