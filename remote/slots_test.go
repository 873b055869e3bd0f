package remote_test

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/remote"
)

// inProcessWorker serves pool on js in this process with setup, whose
// model answers "done" at once, or — for the first call when first is
// set — when first returns. It returns the count of model calls; the
// worker stops when the test ends.
func inProcessWorker(t *testing.T, ctx context.Context, js jetstream.JetStream, pool string, setup remote.Setup, first func(ctx context.Context)) *atomic.Int64 {
	t.Helper()
	var calls atomic.Int64
	setup.Model = func(string) (model.Model, error) {
		return model.Func(func(ctx context.Context, req *model.Request) (*model.Response, error) {
			if calls.Add(1) == 1 && first != nil {
				first(ctx)
			}
			return &model.Response{Message: model.AssistantMessage("done"), FinishReason: model.FinishStop, Usage: model.Usage{InputTokens: 1, OutputTokens: 1, TotalTokens: 2}}, nil
		}), nil
	}
	if setup.Logger == nil {
		setup.Logger = slog.New(slog.DiscardHandler)
	}
	sctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- remote.Serve(sctx, js, pool, setup) }()
	t.Cleanup(func() {
		stop()
		assert.NoError(t, <-done)
	})
	return &calls
}

// A worker busy with a child longer than the ack wait takes no other job
// meanwhile: a job it held without working on it would be given again
// after the ack wait and run twice.
func TestAWorkerTakesAJobOnlyWithAFreeSlot(t *testing.T) {
	ctx := watchdog(t)
	s := natsServer(t, t.TempDir(), -1)
	defer s.Shutdown()
	_, js := connect(t, s)
	setup, err := storySetup(false)
	require.NoError(t, err)
	setup.AckWait = time.Second
	setup.Concurrency = 1
	// The first child runs for three ack waits: long enough for the
	// server to give a job held without a sign of life again.
	calls := inProcessWorker(t, ctx, js, "slots", setup, func(ctx context.Context) {
		select {
		case <-time.After(3 * setup.AckWait):
		case <-ctx.Done():
		}
	})
	x, err := remote.NewExecutor(ctx, js, remote.Options{Pool: "slots", Setup: setup})
	require.NoError(t, err)
	defer x.Close()

	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() {
			out, err := reviewer(t, ctx, x)
			if assert.NoError(t, err) {
				assert.Equal(t, "done", out.Response.Text)
			}
		})
	}
	wg.Wait()
	assert.Equal(t, int64(3), calls.Load(), "model runs for 3 children on one worker")
}
