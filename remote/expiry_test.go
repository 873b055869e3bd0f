package remote_test

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/examples/billing"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/remote"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/subagent"
	"github.com/offshoot-dev/offshoot/tools/promptsubagent"
)

// An executor that forks children from one parent state after the
// snapshot bucket's TTL dropped that state's object stores it again: a
// worker never gets the name of a snapshot that is gone.
func TestASnapshotGoneFromTheStoreIsStoredAgain(t *testing.T) {
	ctx := watchdog(t)
	remote.SetObjectsTTL(t, time.Second)
	s := natsServer(t, t.TempDir(), -1)
	defer s.Shutdown()
	_, js := connect(t, s)
	setup, err := storySetup(false)
	require.NoError(t, err)
	// The first child runs on a worker that then stops, the second on a
	// new one, which has no copy of the state in memory.
	first := make(chan struct{})
	setup.Model = func(string) (model.Model, error) { return billing.Script(), nil }
	setup.Logger = slog.New(slog.DiscardHandler)
	wctx, stopFirst := context.WithCancel(ctx)
	served := make(chan error, 1)
	go func() {
		served <- remote.Serve(wctx, js, "expiry", setup)
		close(first)
	}()
	x, err := remote.NewExecutor(ctx, js, remote.Options{Pool: "expiry", Setup: setup})
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
	from := parent.Snapshot() // both children fork from this state
	run := func() (*subagent.Outcome, error) {
		return engine.Run(ctx, subagent.Spec{Name: "agents/reviewer", Parent: parent, Snapshot: &from, Request: runner.Request{Prompt: p, Model: billing.Script(), ModelName: "echo", UserMessage: "Review step S001 of the plan."}})
	}
	_, err = run()
	require.NoError(t, err)

	stopFirst()
	recv(t, ctx, first, "the first worker did not stop")
	require.NoError(t, <-served)
	inProcessWorker(t, ctx, js, "expiry", setup, nil)

	objects, err := js.ObjectStore(ctx, "offshoot_snapshots")
	require.NoError(t, err)
	for { // the bucket's TTL drops the parent's state
		list, err := objects.List(ctx)
		if errors.Is(err, jetstream.ErrNoObjectsFound) || err == nil && len(list) == 0 {
			break
		}
		require.NoError(t, err)
		select {
		case <-ctx.Done():
			t.Fatal("the snapshot's object outlived its TTL")
		case <-time.After(50 * time.Millisecond):
		}
	}
	out, err := run()
	require.NoError(t, err, "a child forked from the same state after its object expired")
	assert.Equal(t, "done", out.Response.Text)
}
