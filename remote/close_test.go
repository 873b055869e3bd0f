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

// Two executors on one server fork children from the same state: the
// second finds the state's object already stored by the first. The
// object is shared, so closing either leaves it to the other — the one
// that stored it too, whose closing must not pull it from under the
// other's children — and the bucket's TTL removes it.
func TestClosingAnExecutorLeavesTheSharedSnapshots(t *testing.T) {
	for _, closing := range []string{"first", "second"} {
		t.Run("closing the "+closing, func(t *testing.T) {
			ctx := watchdog(t)
			s := natsServer(t, t.TempDir(), -1)
			defer s.Shutdown()
			_, js := connect(t, s)
			setup, err := storySetup(false)
			require.NoError(t, err)
			inProcessWorker(t, ctx, js, "shared", setup, nil)

			parent, err := session.New()
			require.NoError(t, err)
			defer parent.Close()
			from := parent.Snapshot() // every child forks from this state
			runOn := func(x *remote.Executor) (*subagent.Outcome, error) {
				engine := subagent.New(subagent.Options{Executor: x})
				reg, err := billing.Prompts(engine, promptsubagent.Options{})
				require.NoError(t, err)
				p, err := reg.Lookup(billing.ReviewerNS, billing.ReviewerKey)
				require.NoError(t, err)
				return engine.Run(ctx, subagent.Spec{Name: "agents/reviewer", Parent: parent, Snapshot: &from, Request: runner.Request{Prompt: p, Model: billing.Script(), ModelName: "echo", UserMessage: "Review step S001 of the plan."}})
			}
			stored := func() int {
				objects, err := js.ObjectStore(ctx, "offshoot_snapshots")
				require.NoError(t, err)
				list, err := objects.List(ctx)
				if err != nil {
					return 0 // jetstream.ErrNoObjectsFound
				}
				return len(list)
			}

			first, err := remote.NewExecutor(ctx, js, remote.Options{Pool: "shared", Setup: setup})
			require.NoError(t, err)
			defer first.Close()
			second, err := remote.NewExecutor(ctx, js, remote.Options{Pool: "shared", Setup: setup})
			require.NoError(t, err)
			defer second.Close()
			for _, x := range []*remote.Executor{first, second} {
				_, err := runOn(x)
				require.NoError(t, err)
			}
			require.Equal(t, 1, stored(), "objects of one state stored by two executors")

			closed, open := first, second
			if closing == "second" {
				closed, open = second, first
			}
			require.NoError(t, closed.Close())
			assert.Equal(t, 1, stored(), "objects after one executor closed")
			out, err := runOn(open)
			require.NoError(t, err, "a child of the other executor, after one closed")
			assert.Equal(t, "done", out.Response.Text)

			require.NoError(t, open.Close())
			assert.Equal(t, 1, stored(), "objects after both closed: the bucket's TTL removes them")
		})
	}
}
