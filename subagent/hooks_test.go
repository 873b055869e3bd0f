package subagent_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/bus"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/sessiontest"
	"github.com/offshoot-dev/offshoot/subagent"
)

// userMessages returns the user messages of a model request.
func userMessages(req *model.Request) []string {
	var out []string
	for _, m := range req.Messages {
		if m.Role == model.RoleUser {
			out = append(out, m.Content)
		}
	}
	return out
}

func TestStartHookAddsContextToTheFirstMessage(t *testing.T) {
	parent := newParent(t)
	var got []subagent.SubagentStart
	var observed []subagent.SubagentStart
	_, err := bus.Subscribe(parent.Bus(), "watch", func(_ context.Context, env bus.Envelope, e subagent.SubagentStart) error {
		assert.Empty(t, env.SessionID, "addressed to no session")
		observed = append(observed, e)
		return nil
	})
	require.NoError(t, err)
	e := subagent.New(subagent.Options{NewID: func() string { return "agent-1" }, StartHooks: []subagent.StartHook{func(_ context.Context, s subagent.SubagentStart) (string, error) {
		got = append(got, s)
		return "The repository uses Go 1.24.", nil
	}, func(context.Context, subagent.SubagentStart) (string, error) { return "  ", nil }, func(context.Context, subagent.SubagentStart) (string, error) { return "Tests run with -race.", nil }}})
	m := scripted.New(scripted.Text("done"))
	out, err := e.Run(ctx, spec(t, parent, m))
	require.NoError(t, err)
	assert.Equal(t, []string{"do the work\n\nThe repository uses Go 1.24.\n\nTests run with -race."}, userMessages(m.Calls()[0].Request))
	want := subagent.SubagentStart{AgentID: "agent-1", AgentType: "child/worker", SessionID: out.SessionID, ParentSessionID: parent.ID()}
	assert.Equal(t, []subagent.SubagentStart{want}, got)
	assert.Equal(t, []subagent.SubagentStart{want}, observed)
}

func TestStopHookBlocksAndTheChildGoesOn(t *testing.T) {
	parent := newParent(t)
	var stops []subagent.SubagentStop
	e := subagent.New(subagent.Options{StopHooks: []subagent.StopHook{func(_ context.Context, s subagent.SubagentStop) (string, error) {
		stops = append(stops, s)
		if len(stops) == 1 {
			return "You did not run the tests. Run them, then report.", nil
		}
		return "", nil
	}}})
	m := scripted.New(
		scripted.Text("looks fine"),
		scripted.ToolCall("write", `{"text":"ran the tests"}`),
		scripted.Text("tests pass; looks fine"),
	)
	out, err := e.Run(ctx, spec(t, parent, m, writeTool(t)))
	require.NoError(t, err)
	assert.Equal(t, "tests pass; looks fine", out.Text)
	require.Len(t, stops, 2)
	assert.Equal(t, "looks fine", stops[0].LastMessage)
	assert.False(t, stops[0].StopHookActive)
	assert.Equal(t, "tests pass; looks fine", stops[1].LastMessage)
	assert.True(t, stops[1].StopHookActive, "the child is finishing work a hook asked for")
	assert.Equal(t, out.AgentID, stops[0].AgentID)
	assert.Equal(t, "child/worker", stops[0].AgentType)

	// The reason reached the model as the next user message, after the
	// conversation so far.
	second := m.Calls()[1].Request
	assert.Equal(t, []string{"do the work", "You did not run the tests. Run them, then report."}, userMessages(second))
	assert.Equal(t, "looks fine", second.Messages[len(second.Messages)-2].Content)
	assert.Equal(t, 3, out.Usage.ModelCalls, "usage counts every continuation")
	assert.Equal(t, map[string]int{"write": 1}, out.Usage.ToolCalls)
}

func TestStopHookBlocksAtMostEightTimesInARow(t *testing.T) {
	parent := newParent(t)
	calls := 0
	var active []bool
	e := subagent.New(subagent.Options{StopHooks: []subagent.StopHook{func(_ context.Context, s subagent.SubagentStop) (string, error) {
		calls++
		active = append(active, s.StopHookActive)
		return fmt.Sprintf("keep going (%d)", calls), nil
	}}})
	m := scripted.New(scripted.Repeat(scripted.Text("done")))
	sp := spec(t, parent, m)
	sp.Request.MaxTurns = 100
	out, err := e.Run(ctx, sp)
	require.NoError(t, err, "after the cap the child finishes, as a success")
	assert.Equal(t, "done", out.Text)
	assert.Equal(t, subagent.MaxStopBlocks+1, calls, "asked at each end: eight blocks honoured, the ninth not")
	assert.Len(t, m.Calls(), subagent.MaxStopBlocks+1)
	assert.False(t, active[0])
	for _, a := range active[1:] {
		assert.True(t, a)
	}
}

// A block needs a turn to honour it: with none left, the child stops at
// its turn limit, its text kept.
func TestStopHookCannotExceedMaxTurns(t *testing.T) {
	parent := newParent(t)
	e := subagent.New(subagent.Options{StopHooks: []subagent.StopHook{func(context.Context, subagent.SubagentStop) (string, error) { return "more", nil }}})
	sp := spec(t, parent, scripted.New(scripted.Repeat(scripted.Text("partial"))))
	sp.Request.MaxTurns = 2
	out, err := e.Run(ctx, sp)
	require.ErrorIs(t, err, subagent.ErrMaxTurns)
	assert.EqualError(t, err, "Subagent stopped after reaching max turns (2)")
	assert.Equal(t, "partial", out.Text)
}

func TestHookFailuresFailTheRunClearly(t *testing.T) {
	tests := map[string]subagent.Options{
		"start error": {StartHooks: []subagent.StartHook{func(context.Context, subagent.SubagentStart) (string, error) {
			return "", errors.New("policy service unavailable")
		}}},
		"start panic": {StartHooks: []subagent.StartHook{func(context.Context, subagent.SubagentStart) (string, error) { panic("hook bug") }}},
		"stop error": {StopHooks: []subagent.StopHook{func(context.Context, subagent.SubagentStop) (string, error) {
			return "", errors.New("policy service unavailable")
		}}},
		"stop panic": {StopHooks: []subagent.StopHook{func(context.Context, subagent.SubagentStop) (string, error) { panic("hook bug") }}},
	}
	for name, opt := range tests {
		t.Run(name, func(t *testing.T) {
			parent := newParent(t)
			before := sessiontest.Capture(parent)
			_, err := subagent.New(opt).Run(ctx, spec(t, parent, scripted.New(scripted.Text("done"))))
			require.ErrorIs(t, err, subagent.ErrHook)
			assert.Regexp(t, `^Subagent hook Subagent(Start|Stop) failed: (policy service unavailable|panic: hook bug)$`, err.Error())
			sessiontest.AssertUnchanged(t, before, parent)
			assert.Empty(t, parent.ChildIDs())
		})
	}
}

// Without hooks, observers still see every end a child reaches.
func TestStopEventsReachObservers(t *testing.T) {
	parent := newParent(t)
	var mu sync.Mutex
	var stops []subagent.SubagentStop
	_, err := bus.Subscribe(parent.Bus(), "watch", func(_ context.Context, _ bus.Envelope, e subagent.SubagentStop) error {
		mu.Lock()
		defer mu.Unlock()
		stops = append(stops, e)
		return nil
	})
	require.NoError(t, err)
	out, err := subagent.New(subagent.Options{}).Run(ctx, spec(t, parent, scripted.New(scripted.Text("done"))))
	require.NoError(t, err)
	require.Len(t, stops, 1)
	assert.Equal(t, subagent.SubagentStop{AgentID: out.AgentID, AgentType: "child/worker", SessionID: out.SessionID,
		ParentSessionID: parent.ID(), LastMessage: "done"}, stops[0])
}
