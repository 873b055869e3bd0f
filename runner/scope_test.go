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

// A budget given with WithBudget is shared by every evaluation run with
// the ctx and those nested in them: what each spends is charged up the
// tree, and an evaluation whose budget above is spent stops.
func TestWithBudgetIsSharedDownTheTree(t *testing.T) {
	run, budget := runner.WithBudget(ctx, 30)
	spend := func() *scripted.Model {
		return scripted.New(scripted.Reply(&model.Response{Message: model.AssistantMessage("done"), Usage: model.Usage{TotalTokens: 20}}))
	}
	// The first evaluation spends 20 of 30, and a nested one (run with a
	// tool call's ctx) 20 more: together they are over.
	var nested error
	s := newSession(t)
	probe, err := tools.New("probe", "Run a nested evaluation.", func(ctx context.Context, _ *tools.Invocation, _ struct{}) (tools.Result[string], error) {
		child, err := s.Fork()
		if err != nil {
			return tools.Result[string]{}, err
		}
		defer child.Close()
		_, nested = runner.Evaluate(ctx, request(newPrompt(t), child, spend()))
		return tools.OK("ok", "ok"), nil
	})
	require.NoError(t, err)
	m := scripted.New(scripted.Reply(&model.Response{Message: model.AssistantMessage("", model.ToolCall{ID: "c", Name: "probe", Arguments: `{}`}), Usage: model.Usage{TotalTokens: 20}}), scripted.Text("unreached"))
	resp, err := runner.Evaluate(run, request(newPrompt(t, probe), s, m))
	require.NoError(t, nested, "the nested evaluation started with 10 left")
	require.ErrorIs(t, err, runner.ErrBudgetExceeded, "the nested one's spending is charged up the tree")
	assert.Equal(t, 20, resp.ChildUsage.TotalTokens)
	assert.Equal(t, 40, budget.Spent().TotalTokens, "spending is charged up the tree")

	// A second evaluation with the same ctx finds the budget spent.
	_, err = runner.Evaluate(run, request(newPrompt(t), newSession(t), spend()))
	require.ErrorIs(t, err, runner.ErrBudgetExceeded)
	// Without one, nothing is bounded.
	_, err = runner.Evaluate(ctx, request(newPrompt(t), newSession(t), spend()))
	require.NoError(t, err)
}

// Cache writes are summed like every other count: per evaluation, for
// what its children spent, and for the whole tree under a budget.
func TestCacheWritesAreSummedPerChildAndTree(t *testing.T) {
	s := newSession(t)
	own := model.Usage{InputTokens: 40, CachedInputTokens: 30, CacheWriteTokens: 8, OutputTokens: 10, TotalTokens: 50}
	child := model.Usage{InputTokens: 20, CachedInputTokens: 15, CacheWriteTokens: 3, OutputTokens: 5, TotalTokens: 25}
	m := scripted.New(scripted.Func(func(context.Context, *model.Request) (*model.Response, error) {
		require.NoError(t, s.Dispatch(ctx, runner.Spent{Source: "child", Usage: child}))
		return &model.Response{Message: model.AssistantMessage("done"), Usage: own}, nil
	}))
	bctx, budget := runner.WithBudget(ctx, 0)
	resp, err := runner.Evaluate(bctx, request(newPrompt(t, echoTool(t)), s, m))
	require.NoError(t, err)
	assert.Equal(t, 8, resp.Usage.CacheWriteTokens)
	assert.Equal(t, 3, resp.ChildUsage.CacheWriteTokens)
	assert.Equal(t, 11, budget.Spent().CacheWriteTokens)
	assert.Equal(t, 45, budget.Spent().CachedInputTokens)
}
