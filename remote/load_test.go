package remote_test

import (
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/examples/billing"
	"github.com/offshoot-dev/offshoot/remote"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/subagent"
	"github.com/offshoot-dev/offshoot/tools/promptsubagent"
)

func TestAThousandDispatchesOverFourWorkers(t *testing.T) {
	if testing.Short() {
		t.Skip("a thousand children")
	}
	ctx := watchdog(t)
	s := natsServer(t, t.TempDir(), -1)
	defer s.Shutdown()
	startWorkers(t, s.ClientURL(), "load", 4)
	// Goroutines of earlier tests (nats.go keeps one per JetStream handle
	// that saw a reconnect) are not this test's.
	since := lastGoroutine()

	nc, err := nats.Connect(s.ClientURL())
	require.NoError(t, err)
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	setup, err := storySetup(false)
	require.NoError(t, err)
	x, err := remote.NewExecutor(ctx, js, remote.Options{Pool: "load", Setup: setup})
	require.NoError(t, err)

	parent, err := session.New()
	require.NoError(t, err)
	engine := subagent.New(subagent.Options{Executor: x, MaxConcurrent: 64, MaxSpawns: 2000})
	reg, err := billing.Prompts(engine, promptsubagent.Options{})
	require.NoError(t, err)
	p, err := reg.Lookup(billing.ReviewerNS, billing.ReviewerKey)
	require.NoError(t, err)
	run := subagent.WithRun(ctx)
	const n = 1000
	var wg sync.WaitGroup
	outs := make([]*subagent.Outcome, n)
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			outs[i], errs[i] = engine.Run(run, subagent.Spec{Name: "agents/reviewer", Parent: parent,
				Request: runner.Request{Prompt: p, Model: billing.Script(), ModelName: "echo", UserMessage: "Say done."}})
		})
	}
	wg.Wait()
	executed := reflect.TypeFor[runner.PromptExecuted]()
	ids := map[string]bool{}
	for i := range n {
		require.NoError(t, errs[i], "child %d", i)
		assert.Equal(t, "done", outs[i].Text)
		assert.Equal(t, 1, outs[i].Final.Len(executed), "child %d's result was applied once", i)
		assert.False(t, ids[outs[i].AgentID])
		ids[outs[i].AgentID] = true
	}
	require.NoError(t, parent.Close())
	require.NoError(t, x.Close())
	nc.Close()
	// The embedded server's goroutines are the server's business; those of
	// the client and of this module must all be gone.
	for leaked := clientGoroutines(since); len(leaked) > 0; leaked = clientGoroutines(since) {
		select {
		case <-ctx.Done():
			t.Fatalf("goroutines left running:\n%s", strings.Join(leaked, "\n\n"))
		case <-time.After(10 * time.Millisecond):
		}
	}
	// The server drops a closed connection on its own goroutine: wait for it.
	for s.NumClients() > 4 {
		select {
		case <-ctx.Done():
			t.Fatalf("the server still has %d connections, want the 4 workers'", s.NumClients())
		case <-time.After(10 * time.Millisecond):
		}
	}
	assert.Equal(t, 4, s.NumClients(), "connections back to the workers'")
}

// clientGoroutines returns the stacks of the goroutines of the NATS client
// and of this module's packages started after goroutine since, but the
// test's own.
func clientGoroutines(since int) []string {
	var out []string
	for _, g := range goroutines() {
		if id, _ := goroutineID(g); id <= since || strings.Contains(g, "remote_test.") || strings.Contains(g, "testing.") {
			continue
		}
		if strings.Contains(g, "github.com/nats-io/nats.go") || strings.Contains(g, "github.com/offshoot-dev/offshoot/") {
			out = append(out, g)
		}
	}
	return out
}

// goroutines returns the stacks of all goroutines.
func goroutines() []string {
	buf := make([]byte, 1<<22)
	buf = buf[:runtime.Stack(buf, true)]
	return strings.Split(string(buf), "\n\n")
}

// goroutineID reads the id from a stack's "goroutine N [state]:" line.
func goroutineID(stack string) (int, bool) {
	rest, ok := strings.CutPrefix(stack, "goroutine ")
	if !ok {
		return 0, false
	}
	n, _, _ := strings.Cut(rest, " ")
	id, err := strconv.Atoi(n)
	return id, err == nil
}

// lastGoroutine returns the highest goroutine id now.
func lastGoroutine() int {
	last := 0
	for _, g := range goroutines() {
		if id, ok := goroutineID(g); ok {
			last = max(last, id)
		}
	}
	return last
}
