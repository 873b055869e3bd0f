package task_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/bus"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/subagent"
	"github.com/offshoot-dev/offshoot/tools/task"
	"github.com/offshoot-dev/offshoot/tools/vfs"
)

// readerTurns is the reader agent's work: three reads and a grep, then its
// answer.
func readerTurns() []scripted.Turn {
	return []scripted.Turn{
		scripted.ToolCalls(
			model.ToolCall{Name: "read_file", Arguments: `{"file_path":"src/login.go"}`},
			model.ToolCall{Name: "grep", Arguments: `{"pattern":"Login"}`},
		),
		scripted.ToolCall("read_file", `{"file_path":"README.md"}`),
		scripted.ToolCall("read_file", `{"file_path":"src/login.go"}`),
		scripted.Text("Login is defined in src/login.go, line 3."),
	}
}

// The envelope, field by field: what the model reads, and what is
// recorded.
func TestTheResultEnvelope(t *testing.T) {
	w := newWorld(t, worldConfig{light: readerTurns()})
	in := map[string]any{
		"subagent_type": "reader", "description": "Find the login code", "prompt": "Where is Login defined?",
		"name": "finder", "team_name": "auth", "mode": "plan",
	}
	out := w.call(t, scripted.New(), in)
	require.True(t, out.Success, out.Text)
	const text = "Subagent (reader, gpt-light) completed.\n\nLogin is defined in src/login.go, line 3."
	assert.Equal(t, text, out.Text, "the model reads the text alone")

	res := result(t, out)
	assert.Equal(t, "success", res.Status)
	assert.Equal(t, "completed", res.Data.Status)
	assert.Equal(t, "Login is defined in src/login.go, line 3.", res.Data.Result)
	assert.Equal(t, []task.ToolCount{{Tool: "read_file", Count: 3}, {Tool: "grep", Count: 1}}, res.Data.ToolSummary)
	assert.Equal(t, "gpt-light", res.Data.ModelUsed)
	assert.Equal(t, "reader", res.Data.SubagentType)
	assert.Equal(t, "agent-1", res.Data.AgentID)
	assert.Equal(t, "finder", res.Data.Name)
	assert.Empty(t, res.Data.Artifacts)
	assert.Equal(t, text, res.Text)
	assert.Equal(t, int64(0), res.Stats.TimeMS, "the bus clock stands still")
	assert.Equal(t, 4, res.Stats.ToolCalls)
	assert.Equal(t, "light", res.Stats.Model)
	assert.Positive(t, res.Stats.Usage.TotalTokens)
	assert.Equal(t, ".", res.Context.Cwd)
	assert.Equal(t, task.Input{SubagentType: "reader", Description: "Find the login code", Prompt: "Where is Login defined?",
		Name: "finder", TeamName: "auth", Mode: "plan"}, res.Context.ParamsInput)
	assert.Equal(t, "Task completed by reader", res.ShortResult)
	assert.Empty(t, res.Error)

	// The JSON is the seed's envelope.
	b, err := json.Marshal(res)
	require.NoError(t, err)
	usage, err := json.Marshal(res.Stats.Usage)
	require.NoError(t, err)
	assert.JSONEq(t, `{
		"status": "success",
		"data": {"status": "completed", "result": "Login is defined in src/login.go, line 3.",
			"tool_summary": [{"tool": "read_file", "count": 3}, {"tool": "grep", "count": 1}],
			"model_used": "gpt-light", "subagent_type": "reader", "agent_id": "agent-1", "name": "finder"},
		"text": "Subagent (reader, gpt-light) completed.\n\nLogin is defined in src/login.go, line 3.",
		"stats": {"time_ms": 0, "tool_calls": 4, "model": "light", "usage": `+string(usage)+`},
		"context": {"cwd": ".", "params_input": {"description": "Find the login code", "prompt": "Where is Login defined?",
			"subagent_type": "reader", "name": "finder", "team_name": "auth", "mode": "plan"}},
		"short_result": "Task completed by reader"
	}`, string(b))
}

// time_ms is the call's time by the session bus's clock.
func TestTimeIsMeasuredOnTheBusClock(t *testing.T) {
	w := newWorld(t, worldConfig{light: []scripted.Turn{scripted.Text("done")}})
	var now time.Time
	clock := func() time.Time { now = now.Add(5 * time.Millisecond); return now }
	s, err := session.New(session.WithBus(bus.New(bus.WithClock(clock))))
	require.NoError(t, err)
	defer s.Close()
	set := w.tools(t)
	tool, _ := set.Lookup(task.ToolName)
	c := ctx
	out := tool.Call(c, nil, args(t, input("reader", "Find the code", "Where?")))
	require.Error(t, out.Err, "no session")
	out = tool.Call(c, invocationOn(s, set, scripted.New()), args(t, input("reader", "Find the code", "Where?")))
	res := result(t, out)
	require.True(t, out.Success, out.Text)
	assert.GreaterOrEqual(t, res.Stats.TimeMS, int64(10))
	assert.Zero(t, res.Stats.TimeMS%5)
}

// A failed run keeps the agent's work: the model reads the failure, then
// what the agent wrote before it stopped.
func TestAFailureKeepsThePartialText(t *testing.T) {
	w := newWorld(t, worldConfig{light: []scripted.Turn{
		scripted.Reply(&model.Response{Message: model.AssistantMessage("Found src/login.go so far.",
			model.ToolCall{ID: "c1", Name: "read_file", Arguments: `{"file_path":"src/login.go"}`})}),
		scripted.Fail(model.ErrRateLimited),
	}})
	out := w.call(t, scripted.New(), map[string]any{"subagent_type": "reader", "description": "Find the login code", "prompt": "Where?"})
	assert.False(t, out.Success)
	res := result(t, out)
	assert.Equal(t, "Subagent (reader, gpt-light) failed: "+model.ErrRateLimited.Error(), res.Error)
	assert.Equal(t, res.Error+"\n\nFound src/login.go so far.", out.Text)
	assert.Equal(t, "Found src/login.go so far.", res.Data.Result)
	assert.Equal(t, "agent-1", res.Data.AgentID)
	assert.Equal(t, []task.ToolCount{{Tool: "read_file", Count: 1}}, res.Data.ToolSummary)
	assert.Equal(t, "gpt-light", res.Data.ModelUsed)

	// Max turns: the engine's text, then the partial text.
	w = newWorld(t, worldConfig{light: []scripted.Turn{
		scripted.Reply(&model.Response{Message: model.AssistantMessage("Reading.",
			model.ToolCall{ID: "c1", Name: "read_file", Arguments: `{"file_path":"src/login.go"}`})}),
	}})
	out = w.call(t, scripted.New(), map[string]any{"subagent_type": "reader", "description": "Find the login code", "prompt": "Where?", "max_turns": 1})
	assert.Equal(t, "Subagent stopped after reaching max turns (1)\n\nReading.", out.Text)
}

// The files an agent writes reach the caller with the result, atomically
// with the call's record; Options.NoArtifactCopy keeps them in the agent.
func TestArtifactsReachTheCaller(t *testing.T) {
	script := func() []scripted.Turn {
		return []scripted.Turn{
			scripted.ToolCall("write_file", `{"file_path":"notes/login.md","content":"Login has no test.\n"}`),
			scripted.Text("Wrote notes/login.md."),
		}
	}
	for _, copyBack := range []bool{true, false} {
		w := newWorld(t, worldConfig{main: script(), task: task.Options{NoArtifactCopy: !copyBack}})
		m := scripted.New(
			scripted.ToolCall("Task", `{"subagent_type":"writer","description":"Write login notes","prompt":"Write notes/login.md."}`),
			scripted.Text("Done."),
		)
		w.evaluate(t, m, "Document the login.")
		_, err := vfs.FS(w.s).Open("notes/login.md")
		if copyBack {
			require.NoError(t, err)
		} else {
			require.Error(t, err)
		}
		var invoked []runner.ToolInvoked
		for ti := range session.All[runner.ToolInvoked](w.s) {
			invoked = append(invoked, ti)
		}
		require.Len(t, invoked, 1)
		var res task.Result
		require.NoError(t, json.Unmarshal(invoked[0].Value, &res))
		if copyBack {
			assert.Equal(t, []string{"notes/login.md"}, res.Data.Artifacts)
		} else {
			assert.Empty(t, res.Data.Artifacts)
		}
	}
}

// Fail with a cancelled parent: the call ends, and says why.
func TestCancellingTheCallerStopsTheAgent(t *testing.T) {
	started := make(chan struct{})
	w := newWorld(t, worldConfig{light: []scripted.Turn{scripted.Func(func(ctx context.Context, _ *model.Request) (*model.Response, error) {
		close(started)
		<-ctx.Done()
		return nil, ctx.Err()
	})}})
	c, cancel := context.WithCancel(subagent.WithRun(ctx))
	set := w.tools(t)
	tool, _ := set.Lookup(task.ToolName)
	done := make(chan string, 1)
	go func() {
		done <- tool.Call(c, invocationOn(w.s, set, scripted.New()), args(t, input("reader", "Find the code", "Where?"))).Text
	}()
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("the agent did not start")
	}
	cancel()
	select {
	case text := <-done:
		assert.Contains(t, text, "context canceled")
	case <-time.After(10 * time.Second):
		t.Fatal("the call did not end when its caller was cancelled")
	}
}
