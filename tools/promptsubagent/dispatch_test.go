package promptsubagent_test

import (
	"context"
	"encoding/json"
	"errors"
	"runtime"
	"strings"
	"sync"
	"testing"
	"weak"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/serde"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/sessiontest"
	"github.com/offshoot-dev/offshoot/tools"
	"github.com/offshoot-dev/offshoot/tools/planning"
	"github.com/offshoot-dev/offshoot/tools/promptsubagent"
	"github.com/offshoot-dev/offshoot/tools/vfs"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func adHoc(instructions string) promptsubagent.DispatchSubagent {
	return promptsubagent.DispatchSubagent{Mode: "ad_hoc", PromptNS: "agents", PromptKey: "worker", Instructions: instructions}
}

func TestDispatchEndToEnd(t *testing.T) {
	var child weak.Pointer[session.Session]
	var parity bool
	var w *world
	w = newWorld(t, promptsubagent.Options{ChildSetup: func(c *session.Session) error {
		child = weak.Make(c)
		// The parent cannot change while its child runs: its state now is
		// the state it dispatched from.
		parity = sessiontest.AssertParity(t, w.s.Snapshot(), c)
		return nil
	}})
	m := scripted.New(
		scripted.When(scripted.SystemContains(workerText),
			scripted.ToolCall("read_file", `{"file_path":"src/a.go"}`),
			scripted.ToolCall("write_file", `{"file_path":"notes/a.md","content":"a is fine"}`),
			scripted.Text("Reviewed a.go: fine.\nDetails in notes/a.md."),
		),
		scripted.ToolCall("dispatch_subagent", args(t, promptsubagent.DispatchSubagent{Mode: "plan_step", PromptNS: "agents", PromptKey: "worker",
			Instructions: "  Review src/a.go and write notes/a.md  ", PlanStepID: "S001", ExpectedArtifacts: []string{"notes/a.md"}})),
		scripted.Text("done"),
	)
	resp := w.evaluate(t, m)
	assert.Equal(t, "done", resp.Text)
	assert.True(t, parity, "snapshot parity: the child started with the parent's exact state")

	// The tool result: message_summary is the message, then the payload.
	ti, ok := session.Latest[runner.ToolInvoked](w.s)
	require.True(t, ok)
	require.True(t, ti.Success, ti.Result)
	var res promptsubagent.DispatchSubagentResult
	require.NoError(t, json.Unmarshal(ti.Value, &res))
	assert.Equal(t, promptsubagent.DispatchSubagentResult{
		PromptNS: "agents", PromptKey: "worker",
		MessageSummary: "Reviewed a.go: fine.\nDetails in notes/a.md.",
		Artifacts:      []string{"notes/a.md"},
		ToolsUsed:      []string{"read_file", "write_file"},
	}, res)
	assert.Equal(t, res.MessageSummary+"\n\n"+string(ti.Value), ti.Result)

	// The artifact reached the parent with the tool's result, and the child
	// is gone.
	f, ok := vfs.Files(w.s).Get("notes/a.md")
	require.True(t, ok, "the child's file was copied into the parent")
	assert.Equal(t, "a is fine", f.Content)
	assert.Empty(t, w.s.ChildIDs())
	runtime.GC()
	runtime.GC()
	assert.Nil(t, child.Value(), "the child session was garbage-collected")

	// Plan reconciliation through the planning events.
	plan, ok := planning.CurrentPlan(w.s)
	require.True(t, ok)
	step, _ := plan.Step("S001")
	assert.Equal(t, planning.StepDone, step.Status)
	assert.Contains(t, step.Notes, "Subagent: Reviewed a.go: fine.")

	// The child's usage counts for the parent.
	assert.Positive(t, resp.ChildUsage.TotalTokens)

	// The child read its task once, in plain words, with what it starts
	// from; then the orientation.
	msgs := childCalls(m)[0].Request.Messages
	assert.Equal(t, "## 1. Worker\n\nYou investigate one thing and report.\n\n"+
		"## 2. Delegated task\n\nReview src/a.go and write notes/a.md\n\n"+
		"This is step S001 of the plan: Review a.go.\n\n"+
		"Deliver:\n- notes/a.md\n\n"+
		"You start from a copy of the delegating agent's state:\n"+
		"- 2 files in the workspace: src/a.go, src/b.go\n"+
		"- a plan with 2 steps (\"Review the code\"): S001 pending, S002 pending\n\n"+
		"## 3. Subagent\n\nYou are a subagent", msgs[0].Content[:strings.Index(msgs[0].Content, "You are a subagent")+len("You are a subagent")])
	assert.Equal(t, 1, strings.Count(msgs[0].Content+msgs[1].Content, "Review src/a.go"), "the instructions appear once")
	for _, bookkeeping := range []string{"planning.", "vfs.", "runner.", "Mode:", "plan_step", "item"} {
		assert.NotContains(t, msgs[0].Content, bookkeeping)
	}
}

func TestToolPropagation(t *testing.T) {
	w := newWorld(t, promptsubagent.Options{})
	m := scripted.New(
		scripted.When(scripted.SystemContains(workerText), scripted.Text("nothing to do")),
		scripted.ToolCall("dispatch_subagent", args(t, adHoc("Look around."))),
		scripted.Text("done"),
	)
	w.evaluate(t, m)
	parentTools := m.Calls()[0].Request.Tools
	childTools := childCalls(m)[0].Request.Tools
	require.NotEmpty(t, parentTools)
	assert.Equal(t, parentTools, childTools, "a child prompt without tools gets exactly the parent's definitions")
}

func TestParallelDispatchesForkFromTheSameStateAndReturnInCallOrder(t *testing.T) {
	var mu sync.Mutex
	var starts []session.Snapshot
	w := newWorld(t, promptsubagent.Options{ChildSetup: func(c *session.Session) error {
		mu.Lock()
		defer mu.Unlock()
		starts = append(starts, c.Snapshot())
		return nil
	}})
	m := scripted.New(
		scripted.When(scripted.All(scripted.SystemContains(workerText), scripted.SystemContains("first")),
			scripted.ToolCall("write_file", `{"file_path":"notes/x.md","content":"first"}`), scripted.Text("first done")),
		scripted.When(scripted.All(scripted.SystemContains(workerText), scripted.SystemContains("second")),
			scripted.ToolCall("write_file", `{"file_path":"notes/x.md","content":"second"}`), scripted.Text("second done")),
		scripted.ToolCalls(
			model.ToolCall{Name: "dispatch_subagent", Arguments: args(t, promptsubagent.DispatchSubagent{Mode: "plan_step", PromptNS: "agents", PromptKey: "worker", Instructions: "the first step", PlanStepID: "S001"})},
			model.ToolCall{Name: "dispatch_subagent", Arguments: args(t, promptsubagent.DispatchSubagent{Mode: "plan_step", PromptNS: "agents", PromptKey: "worker", Instructions: "the second step", PlanStepID: "S002"})},
		),
		scripted.Text("done"),
	)
	resp := w.evaluate(t, m)
	msgs := []string{}
	for _, msg := range resp.Messages {
		if msg.Role == model.RoleTool {
			msgs = append(msgs, msg.Content)
		}
	}
	require.Len(t, msgs, 2)
	assert.Contains(t, msgs[0], "first done")
	assert.Contains(t, msgs[1], "second done", "results come back in call order")
	plan, _ := planning.CurrentPlan(w.s)
	assert.Equal(t, planning.PlanCompleted, plan.Status, "both steps were marked done")
	require.Len(t, starts, 2)
	for _, typ := range starts[0].Types() {
		assert.True(t, starts[0].Same(starts[1], typ), "both children start from the very same %s", typ)
	}
	assert.Equal(t, starts[0].Types(), starts[1].Types())
}

func TestValidation(t *testing.T) {
	w := newWorld(t, promptsubagent.Options{})
	disabled, err := prompt.New("agents", "retired", prompt.Markdown[prompt.NoParams]("Old", "old"))
	require.NoError(t, err)
	require.NoError(t, w.reg.Register(disabled))
	require.NoError(t, w.reg.Disable("agents", "retired"))
	long := make([]byte, 2001)
	for i := range long {
		long[i] = 'x'
	}
	tests := []struct {
		name string
		in   promptsubagent.DispatchSubagent
		path string
		want string
	}{
		{"empty instructions", adHoc("   "), "instructions", "must be 1 to 2000 ASCII characters after trimming, got 0"},
		{"long instructions", adHoc(string(long)), "instructions", "got 2001"},
		{"non-ASCII instructions", adHoc("prüfen"), "instructions", "instructions: must be ASCII"},
		{"long non-ASCII instructions", adHoc(strings.Repeat("ü", 1500)), "instructions", "instructions: must be ASCII"},
		{"long instructions after trimming", adHoc("  " + string(long) + "\n"), "instructions", "must be 1 to 2000 ASCII characters after trimming, got 2001"},
		{"bad artifact", func() promptsubagent.DispatchSubagent {
			d := adHoc("x")
			d.ExpectedArtifacts = []string{"ok", "née"}
			return d
		}(), "expected_artifacts[1]", "expected_artifacts[1]: must be ASCII"},
		{"long artifact", func() promptsubagent.DispatchSubagent {
			d := adHoc("x")
			d.ExpectedArtifacts = []string{strings.Repeat("a", 161)}
			return d
		}(), "expected_artifacts[0]", "expected_artifacts[0]: must be at most 160 characters"},
		{"bad mode", func() promptsubagent.DispatchSubagent { d := adHoc("x"); d.Mode = "solo"; return d }(), "mode", "must be one of"},
		{"plan_step without id", func() promptsubagent.DispatchSubagent { d := adHoc("x"); d.Mode = "plan_step"; return d }(), "plan_step_id", "is required when mode is plan_step"},
		{"plan_step unknown id", func() promptsubagent.DispatchSubagent {
			d := adHoc("x")
			d.Mode, d.PlanStepID = "plan_step", "S009"
			return d
		}(), "plan_step_id", `"S009" names no step of the plan; steps: S001, S002`},
		{"ad_hoc with id", func() promptsubagent.DispatchSubagent { d := adHoc("x"); d.PlanStepID = "S001"; return d }(), "plan_step_id", "must be empty when mode is ad_hoc"},
		{"unknown prompt", func() promptsubagent.DispatchSubagent { d := adHoc("x"); d.PromptKey = "nobody"; return d }(), "prompt_key", "worker"},
		{"disabled prompt", func() promptsubagent.DispatchSubagent { d := adHoc("x"); d.PromptKey = "retired"; return d }(), "prompt_key", "disabled"},
		{"snapshot version", func() promptsubagent.DispatchSubagent { d := adHoc("x"); d.SnapshotVersion = "2"; return d }(), "snapshot_version", `"2" is not this session's snapshot schema version "1"`},
	}
	tool, err := promptsubagent.Tool(w.reg, w.engine, promptsubagent.Options{})
	require.NoError(t, err)
	r, err := w.parent.Render()
	require.NoError(t, err)
	m := scripted.New() // any call would fail: no child may run
	inv := &tools.Invocation{Session: w.s, PromptNS: "root", PromptKey: "planner", Tools: r.Tools, Model: m, ModelName: "scripted"}
	cctx := ctx
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := sessiontest.Capture(w.s)
			out := tool.Call(cctx, inv, json.RawMessage(args(t, tt.in)))
			var ve *tools.ValidationError
			require.ErrorAs(t, out.Err, &ve, out.Text)
			var se *serde.ValidationError
			require.ErrorAs(t, out.Err, &se)
			assert.Equal(t, tt.path, se.Path)
			assert.Contains(t, out.Text, "Tool validation failed: dispatch_subagent: "+tt.path)
			assert.Contains(t, out.Text, tt.want)
			assert.Empty(t, m.Calls())
			assert.Empty(t, w.s.ChildIDs())
			sessiontest.AssertUnchanged(t, before, w.s)
		})
	}
}

func TestFailureReporting(t *testing.T) {
	t.Run("hydration failure", func(t *testing.T) {
		w := newWorld(t, promptsubagent.Options{ChildSetup: func(*session.Session) error { return errors.New("index unavailable") }})
		before := sessiontest.Capture(w.s)
		res, _, err := dispatch(t, w, adHoc("x"), scripted.New())
		var ve *tools.ValidationError
		require.ErrorAs(t, err, &ve)
		assert.Contains(t, err.Error(), "the subagent's session could not be hydrated: Failed to initialize subagent: index unavailable")
		assert.Empty(t, res.MessageSummary)
		sessiontest.AssertUnchanged(t, before, w.s)
		assert.Empty(t, w.s.ChildIDs())
	})
	t.Run("render failure", func(t *testing.T) {
		w := newWorld(t, promptsubagent.Options{})
		type Needs struct {
			Topic string `validate:"required"`
		}
		bad, err := prompt.New("agents", "picky", prompt.Markdown[Needs]("Picky", "About {{ .Topic }}"))
		require.NoError(t, err)
		require.NoError(t, w.reg.Register(bad))
		before := sessiontest.Capture(w.s)
		d := adHoc("x")
		d.PromptKey = "picky"
		m := scripted.New(scripted.ToolCall("dispatch_subagent", args(t, d)), scripted.Text("ok"))
		w.evaluate(t, m)
		ti, _ := session.Latest[runner.ToolInvoked](w.s)
		assert.False(t, ti.Success)
		assert.Contains(t, ti.Result, "The subagent prompt agents/picky could not be rendered: ")
		assert.Contains(t, ti.Result, "Topic")
		assert.Empty(t, ti.Value, "no payload")
		sessiontest.AssertUnchanged(t, before, w.s, sessiontest.Ignore[runner.ToolInvoked](), sessiontest.Ignore[runner.ModelCalled](), sessiontest.Ignore[runner.ContextUsage](),
			sessiontest.Ignore[runner.PromptRendered](), sessiontest.Ignore[runner.PromptExecuted](), sessiontest.Ignore[runner.ConversationMessage](),
			sessiontest.Ignore[runner.Spent]())
		cu, ok := session.Latest[runner.Spent](w.s)
		require.True(t, ok, "the child was started: its (empty) usage is recorded with the result")
		assert.Zero(t, cu.Usage)
	})
	t.Run("model error", func(t *testing.T) {
		w := newWorld(t, promptsubagent.Options{})
		before := sessiontest.Capture(w.s)
		d := adHoc("x")
		d.Mode, d.PlanStepID = "plan_step", "S002"
		_, events, err := dispatch(t, w, d, scripted.New(scripted.Fail(model.ErrContextLength)))
		var de *promptsubagent.DispatchSubagentError
		require.ErrorAs(t, err, &de)
		assert.ErrorIs(t, err, model.ErrContextLength)
		assert.Equal(t, "worker", de.PromptKey)
		assert.Contains(t, err.Error(), "Subagent run aborted: ")
		sessiontest.AssertUnchanged(t, before, w.s)
		assert.Empty(t, w.s.ChildIDs())
		require.Len(t, events, 2, "the child's usage, and the step marked blocked")
		assert.Equal(t, runner.Spent{Source: "agent-1", Counted: true}, events[0])
		mark := events[1].(planning.StepMarked)
		assert.Equal(t, planning.StepBlocked, mark.Status)
		assert.Contains(t, mark.Note, "Subagent failed: Subagent run aborted:")

		// Through the tool, the model sees the same text as a failed result.
		m := scripted.New(
			scripted.When(scripted.SystemContains(workerText), scripted.Fail(model.ErrContextLength)),
			scripted.ToolCall("dispatch_subagent", args(t, d)), scripted.Text("ok"))
		w.evaluate(t, m)
		ti, _ := session.Latest[runner.ToolInvoked](w.s)
		assert.False(t, ti.Success)
		assert.Equal(t, err.Error(), ti.Result)
		plan, _ := planning.CurrentPlan(w.s)
		step, _ := plan.Step("S002")
		assert.Equal(t, planning.StepBlocked, step.Status)
	})
	t.Run("a crashing tool is the child's business", func(t *testing.T) {
		w := newWorld(t, promptsubagent.Options{})
		m := scripted.New(
			scripted.When(scripted.SystemContains(workerText),
				scripted.ToolCall("read_file", `{"file_path":"../etc/passwd"}`),
				scripted.When(scripted.HasToolResult("read_file"), scripted.Text("could not read it, carried on"))),
		)
		res, _, err := dispatch(t, w, adHoc("read something"), m)
		require.NoError(t, err)
		assert.Equal(t, "could not read it, carried on", res.MessageSummary)
		assert.Equal(t, []string{"read_file"}, res.ToolsUsed)
	})
	t.Run("cycle", func(t *testing.T) {
		// The worker dispatches a worker again: the nested dispatch is
		// refused, and the worker reads why.
		w := newWorld(t, promptsubagent.Options{})
		m := scripted.New(
			scripted.When(scripted.SystemContains(workerText),
				scripted.ToolCall(promptsubagent.ToolName, args(t, adHoc("again"))),
				scripted.Func(func(_ context.Context, req *model.Request) (*model.Response, error) {
					last := req.Messages[len(req.Messages)-1]
					return &model.Response{Message: model.AssistantMessage("the nested call said: " + last.Content)}, nil
				})),
		)
		res, _, err := dispatch(t, w, adHoc("review"), m)
		require.NoError(t, err)
		assert.Contains(t, res.MessageSummary, "the nested call said: ")
		assert.Contains(t, res.MessageSummary, "Circular delegation prevented: root/planner -> agents/worker -> agents/worker")
	})
}

// childCalls returns the model calls the children made.
func childCalls(m *scripted.Model) []scripted.Call {
	var out []scripted.Call
	for _, c := range m.Calls() {
		if strings.Contains(c.Request.Messages[0].Content, workerText) {
			out = append(out, c)
		}
	}
	return out
}

func dispatch(t *testing.T, w *world, in promptsubagent.DispatchSubagent, m model.Model) (promptsubagent.DispatchSubagentResult, []any, error) {
	t.Helper()
	r, err := w.parent.Render()
	require.NoError(t, err)
	d := promptsubagent.NewDispatcher(w.reg, w.engine, w.opts)
	inv := &tools.Invocation{Session: w.s, PromptNS: "root", PromptKey: "planner", Tools: r.Tools, Model: m, ModelName: "scripted"}
	return d.Dispatch(ctx, inv, in)
}

// Report is a child prompt's structured output declaring artifacts.
type Report struct {
	Findings  string   `json:"findings"`
	Artifacts []string `json:"artifacts"`
}

func TestStructuredOutputArtifactsJoinTheWrittenFiles(t *testing.T) {
	w := newWorld(t, promptsubagent.Options{})
	reporter, err := prompt.New("agents", "reporter", prompt.Markdown[prompt.NoParams]("Reporter", "You report."), prompt.WithOutput[Report]())
	require.NoError(t, err)
	require.NoError(t, w.reg.Register(reporter))
	m := scripted.New(
		scripted.ToolCall("write_file", `{"file_path":"out/z.md","content":"z"}`),
		scripted.ToolCall("write_file", `{"file_path":"out/a.md","content":"a"}`),
		scripted.Text(`{"findings":"two notes","artifacts":["https://example.test/ticket/1","out/a.md"]}`),
	)
	d := adHoc("report")
	d.PromptKey = "reporter"
	res, _, err := dispatch(t, w, d, m)
	require.NoError(t, err)
	assert.Equal(t, []string{"out/a.md", "out/z.md", "https://example.test/ticket/1"}, res.Artifacts,
		"written paths sorted and distinct, then the output's own artifacts")
	assert.Equal(t, `{"findings":"two notes","artifacts":["https://example.test/ticket/1","out/a.md"]}`, res.MessageSummary)
}
