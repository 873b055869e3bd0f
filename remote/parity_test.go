package remote_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/bus"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/remote"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/serde"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/sessiontest"
	"github.com/offshoot-dev/offshoot/subagent"
	"github.com/offshoot-dev/offshoot/tools"
)

// Review is the child's task, a param of its prompt.
type Review struct {
	File  string `json:"file"`
	Focus string `json:"focus"`
}

// Findings is the child's structured answer.
type Findings struct {
	Issues  []string `json:"issues"`
	Verdict string   `json:"verdict" validate:"required"`
}

// parityChild is a child of a prompt with params, a tool and a structured
// output, run on the scripted model: a tool call, an answer that does not
// match the output (sent back), and one that does.
func parityChild(t *testing.T) (remote.Setup, subagent.Spec, func() model.Model) {
	t.Helper()
	look, err := tools.New("look", "Look at a file.", func(_ context.Context, _ *tools.Invocation, p struct {
		Path string `json:"path"`
	}) (tools.Result[string], error) {
		return tools.OK("looked", "12 lines in "+p.Path), nil
	})
	require.NoError(t, err)
	p, err := prompt.New("parity", "reviewer",
		prompt.Markdown[Review]("Review", "Review {{ .File }}, looking for {{ .Focus }}.", prompt.WithTools(look)),
		prompt.Markdown[prompt.NoParams]("Rules", "Cite a line for every issue.\nBe brief."),
		prompt.WithOutput[Findings]())
	require.NoError(t, err)
	reg := prompt.NewRegistry()
	require.NoError(t, reg.Register(p))
	ts, err := tools.NewToolset(look)
	require.NoError(t, err)
	script := func() model.Model {
		return scripted.New(
			scripted.ToolCall("look", `{"path":"invoice.go"}`),
			scripted.Text(`{"issues": ["line 3: rounding"]}`),
			scripted.Text(`{"issues": ["line 3: rounding"], "verdict": "fix it"}`),
		)
	}
	spec := subagent.Spec{Name: "reviewer", Request: runner.Request{Prompt: p, Params: []any{Review{File: "invoice.go", Focus: "rounding"}},
		ModelName: "main", UserMessage: "Go ahead."}}
	return remote.Setup{Prompts: reg, Tools: ts}, spec, script
}

// parityPool starts an embedded server, a worker of the worker setup on
// the scripted model, and returns an executor of the parent's setup, all
// stopped when the test ends.
func parityPool(t *testing.T, ctx context.Context, parent, worker remote.Setup, script func() model.Model) *remote.Executor {
	t.Helper()
	s := natsServer(t, t.TempDir(), -1)
	t.Cleanup(s.Shutdown)
	_, js := connect(t, s)
	worker.Model = func(string) (model.Model, error) { return script(), nil }
	serveCtx, stop := context.WithCancel(ctx)
	served := make(chan error, 1)
	go func() { served <- remote.Serve(serveCtx, js, "parity", worker) }()
	t.Cleanup(func() {
		stop()
		assert.NoError(t, <-served)
	})
	x, err := remote.NewExecutor(ctx, js, remote.Options{Pool: "parity", Setup: parent})
	require.NoError(t, err)
	t.Cleanup(func() { _ = x.Close() })
	return x
}

// A child run on a worker is the child run in process: the same prompt
// rendered, the same events on the parent's bus, the same final state and
// response — the worker runs what the engine prepared, with the runner.
func TestAChildOnAWorkerIsTheChildInProcess(t *testing.T) {
	ctx := watchdog(t)
	setup, spec, script := parityChild(t)
	x := parityPool(t, ctx, setup, setup, script)

	type run struct {
		out    *subagent.Outcome
		events []string
	}
	child := func(exec subagent.Executor) run {
		parent, err := session.New()
		require.NoError(t, err)
		defer parent.Close()
		var r run
		var mu sync.Mutex
		unsub := parent.Bus().SubscribeAll("events", func(_ context.Context, env bus.Envelope) error {
			switch env.Payload.(type) {
			case remote.Ran, runner.Delta, runner.ToolsOffered:
				// Where the child ran; and what the runner publishes and
				// does not record, which reaches the parent best effort
				// (the pieces of an answer) or not at all.
				return nil
			}
			if env.SessionID != parent.ID() {
				mu.Lock()
				r.events = append(r.events, fmt.Sprintf("%T", env.Payload))
				mu.Unlock()
			}
			return nil
		})
		defer unsub()
		sp := spec
		sp.Parent, sp.Request.Model = parent, script()
		r.out, err = subagent.New(subagent.Options{Executor: exec}).Run(ctx, sp)
		require.NoError(t, err)
		mu.Lock()
		defer mu.Unlock()
		return r
	}
	local, onWorker := child(nil), child(x)

	rendered := func(o *subagent.Outcome) runner.PromptRendered {
		rec, ok := session.SliceOfSnapshot[runner.PromptRendered](o.Final).Latest()
		require.True(t, ok)
		return rec
	}
	want, got := rendered(local.out), rendered(onWorker.out)
	assert.Equal(t, want.Text, got.Text, "the worker's child was given the prompt rendered in process")
	assert.Equal(t, want.Tools, got.Tools)
	assert.Contains(t, got.Text, "Review invoice.go, looking for rounding.")
	assert.Contains(t, got.Text, "You are a subagent")
	assert.Greater(t, strings.Count(got.Text, "\n"), 20, "the whole prompt, its output's schema included")

	assert.Equal(t, local.events, onWorker.events, "the parent's bus saw the same events of the child, in the same order")
	assert.Equal(t, local.out.Output, onWorker.out.Output)
	assert.Equal(t, Findings{Issues: []string{"line 3: rounding"}, Verdict: "fix it"}, onWorker.out.Output)
	assert.Equal(t, local.out.Text, onWorker.out.Text)
	assert.Equal(t, local.out.Usage, onWorker.out.Usage)
	assert.Equal(t, local.out.Response.Messages, onWorker.out.Response.Messages)

	a, b := comparable(t, local.out.Final), comparable(t, onWorker.out.Final)
	if d := sessiontest.Diff(a, b); d != "" {
		t.Errorf("the child's final state on a worker differs from in process (- in process, + on a worker):\n%s", d)
	}
}

// comparable is snap with what differs between two runs of one child
// made the same: the evaluation ids (numbered in order), times and
// durations.
func comparable(t *testing.T, snap session.Snapshot) session.Snapshot {
	t.Helper()
	reg := serde.DefaultRegistry
	data, err := session.MarshalSnapshot(snap, reg)
	require.NoError(t, err)
	var v any
	require.NoError(t, json.Unmarshal(data, &v))
	evals := map[string]string{}
	v = rewriteJSON(v, func(k string, e any) (any, bool) {
		switch lk := strings.ToLower(k); {
		case lk == "evaluation" || lk == "cache_key":
			s, _ := e.(string)
			if _, ok := evals[s]; !ok {
				evals[s] = fmt.Sprintf("eval-%d", len(evals)+1)
			}
			return evals[s], true
		case strings.HasSuffix(lk, "_at") || lk == "time":
			return "2026-11-27T00:00:00Z", true
		case strings.HasSuffix(lk, "duration"):
			return 0, true
		}
		return nil, false
	})
	out, err := json.Marshal(v)
	require.NoError(t, err)
	back, err := session.UnmarshalSnapshot(out, reg)
	require.NoError(t, err)
	return back
}

// A worker of another fingerprint refuses the child, saying which of
// what the child needs differs: a tool it lacks or has with another
// contract, its prompt — or that the child's needs match and the
// programs differ elsewhere.
func TestAWorkerOfAnotherSetupSaysWhatDiffers(t *testing.T) {
	other := func(name, description string) tools.Tool {
		tool, err := tools.New(name, description, func(context.Context, *tools.Invocation, struct{}) (tools.Result[string], error) {
			return tools.OK("ok", ""), nil
		})
		require.NoError(t, err)
		return tool
	}
	for _, tc := range []struct {
		name   string
		change func(t *testing.T, s *remote.Setup)
		want   string
	}{
		{"a tool it lacks", func(t *testing.T, s *remote.Setup) {
			s.Tools = tools.Toolset{}
		}, "the worker has no tool 'look'"},
		{"a tool of another contract", func(t *testing.T, s *remote.Setup) {
			var err error
			s.Tools, err = tools.NewToolset(other("look", "Look at something else."))
			require.NoError(t, err)
		}, "tool 'look' differs"},
		{"another prompt of the name", func(t *testing.T, s *remote.Setup) {
			p, err := prompt.New("parity", "reviewer", prompt.Markdown[Review]("Review", "Review {{ .File }} again."), prompt.WithOutput[Findings]())
			require.NoError(t, err)
			s.Prompts = prompt.NewRegistry()
			require.NoError(t, s.Prompts.Register(p))
		}, "prompt 'parity/reviewer' differs"},
		{"a tool the child does not need", func(t *testing.T, s *remote.Setup) {
			var err error
			s.Tools, err = s.Tools.With(other("extra", "An extra tool."))
			require.NoError(t, err)
		}, "what the child needs matches, the programs differ elsewhere"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := watchdog(t)
			setup, spec, script := parityChild(t)
			worker := setup
			tc.change(t, &worker)
			x := parityPool(t, ctx, setup, worker, script)
			parent, err := session.New()
			require.NoError(t, err)
			defer parent.Close()
			spec.Parent, spec.Request.Model = parent, script()
			_, err = subagent.New(subagent.Options{Executor: x}).Run(ctx, spec)
			require.ErrorIs(t, err, remote.ErrMismatch)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}
