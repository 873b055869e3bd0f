package remote_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/remote"
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

// The parent's AfterTool (its PostToolUse hooks) is told of a remote
// child's calls as of one in process, with the call and its result, and
// what it says reaches the model's result text; one that panics adds
// nothing.
func TestAPostToolUseNoteReachesARemoteChildsModel(t *testing.T) {
	ctx := watchdog(t)
	setup, spec, script := parityChild(t)
	x := parityPool(t, ctx, setup, setup, script)
	const looked = "looked\n\n\"12 lines in invoice.go\""
	for _, tc := range []struct {
		name string
		note func(call model.ToolCall, result string) string
		want string
	}{
		{"a note", func(call model.ToolCall, result string) string {
			return "PostToolUse: " + call.Name + " " + call.Arguments + " gave " + result
		}, looked + "\n\nPostToolUse: look {\"path\":\"invoice.go\"} gave " + looked},
		{"nothing to say", func(model.ToolCall, string) string { return " " }, looked},
		{"a panic", func(model.ToolCall, string) string { panic("the hook broke") }, looked},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			var told []string
			after := func(ctx context.Context, inv *tools.Invocation, call model.ToolCall, result string) string {
				mu.Lock()
				told = append(told, call.Name+" "+inv.PromptNS+"/"+inv.PromptKey+" "+strings.Join(subagent.Chain(ctx), ","))
				mu.Unlock()
				return tc.note(call, result)
			}
			local := parityRun(t, ctx, spec, script, subagent.Options{AfterTool: after}, nil)
			onWorker := parityRun(t, ctx, spec, script, subagent.Options{AfterTool: after}, x)
			assert.Equal(t, tc.want, toolResult(t, local))
			assert.Equal(t, tc.want, toolResult(t, onWorker), "the note reached the remote child's model")
			assert.Equal(t, local.Response.Messages, onWorker.Response.Messages)
			mu.Lock()
			defer mu.Unlock()
			require.Len(t, told, 2, "told once in process, once on the worker")
			assert.Equal(t, told[0], told[1], "told of the same call, by the same agent")
		})
	}
}

// A rewrite and a note together: the note is told of the call as it ran.
func TestAPostToolUseHookSeesTheRewrittenCall(t *testing.T) {
	ctx := watchdog(t)
	setup, spec, script := parityChild(t)
	x := parityPool(t, ctx, setup, setup, script)
	opts := subagent.Options{
		Approve: func(context.Context, *tools.Invocation, model.ToolCall) error { return rewrite(`{"path":"ledger.go"}`) },
		AfterTool: func(_ context.Context, _ *tools.Invocation, call model.ToolCall, result string) string {
			return "ran with " + call.Arguments
		},
	}
	onWorker := parityRun(t, ctx, spec, script, opts, x)
	assert.Equal(t, "looked\n\n\"12 lines in ledger.go\"\n\nran with {\"path\":\"ledger.go\"}", toolResult(t, onWorker))
}

// The documented server configuration lets a rewrite and a note cross:
// the worker's user may ask and tell, the parent's user may answer.
func TestHooksCrossTheDocumentedServerConfiguration(t *testing.T) {
	ctx := watchdog(t)
	s := docServer(t)
	setup, spec, script := parityChild(t)

	wc, workerDenied := connectAs(t, s, "worker", "worker-password")
	wjs, err := jetstream.New(wc)
	require.NoError(t, err)
	worker := setup
	worker.Model = func(string) (model.Model, error) { return script(), nil }
	sctx, stop := context.WithCancel(ctx)
	served := make(chan error, 1)
	go func() { served <- remote.Serve(sctx, wjs, "offshoot", worker) }()
	defer func() {
		stop()
		assert.NoError(t, <-served)
	}()

	pc, parentDenied := connectAs(t, s, "parent", "parent-password")
	pjs, err := jetstream.New(pc)
	require.NoError(t, err)
	x, err := remote.NewExecutor(ctx, pjs, remote.Options{Pool: "offshoot", Setup: setup})
	require.NoError(t, err)
	defer x.Close()
	out := parityRun(t, ctx, spec, script, subagent.Options{
		Approve:   func(context.Context, *tools.Invocation, model.ToolCall) error { return rewrite(`{"path":"ledger.go"}`) },
		AfterTool: func(context.Context, *tools.Invocation, model.ToolCall, string) string { return "checked" },
	}, x)
	assert.Equal(t, "looked\n\n\"12 lines in ledger.go\"\n\nchecked", toolResult(t, out))
	assert.Empty(t, drain(parentDenied), "the parent needs nothing it is refused")
	assert.Empty(t, drain(workerDenied), "the worker needs nothing it is refused")
}
