package task_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/agents"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/subagent"
	"github.com/offshoot-dev/offshoot/tools/task"
)

// At the depth limit a child never sees Task: by default (depth 1) the
// agents the main agent starts have no Task tool; with depth 2 they have
// it, and the agents they start do not.
func TestAChildNeverSeesTaskAtTheDepthLimit(t *testing.T) {
	team := map[string]agents.Definition{
		"lead":   {Description: "Leads.", Prompt: "You lead the work."},
		"writer": {Description: "Writes.", Prompt: "You write notes."},
	}
	alone := []scripted.Turn{
		scripted.When(scripted.SystemContains("You lead the work."), scripted.Text("Led alone.")),
	}
	delegating := []scripted.Turn{
		scripted.When(scripted.SystemContains("You write notes."), scripted.Text("Wrote it.")),
		scripted.When(scripted.SystemContains("You lead the work."),
			scripted.ToolCall("Task", `{"subagent_type":"writer","description":"Write the notes","prompt":"Write notes/a.md."}`),
			scripted.Text("Led.")),
	}
	// The depth is Task's own option when given, else the engine's when
	// the program set one, else 1.
	tests := []struct {
		name            string
		opts            task.Options
		engine          subagent.Options
		main            []scripted.Turn
		leadTask, wrote bool
	}{
		{"default depth", task.Options{}, subagent.Options{}, alone, false, false},
		{"depth 2", task.Options{MaxDepth: 2}, subagent.Options{}, delegating, true, true},
		{"the engine's depth 2", task.Options{}, subagent.Options{MaxDepth: 2}, delegating, true, true},
		{"the engine's default is not Task's", task.Options{}, subagent.Options{MaxDepth: 0}, alone, false, false},
		{"Task's depth wins over the engine's", task.Options{MaxDepth: 1}, subagent.Options{MaxDepth: 3}, alone, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t, worldConfig{agents: team, task: tt.opts, engine: tt.engine, main: tt.main})
			res := result(t, w.call(t, w.main, map[string]any{"subagent_type": "lead", "description": "Lead the work", "prompt": "Lead.", "model": "main"}))
			require.Equal(t, "success", res.Status, res.Text)
			require.NoError(t, w.main.Verify())
			var lead, writer []string
			for _, r := range childRequests(w.main) {
				switch sys := r.Messages[0].Content; {
				case strings.Contains(sys, "You lead the work."):
					lead = toolNames(r)
				case strings.Contains(sys, "You write notes."):
					writer = toolNames(r)
				}
			}
			require.NotEmpty(t, lead)
			assert.Equal(t, tt.leadTask, contains(lead, "Task"), "lead's tools: %v", lead)
			if !tt.wrote {
				assert.Nil(t, writer)
				return
			}
			require.NotEmpty(t, writer)
			assert.NotContains(t, writer, "Task")
			assert.Contains(t, writer, "write_file")
		})
	}
}

func contains(names []string, name string) bool {
	for _, n := range names {
		if n == name {
			return true
		}
	}
	return false
}

// Several Task calls in one turn run at the same time, each from the same
// state, and their results come back in call order.
func TestParallelTaskCallsInOneTurn(t *testing.T) {
	const n = 3
	var mu sync.Mutex
	arrived := 0
	all := make(chan struct{})
	barrier := scripted.Func(func(ctx context.Context, req *model.Request) (*model.Response, error) {
		mu.Lock()
		arrived++
		if arrived == n {
			close(all)
		}
		mu.Unlock()
		select {
		case <-all:
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(10 * time.Second):
			return nil, context.DeadlineExceeded // the calls did not run in parallel
		}
		last := req.Messages[len(req.Messages)-1].Content
		return &model.Response{Message: model.AssistantMessage("answer to: " + last)}, nil
	})
	w := newWorld(t, worldConfig{light: []scripted.Turn{barrier, barrier, barrier}})
	var calls []model.ToolCall
	for i := range n {
		calls = append(calls, model.ToolCall{Name: "Task", Arguments: string(args(t, input("reader", "Look something up", "question "+string(rune('A'+i)))))})
	}
	parent := scripted.New(scripted.ToolCalls(calls...), scripted.Text("All answered."))
	resp := w.evaluate(t, parent, "Answer three questions.")
	assert.Equal(t, "All answered.", resp.Text)

	var texts []string
	for _, m := range resp.Messages {
		if m.Role == model.RoleTool {
			texts = append(texts, m.Content)
		}
	}
	assert.Equal(t, []string{
		"Subagent (reader, gpt-light) completed.\n\nanswer to: question A",
		"Subagent (reader, gpt-light) completed.\n\nanswer to: question B",
		"Subagent (reader, gpt-light) completed.\n\nanswer to: question C",
	}, texts)
}

// The model: the call's, else the definition's, else the caller's;
// "inherit" passes the choice on; aliases resolve through the router.
func TestModelPrecedenceThroughTheTool(t *testing.T) {
	defs := map[string]agents.Definition{
		"light-agent":   {Description: "On light.", Prompt: "You are light.", Model: "light"},
		"inherit-agent": {Description: "Inherits.", Prompt: "You inherit.", Model: "inherit"},
		"plain-agent":   {Description: "Says nothing.", Prompt: "You are plain."},
		"haiku-agent":   {Description: "On haiku.", Prompt: "You are haiku.", Model: "claude-3-5-haiku-20241022"},
	}
	tests := []struct {
		agent, call string
		want        string // stats.model: the router's name for the model an alias leads to
		used        string // model_used: that model's id
		answeredBy  string // which model answered
	}{
		{"light-agent", "", "light", "gpt-light", "light"},
		{"light-agent", "main", "main", "gpt-main", "main"},
		{"light-agent", "inherit", "light", "gpt-light", "light"},
		{"light-agent", "sonnet", "main", "gpt-main", "main"},
		{"inherit-agent", "", "caller", "scripted", "caller"},
		{"inherit-agent", "light", "light", "gpt-light", "light"},
		{"plain-agent", "", "caller", "scripted", "caller"},
		{"plain-agent", "haiku", "light", "gpt-light", "light"},
		{"haiku-agent", "", "light", "gpt-light", "light"},
		{"haiku-agent", "opus", "main", "gpt-main", "main"},
	}
	for _, tt := range tests {
		t.Run(tt.agent+" "+tt.call, func(t *testing.T) {
			w := newWorld(t, worldConfig{agents: defs, main: []scripted.Turn{scripted.Text("main")}, light: []scripted.Turn{scripted.Text("light")}})
			caller := scripted.New(scripted.Text("caller"))
			in := input(tt.agent, "Do the task", "Do it.")
			if tt.call != "" {
				in["model"] = tt.call
			}
			res := result(t, w.call(t, caller, in))
			require.Equal(t, "success", res.Status, res.Text)
			assert.Equal(t, tt.used, res.Data.ModelUsed)
			assert.Equal(t, tt.want, res.Stats.Model)
			assert.Equal(t, tt.answeredBy, res.Data.Result)
			assert.True(t, strings.HasPrefix(res.Text, "Subagent ("+tt.agent+", "+tt.used+") completed.\n\n"), res.Text)
		})
	}
}

// Max turns: the call's, else the definition's.
func TestMaxTurnsPrecedence(t *testing.T) {
	defs := map[string]agents.Definition{"busy": {Description: "Busy.", Prompt: "You keep reading.", Model: "light", MaxTurns: 2}}
	for _, tt := range []struct {
		call int
		want string
	}{{0, "(2)"}, {3, "(3)"}} {
		w := newWorld(t, worldConfig{agents: defs, light: []scripted.Turn{scripted.Repeat(scripted.ToolCall("ls", `{"path":""}`))}})
		in := input("busy", "Keep reading", "Read.")
		if tt.call > 0 {
			in["max_turns"] = tt.call
		}
		out := w.call(t, scripted.New(), in)
		assert.Equal(t, "Subagent stopped after reaching max turns "+tt.want, out.Text)
	}
}

// subagent_type matches exactly, then ignoring case and separators.
func TestMatchingTheSubagentType(t *testing.T) {
	for _, asked := range []string{"code-reviewer", "Code Reviewer", "code_reviewer", "CodeReviewer"} {
		w := newWorld(t, worldConfig{main: []scripted.Turn{scripted.Text("reviewed")}})
		res := result(t, w.call(t, w.main, map[string]any{"subagent_type": asked, "description": "Review the code", "prompt": "Review.", "model": "main"}))
		assert.Equal(t, "code-reviewer", res.Data.SubagentType, asked)
		assert.Equal(t, "Task completed by code-reviewer", res.ShortResult)
	}
	w := newWorld(t, worldConfig{})
	out := w.call(t, scripted.New(), input("the one that reviews code", "Review the code", "Review."))
	assert.Equal(t, "Subagent 'the one that reviews code' not found. Available: code-reviewer, forker, reader, shell, writer", out.Text,
		"no matching by description unless the program opts in")
}

// A program that opts into matching by description lets a call name an
// agent by what it does.
func TestMatchingByDescriptionWhenTheProgramOptsIn(t *testing.T) {
	w := newWorld(t, worldConfig{main: []scripted.Turn{scripted.Text("reviewed")}})
	reg := agents.Load(agents.Options{NoBuiltins: true, MatchDescriptions: true, Agents: testAgents})
	tool, err := task.Tool(reg, w.engine, w.router, task.Options{})
	require.NoError(t, err)
	out := tool.Call(ctx, invocationOn(w.s, w.tools(t), w.main), args(t, input("reviews code", "Review the code", "Review.")))
	res := result(t, out)
	assert.Equal(t, "success", res.Status, res.Text)
	assert.Equal(t, "code-reviewer", res.Data.SubagentType)
}
