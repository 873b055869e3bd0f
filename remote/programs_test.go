package remote_test

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
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

// reviewerAs runs one reviewer child of a fresh parent on exec, with the
// agent id given (the engine's own when empty): two programs that count
// their agents give the same.
func reviewerAs(t *testing.T, ctx context.Context, exec subagent.Executor, id string) (*subagent.Outcome, error) {
	t.Helper()
	parent, err := session.New()
	require.NoError(t, err)
	t.Cleanup(func() { _ = parent.Close() })
	opts := subagent.Options{Executor: exec}
	if id != "" {
		opts.NewID = func() string { return id }
	}
	engine := subagent.New(opts)
	reg, err := billing.Prompts(engine, promptsubagent.Options{})
	require.NoError(t, err)
	p, err := reg.Lookup(billing.ReviewerNS, billing.ReviewerKey)
	require.NoError(t, err)
	return engine.Run(ctx, subagent.Spec{Name: "agents/reviewer", Parent: parent, Request: runner.Request{Prompt: p, Model: billing.Script(), ModelName: "echo", UserMessage: "Review step S001 of the plan."}})
}

// Two programs on one server (two runs of offshoot demo --nats, one after
// the other) count their agents alike: the second one's jobs are not
// taken for duplicates of the first's.
func TestTwoProgramsWithTheSameAgentIDsBothGetTheirResults(t *testing.T) {
	ctx := watchdog(t)
	s := natsServer(t, t.TempDir(), -1)
	defer s.Shutdown()
	_, js := connect(t, s)
	startWorkers(t, s.ClientURL(), "twice", 1)
	setup, err := storySetup(false)
	require.NoError(t, err)
	for i := range 2 {
		x, err := remote.NewExecutor(ctx, js, remote.Options{Pool: "twice", Setup: setup})
		require.NoError(t, err)
		rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		out, err := reviewerAs(t, rctx, x, "agent-1")
		cancel()
		require.NoError(t, err, "run %d", i+1)
		assert.Equal(t, "done", out.Response.Text, "run %d", i+1)
		require.NoError(t, x.Close())
	}
}

// A program's cancellation stops its own child, never another program's
// child of the same agent id running on the same worker.
func TestACancelStopsOnlyItsOwnProgramsChild(t *testing.T) {
	ctx := watchdog(t)
	s := natsServer(t, t.TempDir(), -1)
	defer s.Shutdown()
	nc, js := connect(t, s)
	sub, err := nc.SubscribeSync("offshoot.test.reached")
	require.NoError(t, err)
	startWorkers(t, s.ClientURL(), "cross", 1, envBarrier+"=1")
	setup, err := storySetup(false)
	require.NoError(t, err)
	type out struct {
		o   *subagent.Outcome
		err error
	}
	run := func(runCtx context.Context) (*remote.Executor, chan out) {
		x, err := remote.NewExecutor(ctx, js, remote.Options{Pool: "cross", Setup: setup})
		require.NoError(t, err)
		t.Cleanup(func() { _ = x.Close() })
		c := make(chan out, 1)
		go func() {
			o, err := reviewerAs(t, runCtx, x, "agent-1")
			c <- out{o, err}
		}()
		reached(t, ctx, sub)
		return x, c
	}
	aCtx, cancelA := context.WithCancel(ctx)
	defer cancelA()
	_, a := run(aCtx)
	_, b := run(ctx)
	cancelA()
	ga := <-a
	require.Error(t, ga.err)
	assert.True(t, errors.Is(ga.err, context.Canceled), "%v", ga.err)
	require.NoError(t, nc.Publish("offshoot.test.release", nil))
	gb := <-b
	require.NoError(t, gb.err, "the other program's child was not cancelled")
	assert.Equal(t, "done", gb.o.Response.Text)
}

// A parent whose connection to the server closes (the server went away
// for longer than the client reconnects) fails its children, saying so,
// rather than waiting for them forever.
func TestAParentWhoseConnectionClosesFailsItsChildren(t *testing.T) {
	ctx := watchdog(t)
	s := natsServer(t, t.TempDir(), -1)
	defer s.Shutdown()
	watch, _ := connect(t, s)
	sub, err := watch.SubscribeSync("offshoot.test.reached")
	require.NoError(t, err)
	startWorkers(t, s.ClientURL(), "lost", 1, envBarrier+"=1")
	nc, js := connect(t, s)
	setup, err := storySetup(false)
	require.NoError(t, err)
	x, err := remote.NewExecutor(ctx, js, remote.Options{Pool: "lost", Setup: setup})
	require.NoError(t, err)
	defer x.Close()
	errc := make(chan error, 1)
	go func() {
		_, err := reviewerAs(t, ctx, x, "agent-1")
		errc <- err
	}()
	reached(t, ctx, sub) // the child runs on its worker, held there
	nc.Close()
	select {
	case err = <-errc:
	case <-ctx.Done():
		t.Fatal("the dispatch waited on after its connection closed")
	}
	require.Error(t, err)
	assert.Contains(t, err.Error(), "connection to the NATS server closed")

	_, err = reviewerAs(t, ctx, x, "agent-2")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "connection to the NATS server closed")
}

// A worker that can take no more jobs — its connection closed, its pool's
// consumer deleted — returns an error saying so, not nil as when it was
// asked to stop: offshoot worker exits 1, not 0.
func TestAWorkerThatLosesItsPoolSaysSo(t *testing.T) {
	for _, tc := range []struct {
		name string
		lose func(t *testing.T, ctx context.Context, nc *nats.Conn, js jetstream.JetStream)
		want string
	}{
		{"connection closed", func(t *testing.T, _ context.Context, nc *nats.Conn, _ jetstream.JetStream) { nc.Close() }, "connection closed"},
		{"consumer deleted", func(t *testing.T, ctx context.Context, _ *nats.Conn, js jetstream.JetStream) {
			require.NoError(t, js.DeleteConsumer(ctx, "OFFSHOOT_JOBS", "offshoot-gone"))
		}, `pool "gone"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := watchdog(t)
			s := natsServer(t, t.TempDir(), -1)
			defer s.Shutdown()
			nc, js := connect(t, s)
			setup, err := storySetup(false)
			require.NoError(t, err)
			setup.Model = func(string) (model.Model, error) { return billing.Script(), nil }
			setup.Logger = slog.New(slog.DiscardHandler)
			// The pool exists, and the worker waits on it, before it is lost.
			x, err := remote.NewExecutor(ctx, js, remote.Options{Pool: "gone", Setup: setup})
			require.NoError(t, err)
			defer x.Close()
			errc := make(chan error, 1)
			go func() { errc <- remote.Serve(ctx, js, "gone", setup) }()
			for {
				c, err := js.Consumer(ctx, "OFFSHOOT_JOBS", "offshoot-gone")
				require.NoError(t, err)
				info, err := c.Info(ctx)
				require.NoError(t, err)
				if info.NumWaiting > 0 {
					break
				}
				select {
				case err := <-errc:
					t.Fatalf("Serve returned before it was lost: %v", err)
				case <-time.After(10 * time.Millisecond):
				}
			}
			tc.lose(t, ctx, nc, js)
			select {
			case err = <-errc:
			case <-ctx.Done():
				t.Fatal("Serve did not return")
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// A dispatch on a closed executor fails at once: nothing follows the
// workers' replies any more.
func TestADispatchOnAClosedExecutorFails(t *testing.T) {
	ctx := watchdog(t)
	s := natsServer(t, t.TempDir(), -1)
	defer s.Shutdown()
	_, js := connect(t, s)
	startWorkers(t, s.ClientURL(), "closed", 1)
	setup, err := storySetup(false)
	require.NoError(t, err)
	x, err := remote.NewExecutor(ctx, js, remote.Options{Pool: "closed", Setup: setup})
	require.NoError(t, err)
	require.NoError(t, x.Close())
	require.NoError(t, x.Close(), "closing twice is no error")
	_, err = reviewerAs(t, ctx, x, "agent-1")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the remote executor is closed")
}

// Engines that share an executor may number their agents alike: two
// children of the same agent id in flight at once each get their own
// result.
func TestEnginesSharingAnExecutorMayReuseAgentIDs(t *testing.T) {
	ctx := watchdog(t)
	s := natsServer(t, t.TempDir(), -1)
	defer s.Shutdown()
	_, js := connect(t, s)
	startWorkers(t, s.ClientURL(), "shared", 2)
	setup, err := storySetup(false)
	require.NoError(t, err)
	x, err := remote.NewExecutor(ctx, js, remote.Options{Pool: "shared", Setup: setup})
	require.NoError(t, err)
	defer x.Close()
	type got struct {
		o   *subagent.Outcome
		err error
	}
	results := make(chan got, 2)
	for range 2 {
		go func() {
			o, err := reviewerAs(t, ctx, x, "agent-1")
			results <- got{o, err}
		}()
	}
	for range 2 {
		select {
		case r := <-results:
			require.NoError(t, r.err)
			assert.Equal(t, "done", r.o.Response.Text)
		case <-ctx.Done():
			t.Fatal("a child of a reused agent id never got its result")
		}
	}
}
