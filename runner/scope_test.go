package runner_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/tools"
)

type DelegateParams struct {
	N int `json:"n"`
}

// delegateTool runs n child evaluations, in parallel, with the call's ctx:
// what a delegation engine does. Each child spends perCall tokens per model
// call, calling echo until it is stopped. onCall, when set, is called at
// each child's model call.
func delegateTool(t *testing.T, parent func() *session.Session, perCall int, onCall func()) tools.Tool {
	t.Helper()
	child, err := prompt.New("test", "child", prompt.Markdown[prompt.NoParams]("Child", "Keep echoing.", prompt.WithTools(echoTool(t))))
	require.NoError(t, err)
	tool, err := tools.New("delegate", "Run children.", func(ctx context.Context, inv *tools.Invocation, p DelegateParams) (tools.Result[string], error) {
		var wg sync.WaitGroup
		for range p.N {
			wg.Add(1)
			go func() {
				defer wg.Done()
				s, err := parent().Fork()
				if err != nil {
					return
				}
				defer s.Close()
				m := scripted.New(scripted.Repeat(scripted.Func(func(ctx context.Context, _ *model.Request) (*model.Response, error) {
					if onCall != nil {
						onCall()
					}
					return &model.Response{Message: model.AssistantMessage("", model.ToolCall{ID: "c", Name: "echo", Arguments: `{"text":"x"}`}),
						Usage: model.Usage{InputTokens: perCall - 1, OutputTokens: 1, TotalTokens: perCall}}, nil
				})))
				_, _ = runner.Evaluate(ctx, runner.Request{Prompt: child, Session: s, Model: m, MaxTurns: 1000})
			}()
		}
		wg.Wait()
		return tools.OK("children done", "ok"), nil
	}, tools.ConcurrentSafe())
	require.NoError(t, err)
	return tool
}

// A parent's Budget bounds the evaluations started from its tool calls:
// twenty children together spend what the parent had left, give or take
// one model call each, not twenty times the budget.
func TestAParentsBudgetBoundsItsChildren(t *testing.T) {
	s := newSession(t)
	m := scripted.New(
		scripted.ToolCall("delegate", `{"n":20}`),
		scripted.Text("done"),
	)
	req := request(newPrompt(t, delegateTool(t, func() *session.Session { return s }, 10, nil)), s, m)
	req.Budget = 500
	resp, err := runner.Evaluate(ctx, req)
	require.ErrorIs(t, err, runner.ErrBudgetExceeded, "the parent stops too: its children spent its budget")
	assert.Greater(t, resp.ChildUsage.TotalTokens, 400)
	assert.LessOrEqual(t, resp.Usage.TotalTokens+resp.ChildUsage.TotalTokens, 500+20*10, "at most one model call per child past the budget")
	assert.Equal(t, resp.ChildUsage.TotalTokens/10, resp.ChildUsage.OutputTokens, "usage is counted field by field")
}

// What a child spent reaches its parent's ChildUsage even when the parent
// is cancelled while the child runs.
func TestChildUsageSurvivesTheParentsCancellation(t *testing.T) {
	s := newSession(t)
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// The cancel comes from inside, after the children made some model
	// calls (each spending 7 tokens) and while they still run: they call
	// echo for ever until stopped.
	var calls atomic.Int32
	onCall := func() {
		if calls.Add(1) == 6 {
			cancel()
		}
	}
	m := scripted.New(scripted.ToolCall("delegate", `{"n":3}`), scripted.Text("unreached"))
	resp, err := runner.Evaluate(cctx, request(newPrompt(t, delegateTool(t, func() *session.Session { return s }, 7, onCall)), s, m))
	require.True(t, errors.Is(err, context.Canceled), "got %v", err)
	require.NotNil(t, resp)
	assert.Positive(t, resp.ChildUsage.TotalTokens, "the children's spending is not lost")
	assert.Zero(t, resp.ChildUsage.TotalTokens%7)
}

func TestScopes(t *testing.T) {
	root := runner.NewScope(0)
	type key struct{}
	n := 0
	v := root.Value(key{}, func() any { n++; return &n })
	assert.Same(t, v, root.Value(key{}, func() any { n++; return &n }), "initialized once")
	assert.Equal(t, 1, n)
	assert.Same(t, root, root.Root())
	assert.Nil(t, root.Parent())

	// An evaluation run with a ctx carrying a scope goes below it.
	s := newSession(t)
	var inner *runner.Scope
	probe, err := tools.New("probe", "Look at the scope.", func(ctx context.Context, _ *tools.Invocation, _ struct{}) (tools.Result[string], error) {
		c, _ := runner.CallerFrom(ctx)
		inner = c.Scope
		return tools.OK("ok", "ok"), nil
	})
	require.NoError(t, err)
	m := scripted.New(scripted.ToolCall("probe", `{}`), scripted.Reply(&model.Response{Message: model.AssistantMessage("done"), Usage: model.Usage{TotalTokens: 5}}))
	resp, err := runner.Evaluate(runner.WithCaller(ctx, runner.Caller{Scope: root}), request(newPrompt(t, probe), s, m))
	require.NoError(t, err)
	require.NotNil(t, inner)
	assert.Same(t, root, inner.Parent())
	assert.Same(t, root, inner.Root())
	assert.Equal(t, resp.Usage, root.Spent(), "spending is charged up the run")
}
