package remote_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/examples/billing"
	"github.com/offshoot-dev/offshoot/remote"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/subagent"
	"github.com/offshoot-dev/offshoot/tools/promptsubagent"
)

// A program that names no pool and no model for its remote child reaches
// a worker that names no pool either: the child runs on the worker's
// model, by the name the parent gives.
func TestAChildWithNoPoolAndNoModelRunsOnAWorker(t *testing.T) {
	ctx := watchdog(t)
	s := natsServer(t, t.TempDir(), -1)
	defer s.Shutdown()
	_, js := connect(t, s)
	setup, err := storySetup(false)
	require.NoError(t, err)
	calls := inProcessWorker(t, ctx, js, "", setup, nil)
	x, err := remote.NewExecutor(ctx, js, remote.Options{Setup: setup})
	require.NoError(t, err)
	defer x.Close()

	parent, err := session.New()
	require.NoError(t, err)
	defer parent.Close()
	engine := subagent.New(subagent.Options{Executor: x})
	reg, err := billing.Prompts(engine, promptsubagent.Options{})
	require.NoError(t, err)
	p, err := reg.Lookup(billing.ReviewerNS, billing.ReviewerKey)
	require.NoError(t, err)
	out, err := engine.Run(ctx, subagent.Spec{Name: "agents/reviewer", Parent: parent,
		Request: runner.Request{Prompt: p, ModelName: "light", UserMessage: "Review step S001 of the plan."}})
	require.NoError(t, err)
	assert.Equal(t, "done", out.Response.Text)
	assert.Equal(t, int64(1), calls.Load())
}
