package remote_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/subagent"
	"github.com/offshoot-dev/offshoot/tools"
)

// rewrite is an approver's answer that the call runs with other
// arguments (runner.Request.Approve): a PreToolUse hook's updated input.
type rewrite string

func (r rewrite) Error() string              { return "a hook changed the call's input" }
func (r rewrite) Arguments() json.RawMessage { return json.RawMessage(r) }

// parityRun runs the parity child with the engine options opts, in
// process (x nil) or on x's worker, and returns its outcome.
func parityRun(t *testing.T, ctx context.Context, spec subagent.Spec, script func() model.Model, opts subagent.Options, x subagent.Executor) *subagent.Outcome {
	t.Helper()
	parent, err := session.New()
	require.NoError(t, err)
	defer parent.Close()
	spec.Parent, spec.Request.Model = parent, script()
	opts.Executor = x
	out, err := subagent.New(opts).Run(ctx, spec)
	require.NoError(t, err)
	return out
}

// toolResult is the text the child's model read for its one tool call.
func toolResult(t *testing.T, out *subagent.Outcome) string {
	t.Helper()
	for _, m := range out.Response.Messages {
		if m.Role == model.RoleTool {
			return m.Content
		}
	}
	t.Fatal("the child read no tool result")
	return ""
}

// An approver of the parent that rewrites a call's arguments (a
// PreToolUse hook's updated input) is obeyed on a worker as in process:
// the worker's tool runs with the rewritten arguments, checked there as
// the runner checks them, and the call's record keeps the model's.
func TestARewriteFromTheParentsApproverIsWhatTheWorkersToolRuns(t *testing.T) {
	ctx := watchdog(t)
	setup, spec, script := parityChild(t)
	x := parityPool(t, ctx, setup, setup, script)
	for _, tc := range []struct {
		name, args, want string
	}{
		{"other arguments", `{"path":"ledger.go"}`, "12 lines in ledger.go"},
		{"padded", " \n{\"path\":\"ledger.go\"} ", "12 lines in ledger.go"},
		{"empty: the model's", ``, "12 lines in invoice.go"},
		{"not an object", `["ledger.go"]`, "must be a JSON object, got an array"},
		{"not JSON", `{"path":`, "the arguments are not valid JSON"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			approve := func(_ context.Context, _ *tools.Invocation, call model.ToolCall) error {
				if call.Name == "look" {
					return rewrite(tc.args)
				}
				return nil
			}
			local := parityRun(t, ctx, spec, script, subagent.Options{Approve: approve}, nil)
			onWorker := parityRun(t, ctx, spec, script, subagent.Options{Approve: approve}, x)
			assert.Contains(t, toolResult(t, local), tc.want)
			assert.Equal(t, toolResult(t, local), toolResult(t, onWorker), "the worker's tool ran as the tool in process")
			assert.Equal(t, local.Response.Messages, onWorker.Response.Messages)
			rec, ok := session.SliceOfSnapshot[runner.ToolInvoked](onWorker.Final).Latest()
			require.True(t, ok)
			assert.JSONEq(t, `{"path":"invoice.go"}`, string(rec.Arguments), "the record keeps the model's arguments")
			assert.False(t, rec.Denied)
		})
	}
}
