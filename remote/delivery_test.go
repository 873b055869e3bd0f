package remote_test

import (
	"context"
	"errors"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/remote"
	"github.com/offshoot-dev/offshoot/subagent"
)

// reached waits for a worker to reach the barrier (the first model call
// of step S001's reviewer) and returns its pid.
func reached(t *testing.T, ctx context.Context, sub *nats.Subscription) int {
	t.Helper()
	m, err := sub.NextMsgWithContext(ctx)
	require.NoError(t, err, "no worker reached the barrier")
	pid, err := strconv.Atoi(string(m.Data))
	require.NoError(t, err)
	return pid
}

func TestAWorkerKilledMidChildLeavesItToAnother(t *testing.T) {
	ctx := watchdog(t)
	s := natsServer(t, t.TempDir(), -1)
	defer s.Shutdown()
	nc, js := connect(t, s)
	sub, err := nc.SubscribeSync("offshoot.test.reached")
	require.NoError(t, err)
	workers := startWorkers(t, s.ClientURL(), "kill", 2, envBarrier+"=1")

	// What the killed worker's model calls spent counts in the planner's
	// child_usage too (it was spent), so that is left out here.
	want, _ := story(t, ctx, nil, "child_usage")
	setup, err := storySetup(false)
	require.NoError(t, err)
	x, err := remote.NewExecutor(ctx, js, remote.Options{Pool: "kill", Setup: setup})
	require.NoError(t, err)
	defer x.Close()

	type out struct {
		state string
		ran   []remote.Ran
	}
	done := make(chan out, 1)
	go func() {
		st, ran := story(t, ctx, x, "child_usage")
		done <- out{st, ran}
	}()
	first := reached(t, ctx, sub)
	for _, w := range workers {
		if w.cmd.Process.Pid == first {
			require.NoError(t, w.cmd.Process.Kill()) // SIGKILL
			<-w.done
		}
	}
	second := reached(t, ctx, sub)
	assert.NotEqual(t, first, second, "the job went to the other worker")
	require.NoError(t, nc.Publish("offshoot.test.release", nil))
	var got out
	select {
	case got = <-done:
	case <-ctx.Done():
		t.Fatal("the story did not finish")
	}
	assert.Equal(t, want, got.state, "one result and one set of artifacts, as in process")
	attempts := map[string]int{}
	for _, r := range got.ran {
		attempts[r.AgentID] = max(attempts[r.AgentID], r.Attempt)
	}
	assert.Len(t, attempts, 2)
	assert.Contains(t, []int{attempts["agent-1"], attempts["agent-2"]}, 2, "a child started again on the other worker")
}

func TestAWorkerOfAnotherBuildRefusesTheJob(t *testing.T) {
	ctx := watchdog(t)
	s := natsServer(t, t.TempDir(), -1)
	defer s.Shutdown()
	_, js := connect(t, s)
	startWorkers(t, s.ClientURL(), "other", 1, envFingerprint+"=1")
	setup, err := storySetup(false)
	require.NoError(t, err)
	x, err := remote.NewExecutor(ctx, js, remote.Options{Pool: "other", Setup: setup})
	require.NoError(t, err)
	defer x.Close()
	_, err = reviewer(t, ctx, x)
	require.Error(t, err)
	assert.ErrorIs(t, err, remote.ErrMismatch)
	assert.Regexp(t, `from a program of snapshot schema 1 and fingerprint [0-9a-f]{16}, and this worker runs snapshot schema 1 and fingerprint [0-9a-f]{16}`, err.Error())
}

// reviewer runs one reviewer child of a fresh parent on exec.
func reviewer(t *testing.T, ctx context.Context, exec subagent.Executor) (*subagent.Outcome, error) {
	t.Helper()
	return reviewerAs(t, ctx, exec, "")
}

func TestCancellingTheParentStopsTheChildOnItsWorker(t *testing.T) {
	ctx := watchdog(t)
	s := natsServer(t, t.TempDir(), -1)
	defer s.Shutdown()
	nc, js := connect(t, s)
	sub, err := nc.SubscribeSync("offshoot.test.reached")
	require.NoError(t, err)
	results, err := nc.SubscribeSync("offshoot.progress.>")
	require.NoError(t, err)
	startWorkers(t, s.ClientURL(), "cancel", 1, envBarrier+"=1")
	setup, err := storySetup(false)
	require.NoError(t, err)
	x, err := remote.NewExecutor(ctx, js, remote.Options{Pool: "cancel", Setup: setup})
	require.NoError(t, err)
	defer x.Close()

	runCtx, cancel := context.WithCancel(ctx)
	errc := make(chan error, 1)
	go func() {
		_, err := reviewer(t, runCtx, x)
		errc <- err
	}()
	reached(t, ctx, sub)
	cancelled := time.Now()
	cancel()
	for {
		m, err := results.NextMsgWithContext(ctx)
		require.NoError(t, err, "the worker published no result after the cancellation")
		if m.Header.Get("Offshoot-Kind") == "result" {
			break
		}
	}
	t.Logf("the worker stopped the child %v after the cancellation", time.Since(cancelled))
	err = <-errc
	require.Error(t, err)
	assert.True(t, errors.Is(err, context.Canceled), "%v", err)
}

func TestQueuedJobsSurviveARestartOfTheServer(t *testing.T) {
	ctx := watchdog(t)
	dir := t.TempDir()
	s := natsServer(t, dir, -1)
	port := s.Addr().(*net.TCPAddr).Port
	nc, js := connect(t, s)
	sub, err := nc.SubscribeSync("offshoot.test.reached")
	require.NoError(t, err)
	// One worker, one child at a time: while the first reviewer waits at
	// the barrier, the second one's job waits in the queue.
	startWorkers(t, s.ClientURL(), "restart", 1, envBarrier+"=1", envSerial+"=1")
	want, _ := story(t, ctx, nil)
	setup, err := storySetup(false)
	require.NoError(t, err)
	x, err := remote.NewExecutor(ctx, js, remote.Options{Pool: "restart", Setup: setup})
	require.NoError(t, err)
	defer x.Close()
	done := make(chan string, 1)
	go func() {
		st, _ := story(t, ctx, x, "child_usage")
		done <- st
	}()
	reached(t, ctx, sub)
	// One more child, queued behind the one at the barrier.
	extra := make(chan error, 1)
	go func() {
		_, err := reviewer(t, ctx, x)
		extra <- err
	}()
	jobs, err := js.Stream(ctx, "OFFSHOOT_JOBS")
	require.NoError(t, err)
	for {
		si, err := jobs.Info(ctx)
		require.NoError(t, err)
		if si.State.Msgs >= 2 {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatal("the extra child's job never reached the queue")
		case <-time.After(10 * time.Millisecond):
		}
	}

	s.Shutdown()
	s.WaitForShutdown()
	s = natsServer(t, dir, port)
	defer s.Shutdown()

	// Release the barrier until the story ends: the worker's subscription
	// to the release comes back when it has reconnected.
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for finished := 0; finished < 2; {
		select {
		case got := <-done:
			assert.Equal(t, normalizeAgain(t, want, "child_usage"), got)
			finished++
		case err := <-extra:
			require.NoError(t, err, "the queued child completed")
			finished++
		case <-tick.C:
			_ = nc.Publish("offshoot.test.release", nil)
		case <-ctx.Done():
			t.Fatal("the story did not finish after the restart")
		}
	}
}

func TestAJobNoWorkerFinishesFailsAfterMaxDeliver(t *testing.T) {
	ctx := watchdog(t)
	s := natsServer(t, t.TempDir(), -1)
	defer s.Shutdown()
	_, js := connect(t, s)
	setup, err := storySetup(false)
	require.NoError(t, err)
	setup.MaxDeliver = 2
	x, err := remote.NewExecutor(ctx, js, remote.Options{Pool: "lost", Setup: setup})
	require.NoError(t, err)
	defer x.Close()
	errc := make(chan error, 1)
	go func() {
		_, err := reviewer(t, ctx, x)
		errc <- err
	}()
	// A worker that takes the job and gives it back, twice.
	pool, err := js.Consumer(ctx, "OFFSHOOT_JOBS", "offshoot-lost")
	require.NoError(t, err)
	for range 2 {
		msg, err := pool.Next(jetstream.FetchMaxWait(30 * time.Second))
		require.NoError(t, err)
		require.NoError(t, msg.Nak())
	}
	// Asking again finds the job over its deliveries: the server gives up
	// on it and says so.
	_, err = pool.Next(jetstream.FetchMaxWait(time.Second))
	require.ErrorIs(t, err, nats.ErrTimeout)
	select {
	case err := <-errc:
		require.Error(t, err)
		assert.Contains(t, err.Error(), `no worker of pool "lost" finished the subagent in 2 deliveries (MaxDeliver)`)
	case <-ctx.Done():
		t.Fatal("the child did not fail after its last delivery")
	}
}
