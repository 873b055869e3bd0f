package runner_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/sessiontest"
	"github.com/offshoot-dev/offshoot/tools"
)

// An evaluation rendered beforehand (Render, Request.Rendered) runs as
// one that renders itself: the same records, the same response; and the
// response read back from the records (Recorded) is the one Evaluate
// returned — what a subagent run on a worker is given in its parent.
func TestARenderedRequestRunsAsOneThatRenders(t *testing.T) {
	withOutput, err := prompt.New("test", "judge", prompt.Markdown[Task]("Task", "Judge: {{ .Goal }}", prompt.WithTools(echoTool(t))), prompt.WithOutput[Verdict]())
	require.NoError(t, err)
	script := func() []scripted.Turn {
		return []scripted.Turn{
			scripted.ToolCall("echo", `{"text":"hello"}`),
			scripted.Text(`{"ok": true}`), // retried: no reason
			scripted.Text(`{"ok": true, "reason": "fine"}`),
		}
	}
	for _, tt := range []struct {
		name   string
		prompt *prompt.Prompt
		turns  []scripted.Turn
		filter tools.Filter
		err    bool
	}{
		{"plain", newPrompt(t, echoTool(t)), []scripted.Turn{scripted.ToolCall("echo", `{"text":"hi"}`), scripted.Text("done")}, tools.Filter{}, false},
		{"structured output", withOutput, script(), tools.Filter{}, false},
		{"filtered, failing", newPrompt(t, echoTool(t)), []scripted.Turn{scripted.ToolCall("echo", `{"text":"hi"}`)}, tools.Filter{Deny: []string{"echo"}}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			run := func(prepared bool) (*session.Session, *runner.Response, error) {
				s := newSession(t)
				req := request(tt.prompt, s, scripted.New(tt.turns...))
				req.ToolFilter, req.MaxTurns = tt.filter, len(tt.turns)
				if prepared {
					rendered, err := runner.Render(req)
					require.NoError(t, err)
					req.Prompt, req.Params, req.ToolFilter, req.Rendered = nil, nil, tools.Filter{}, rendered
				}
				resp, err := runner.Evaluate(ctx, req)
				return s, resp, err
			}
			s1, want, err1 := run(false)
			s2, got, err2 := run(true)
			if tt.err {
				require.Error(t, err1)
				require.EqualError(t, err2, err1.Error())
			} else {
				require.NoError(t, err1)
				require.NoError(t, err2)
			}
			sessiontest.AssertParity(t, s1.Snapshot(), s2)
			assert.Equal(t, want.Text, got.Text)
			assert.Equal(t, want.Output, got.Output)
			assert.Equal(t, want.Messages, got.Messages)
			assert.Equal(t, want.Rendered.Text, got.Rendered.Text)

			read, err := runner.Recorded(s2.Snapshot(), got.Evaluation, got.Rendered)
			require.NoError(t, err)
			assert.Equal(t, got, read)
		})
	}
}

// Render fails as Evaluate would, in the render phase, naming the prompt.
func TestRenderFailsInTheRenderPhase(t *testing.T) {
	for _, tt := range []struct {
		name string
		req  runner.Request
		want string
	}{
		{"no prompt", runner.Request{}, "Render needs a Prompt"},
		{"bad params", runner.Request{Prompt: newPrompt(t), Params: []any{Task{}}}, "test/agent"},
		{"bad filter", runner.Request{Prompt: newPrompt(t), Params: []any{Task{Goal: "x"}}, ToolFilter: tools.Filter{Allow: []string{"["}}}, "test/agent"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := runner.Render(tt.req)
			var ee *runner.EvaluationError
			require.ErrorAs(t, err, &ee)
			assert.Equal(t, runner.PhaseRender, ee.Phase)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}
