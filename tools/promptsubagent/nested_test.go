package promptsubagent_test

import (
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/subagent"
	"github.com/offshoot-dev/offshoot/tools/promptsubagent"
)

// TestNestedDispatchWithholdsTheToolAtTheDepthLimitAndTotalsUsage runs
// root → worker → helper with a depth limit of 2: the helper, at the limit,
// runs without dispatch_subagent, and the root's ChildUsage is the worker's
// total, helper included, counted as they spent it.
func TestNestedDispatchWithholdsTheToolAtTheDepthLimitAndTotalsUsage(t *testing.T) {
	w := newWorld(t, promptsubagent.Options{})
	var ids atomic.Int64
	engine := subagent.New(subagent.Options{MaxDepth: 2, MaxConcurrent: 1, NewID: func() string { return fmt.Sprintf("agent-%d", ids.Add(1)) }})
	reg := w.reg
	helper, err := prompt.New("agents", "helper", prompt.Markdown[prompt.NoParams]("Helper", "You help the worker."))
	require.NoError(t, err)
	require.NoError(t, reg.Register(helper))
	parent, err := prompt.New("root", "planner",
		prompt.Markdown[prompt.NoParams]("Planner", "You coordinate the work."),
		promptsubagent.Section(reg, engine, promptsubagent.Options{}),
	)
	require.NoError(t, err)
	usage := model.Usage{InputTokens: 100, OutputTokens: 10, TotalTokens: 110}
	helperCall := promptsubagent.DispatchSubagent{Mode: "ad_hoc", PromptNS: "agents", PromptKey: "helper", Instructions: "help me"}
	m := scripted.New(
		scripted.When(scripted.SystemContains("You help the worker."), scripted.Text("helped").WithUsage(usage)),
		scripted.When(scripted.SystemContains(workerText),
			scripted.ToolCall("dispatch_subagent", args(t, helperCall)).WithUsage(usage),
			scripted.Text("worker done").WithUsage(usage)),
		scripted.ToolCall("dispatch_subagent", args(t, adHoc("work"))).WithUsage(usage),
		scripted.Text("root done").WithUsage(usage),
	)
	resp, err := runner.Evaluate(ctx, runner.Request{Prompt: parent, Session: w.s, Model: m, ModelName: "scripted", UserMessage: "go"})
	require.NoError(t, err)
	assert.Equal(t, "root done", resp.Text)

	names := func(c scripted.Call) []string {
		var out []string
		for _, spec := range c.Request.Tools {
			out = append(out, spec.Name)
		}
		return out
	}
	var workerTools, helperTools []string
	for _, c := range m.Calls() {
		sys := c.Request.Messages[0].Content
		switch {
		case contains(sys, "You help the worker."):
			helperTools = names(c)
		case contains(sys, workerText):
			workerTools = names(c)
		}
	}
	assert.Equal(t, []string{"dispatch_subagent"}, workerTools)
	assert.Empty(t, helperTools, "at the depth limit dispatch_subagent is withheld")

	// The root saw the worker's total: its two calls plus the helper's one.
	assert.Equal(t, 2*usage.TotalTokens, resp.Usage.TotalTokens)
	assert.Equal(t, 3*usage.TotalTokens, resp.ChildUsage.TotalTokens)
	// One record per finished child reaches the parent with the tool's
	// result: the worker's total, the helper included, marked as counted
	// already, so the root's ChildUsage is not doubled. The helper's own
	// record went into the worker's session, which is gone.
	records := slices.Collect(session.All[runner.Spent](w.s))
	require.Len(t, records, 1)
	assert.Equal(t, "agent-1", records[0].Source, "the worker's id")
	assert.Equal(t, model.Usage{InputTokens: 300, OutputTokens: 30, TotalTokens: 330}, records[0].Usage)
	assert.True(t, records[0].Counted)

	// A budget that the children's usage exceeds stops the root.
	m2 := scripted.New(
		scripted.When(scripted.SystemContains("You help the worker."), scripted.Text("helped").WithUsage(usage)),
		scripted.When(scripted.SystemContains(workerText),
			scripted.ToolCall("dispatch_subagent", args(t, helperCall)).WithUsage(usage),
			scripted.Text("worker done").WithUsage(usage)),
		scripted.ToolCall("dispatch_subagent", args(t, adHoc("work"))).WithUsage(usage),
		scripted.Text("root done").WithUsage(usage),
	)
	_, err = runner.Evaluate(ctx, runner.Request{Prompt: parent, Session: w.s, Model: m2, UserMessage: "go", Budget: 3 * usage.TotalTokens})
	assert.ErrorIs(t, err, runner.ErrBudgetExceeded, fmt.Sprint(err))
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
