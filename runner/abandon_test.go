package runner_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/tools"
)

// A tool that ignores its context cannot make an evaluation impossible to
// cancel: after the grace the call is abandoned and Evaluate returns. The
// tool never returns until the test ends, so the outcome does not depend
// on the machine's speed; the grace is the bound under test.
func TestAToolThatIgnoresTheCancellationIsAbandoned(t *testing.T) {
	for _, parallel := range []bool{false, true} {
		name := "alone"
		if parallel {
			name = "in a parallel group"
		}
		t.Run(name, func(t *testing.T) {
			release := make(chan struct{})
			returned := make(chan struct{}, 2)
			var started atomic.Int32
			c, cancel := context.WithCancel(ctx)
			defer cancel()
			opts := []tools.Option{}
			if parallel {
				opts = append(opts, tools.ConcurrentSafe())
			}
			stubborn, err := tools.New("stubborn", "Ignore the context.", func(context.Context, *tools.Invocation, struct{}) (tools.Result[string], error) {
				started.Add(1)
				defer func() { returned <- struct{}{} }()
				cancel() // the cancellation comes while it runs
				<-release
				return tools.OK("late", ""), nil
			}, opts...)
			require.NoError(t, err)
			calls := []scripted.Turn{scripted.ToolCall("stubborn", `{}`)}
			if parallel {
				calls = []scripted.Turn{scripted.ToolCalls(
					model.ToolCall{Name: "stubborn", Arguments: `{}`}, model.ToolCall{Name: "stubborn", Arguments: `{}`})}
			}
			m := scripted.New(append(calls, scripted.Text("never"))...)
			req := request(newPrompt(t, stubborn), newSession(t), m)
			req.CancelGrace = 50 * time.Millisecond
			resp, err := runner.Evaluate(c, req)
			require.ErrorIs(t, err, runner.ErrAbandoned)
			require.ErrorIs(t, err, context.Canceled)
			assert.Contains(t, err.Error(), "stubborn still ran 50ms after the evaluation was cancelled")
			var ee *runner.EvaluationError
			require.ErrorAs(t, err, &ee)
			assert.Equal(t, runner.PhaseTool, ee.Phase)
			require.NotNil(t, resp, "what the evaluation did so far")
			assert.Equal(t, 1, resp.Turns)
			close(release)             // the tools return at last; the loop stops quietly
			for range started.Load() { // a call that had not started yet sees its context done
				<-returned
			}
		})
	}
}
