package runner_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/tools"
)

// Under a run scope, the run's context is the scope's, not that of the
// evaluation, which may end first.
func TestNewRunScopeGivesTheRunsContext(t *testing.T) {
	type key struct{}
	runCtx := context.WithValue(context.Background(), key{}, "run")
	var seen context.Context
	probe, err := tools.New("probe", "Look at the run.", func(ctx context.Context, _ *tools.Invocation, _ struct{}) (tools.Result[string], error) {
		c, _ := runner.CallerFrom(ctx)
		seen, _ = c.Scope.Context()
		return tools.OK("seen", ""), nil
	})
	require.NoError(t, err)
	p, err := prompt.New("app", "main", prompt.Markdown[prompt.NoParams]("Role", "You look.", prompt.WithTools(probe)))
	require.NoError(t, err)
	s, err := session.New()
	require.NoError(t, err)
	defer s.Close()

	turn, stop := context.WithCancel(runCtx)
	defer stop()
	_, err = runner.Evaluate(runner.WithCaller(turn, runner.Caller{Scope: runner.NewRunScope(runCtx, 0)}), runner.Request{
		Prompt: p, Session: s, Model: scripted.New(scripted.ToolCall("probe", `{}`), scripted.Text("done")), UserMessage: "Look.",
	})
	require.NoError(t, err)
	require.NotNil(t, seen)
	stop()
	assert.NoError(t, seen.Err(), "the run's context outlives the evaluation's")
	assert.Equal(t, "run", seen.Value(key{}))
}
