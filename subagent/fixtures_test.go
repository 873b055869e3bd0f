package subagent_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/sessiontest"
	"github.com/offshoot-dev/offshoot/subagent"
	"github.com/offshoot-dev/offshoot/tools"
)

var ctx = context.Background()

// Note is parent state the children read; Wrote is what a child's tool
// records.
type (
	Note  struct{ Text string }
	Wrote struct{ Text string }
)

type WriteParams struct {
	Text string `json:"text"`
}

func writeTool(t testing.TB) tools.Tool {
	t.Helper()
	tool, err := tools.New("write", "Record a line.", func(_ context.Context, _ *tools.Invocation, p WriteParams) (tools.Result[string], error) {
		if p.Text == "crash" {
			panic("write crashed")
		}
		return tools.OK("written", p.Text).WithEvents(Wrote{p.Text}), nil
	})
	require.NoError(t, err)
	return tool
}

type DelegateParams struct {
	Name string `json:"name"`
	Task string `json:"task"`
}

// delegateTool runs a grandchild through the engine, as a front end would.
func delegateTool(t testing.TB, e *subagent.Engine, m model.Model) tools.Tool {
	t.Helper()
	tool, err := tools.New("delegate", "Delegate a task.", func(ctx context.Context, inv *tools.Invocation, p DelegateParams) (tools.Result[string], error) {
		out, err := e.Run(ctx, subagent.Spec{Name: p.Name, Parent: inv.Session, Caller: inv, Withhold: []string{"delegate"}, Request: runner.Request{Prompt: childPrompt(t, p.Name), UserMessage: p.Task, Model: m, ModelName: "scripted", Tools: inv.Tools}})
		if err != nil {
			return tools.Failed[string](err.Error()), nil
		}
		return tools.OK("delegated", out.Text), nil
	}, tools.ConcurrentSafe())
	require.NoError(t, err)
	return tool
}

func childPrompt(t testing.TB, name string) *prompt.Prompt {
	t.Helper()
	p, err := prompt.New("child", name, prompt.Markdown[prompt.NoParams]("Role", "You are "+name+"."))
	require.NoError(t, err)
	return p
}

var t0 = sessiontest.Epoch

func newParent(t testing.TB) *session.Session {
	t.Helper()
	s := sessiontest.New(t)
	require.NoError(t, s.Dispatch(ctx, Note{"parent state"}))
	return s
}

func toolset(t testing.TB, ts ...tools.Tool) tools.Toolset {
	t.Helper()
	set, err := tools.NewToolset(ts...)
	require.NoError(t, err)
	return set
}

func spec(t testing.TB, parent *session.Session, m model.Model, ts ...tools.Tool) subagent.Spec {
	return subagent.Spec{Name: "child/worker", Parent: parent, Request: runner.Request{Prompt: childPrompt(t, "worker"), UserMessage: "do the work", Model: m, ModelName: "scripted", Tools: toolset(t, ts...)}}
}

// inRun returns a ctx for one run with a token budget (0 for none), and
// the budget, which counts what the run spends.
func inRun(tokens int) (context.Context, *runner.Budget) {
	return runner.WithBudget(subagent.WithRun(ctx), tokens)
}
