package remote_test

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
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

// A cancel that reaches a worker after it took the job and before it
// started the child prevents the start: the child never runs, and the
// worker says so to the parent at once.
func TestACancelBeforeTheStartPreventsIt(t *testing.T) {
	ctx := watchdog(t)
	s := natsServer(t, t.TempDir(), -1)
	defer s.Shutdown()
	nc, js := connect(t, s)
	results, err := nc.SubscribeSync("offshoot.progress.>")
	require.NoError(t, err)
	taken, seen, release := make(chan string, 1), make(chan string, 8), make(chan struct{})
	remote.HoldTaken(t, func(key string) {
		taken <- key
		<-release
	}, func(key string) { seen <- key })
	setup, err := storySetup(false)
	require.NoError(t, err)
	setup.Concurrency = 1
	calls := inProcessWorker(t, ctx, js, "early", setup, nil)
	x, err := remote.NewExecutor(ctx, js, remote.Options{Pool: "early", Setup: setup})
	require.NoError(t, err)
	defer x.Close()

	runCtx, cancel := context.WithCancel(ctx)
	errc := make(chan error, 1)
	go func() {
		_, err := reviewer(t, runCtx, x)
		errc <- err
	}()
	key := recv(t, ctx, taken, "the worker took no job")
	cancel()
	for recv(t, ctx, seen, "the worker saw no cancel") != key {
	}
	close(release)
	for {
		m, err := results.NextMsgWithContext(ctx)
		require.NoError(t, err, "the worker published no result for the cancelled job")
		if m.Header.Get("Offshoot-Kind") == "result" {
			break
		}
	}
	err = recv(t, ctx, errc, "the cancelled child did not return")
	require.Error(t, err)
	assert.ErrorIs(t, err, context.Canceled)
	assert.Zero(t, calls.Load(), "model runs of a child cancelled before it started")
}

// recv receives from c, failing the test with what when ctx ends first.
func recv[T any](t *testing.T, ctx context.Context, c <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-c:
		return v
	case <-ctx.Done():
		t.Fatal(what)
		panic("unreachable")
	}
}

// A worker whose connection closes for good while its only slot's child
// runs returns from Serve, saying why, once that child ends; one asked to
// stop while the server is away returns nil. Neither waits for ever for
// the server to acknowledge what the child sent.
func TestAWorkerWithoutItsServerReturns(t *testing.T) {
	for _, tc := range []struct {
		name string
		lose func(s *server.Server, wnc *nats.Conn)
		want string // in Serve's error; none when empty
	}{
		{"connection closed", func(_ *server.Server, wnc *nats.Conn) { wnc.Close() }, "connection closed"},
		{"stopped while the server is away", func(s *server.Server, _ *nats.Conn) { s.Shutdown() }, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := watchdog(t)
			s := natsServer(t, t.TempDir(), -1)
			defer s.Shutdown()
			_, js := connect(t, s)
			wnc, wjs := connect(t, s) // the worker's own connection
			setup, err := storySetup(false)
			require.NoError(t, err)
			setup.Concurrency = 1
			setup.Logger = slog.New(slog.DiscardHandler)
			reached, release := make(chan struct{}), make(chan struct{})
			setup.Model = func(string) (model.Model, error) {
				return model.Func(func(ctx context.Context, req *model.Request) (*model.Response, error) {
					close(reached)
					<-release
					return &model.Response{Message: model.AssistantMessage("done"), FinishReason: model.FinishStop}, nil
				}), nil
			}
			sctx, stopServe := context.WithCancel(ctx)
			defer stopServe()
			served := make(chan error, 1)
			go func() { served <- remote.Serve(sctx, wjs, "closing", setup) }()
			x, err := remote.NewExecutor(ctx, js, remote.Options{Pool: "closing", Setup: setup})
			require.NoError(t, err)
			defer x.Close()
			rctx, cancel := context.WithCancel(ctx)
			defer cancel()
			go func() { _, _ = reviewer(t, rctx, x) }()

			recv(t, ctx, reached, "the child did not start")
			tc.lose(s, wnc)
			close(release) // the child ends while the server is away
			if tc.want == "" {
				stopServe()
			}
			err = recv(t, ctx, served, "Serve did not return")
			if tc.want == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// A worker that idled through requests for jobs that expired takes a job
// at once: the job is taken by the request open when it arrives, or by
// the next one — never after the ack wait, as by a request the client
// gave up while the server still held it.
func TestAnIdleWorkerTakesAJobAtOnce(t *testing.T) {
	ctx := watchdog(t)
	s := natsServer(t, t.TempDir(), -1)
	defer s.Shutdown()
	nc, js := connect(t, s)
	var ended, atPublish atomic.Int64
	published, err := nc.Subscribe("offshoot.jobs.idle", func(*nats.Msg) { atPublish.Store(ended.Load()) })
	require.NoError(t, err)
	defer func() { _ = published.Unsubscribe() }()
	idle := make(chan struct{})
	remote.HoldFetches(t, 200*time.Millisecond, func() {
		if ended.Add(1) == 3 {
			close(idle)
		}
	})
	var atTake atomic.Int64
	remote.HoldTaken(t, func(string) { atTake.Store(ended.Load()) }, nil)
	setup, err := storySetup(false)
	require.NoError(t, err)
	setup.AckWait = time.Minute // a job lost to a request given up would come back after it
	inProcessWorker(t, ctx, js, "idle", setup, nil)
	x, err := remote.NewExecutor(ctx, js, remote.Options{Pool: "idle", Setup: setup})
	require.NoError(t, err)
	defer x.Close()

	recv(t, ctx, idle, "the worker's requests for jobs did not expire")
	out, err := reviewer(t, ctx, x)
	require.NoError(t, err)
	assert.Equal(t, "done", out.Response.Text)
	assert.LessOrEqual(t, atTake.Load()-atPublish.Load(), int64(1), "requests for jobs that ended between the job's publication and its taking")
}
