package subagent_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/bus"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/serde"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/subagent"
)

// The spawn budget counts the children of one run: a long chat, whose
// every turn is a run of its own, can delegate in each of them.
func TestTheSpawnBudgetBelongsToARun(t *testing.T) {
	parent := newParent(t)
	e := subagent.New(subagent.Options{MaxSpawns: 2})
	for turn := range 5 {
		run, _ := inRun(0)
		for range 2 {
			_, err := e.Run(run, spec(t, parent, scripted.New(scripted.Text("ok"))))
			require.NoError(t, err, "turn %d", turn)
		}
		_, err := e.Run(run, spec(t, parent, scripted.New(scripted.Text("ok"))))
		require.ErrorIs(t, err, subagent.ErrBudget, "turn %d", turn)
	}
}

// Limits are keyed by the run, never by a session id: two sessions with
// one id (on two buses) share nothing.
func TestSessionsWithOneIDShareNoLimits(t *testing.T) {
	newAt := func() *session.Session {
		s, err := session.New(session.WithID("same"), session.WithBus(bus.New()), session.WithRegistry(serde.NewRegistry()))
		require.NoError(t, err)
		t.Cleanup(func() { _ = s.Close() })
		return s
	}
	a, b := newAt(), newAt()
	e := subagent.New(subagent.Options{MaxSpawns: 1})
	_, err := e.Run(subagent.WithRun(ctx), spec(t, a, scripted.New(scripted.Text("ok"))))
	require.NoError(t, err)
	_, err = e.Run(subagent.WithRun(ctx), spec(t, b, scripted.New(scripted.Text("ok"))))
	require.NoError(t, err)
}

// A run's budget bounds what its children spend together: twenty children
// spend what the run had, give or take one model call each.
func TestABudgetBoundsTheChildrenTogether(t *testing.T) {
	parent := newParent(t)
	spend := model.Usage{InputTokens: 9, OutputTokens: 1, TotalTokens: 10}
	m := scripted.New(scripted.Repeat(scripted.ToolCall("write", `{"text":"more"}`).WithUsage(spend)))
	e := subagent.New(subagent.Options{MaxConcurrent: 20})
	run, budget := inRun(100)
	var wg sync.WaitGroup
	errs := make([]error, 20)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sp := spec(t, parent, m, writeTool(t))
			sp.Request.MaxTurns = 1000
			_, errs[i] = e.Run(run, sp)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		require.ErrorIs(t, err, runner.ErrBudgetExceeded)
	}
	assert.LessOrEqual(t, budget.Spent().TotalTokens, 100+20*10, "at most one model call per child past the budget")
	assert.Greater(t, budget.Spent().TotalTokens, 100)
}

// Cancelling the parent cancels its children, and what they spent is not
// lost.
func TestCancellingTheParentKeepsWhatTheChildrenSpent(t *testing.T) {
	parent := newParent(t)
	spend := model.Usage{InputTokens: 4, OutputTokens: 1, TotalTokens: 5}
	run, budget := inRun(0)
	c, cancel := context.WithCancel(run)
	// The children call write until stopped; the sixth model call cancels
	// the parent, from inside, while they run.
	var calls atomic.Int32
	m := scripted.New(scripted.Repeat(scripted.Func(func(ctx context.Context, _ *model.Request) (*model.Response, error) {
		if calls.Add(1) == 6 {
			cancel()
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		return &model.Response{Message: model.AssistantMessage("", model.ToolCall{ID: "c", Name: "write", Arguments: `{"text":"x"}`}), Usage: spend}, nil
	})))
	e := subagent.New(subagent.Options{})
	var wg sync.WaitGroup
	errs := make([]error, 3)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sp := spec(t, parent, m, writeTool(t))
			sp.Request.MaxTurns = 1000
			_, errs[i] = e.Run(c, sp)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		require.ErrorIs(t, err, context.Canceled, fmt.Sprint(err))
	}
	assert.Positive(t, budget.Spent().TotalTokens)
	assert.Zero(t, budget.Spent().TotalTokens%5)
	assert.Empty(t, parent.ChildIDs())
}

// Spec.Request.Messages are the conversation a child carries on: they follow its
// system message and come before its first user message.
func TestAChildCarriesOnTheMessagesItIsGiven(t *testing.T) {
	parent := newParent(t)
	m := scripted.New(scripted.Text("done"))
	sp := spec(t, parent, m)
	sp.Request.Messages = []model.Message{model.UserMessage("earlier question"), model.AssistantMessage("earlier answer")}
	_, err := subagent.New(subagent.Options{}).Run(ctx, sp)
	require.NoError(t, err)
	msgs := m.Calls()[0].Request.Messages
	require.Len(t, msgs, 4)
	assert.Equal(t, model.RoleSystem, msgs[0].Role)
	assert.Equal(t, sp.Request.Messages, msgs[1:3])
	assert.Equal(t, model.UserMessage("do the work"), msgs[3])
}

// A long-lived engine keeps the slots of a bounded number of parents: a
// parent that delegates again finds its own, and idle ones go once there
// are too many.
func TestAnEngineKeepsTheSlotsOfFewParents(t *testing.T) {
	e := subagent.New(subagent.Options{})
	for range 200 {
		_, err := e.Run(ctx, spec(t, newParent(t), scripted.New(scripted.Text("ok"))))
		require.NoError(t, err)
		require.LessOrEqual(t, subagent.SlotsKept(e), 64)
	}
	parent := newParent(t)
	for range 3 {
		_, err := e.Run(ctx, spec(t, parent, scripted.New(scripted.Text("ok"))))
		require.NoError(t, err)
	}
	assert.LessOrEqual(t, subagent.SlotsKept(e), 64)
}
