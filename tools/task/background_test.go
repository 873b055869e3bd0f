package task_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/agents"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/subagent"
	"github.com/offshoot-dev/offshoot/subagent/transcript"
	"github.com/offshoot-dev/offshoot/tools/task"
)

// bgInput is a call asking for agent to run in the background.
func bgInput(agent, description, prompt string) map[string]any {
	in := input(agent, description, prompt)
	in["run_in_background"] = true
	return in
}

// The launch's recorded value has the spec's shape at its top level —
// {"status": "async_launched", "agent_id", "task_id", "output_file"} — the
// output file present, empty, also when the engine keeps no transcripts;
// a foreground result has none of the three.
func TestTheLaunchValue(t *testing.T) {
	for _, tt := range []struct {
		name        string
		transcripts bool
	}{{"transcripts on", true}, {"transcripts off", false}} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			release := make(chan struct{})
			defer close(release)
			cfg := worldConfig{light: []scripted.Turn{gate(release, "Done.")}}
			want := ""
			if tt.transcripts {
				cfg.engine = subagent.Options{Transcripts: transcript.Dir(dir)}
				want = filepath.Join(dir, "s1", "subagents", "agent-agent-1.output")
			}
			w := newWorld(t, cfg)
			out := w.call(t, w.main, bgInput("reader", "Find the login code", "Where is Login?"))
			require.True(t, out.Success, out.Text)
			b, err := json.Marshal(out.Value)
			require.NoError(t, err)
			var top map[string]any
			require.NoError(t, json.Unmarshal(b, &top))
			assert.Equal(t, "async_launched", top["status"])
			assert.Equal(t, "agent-1", top["agent_id"])
			assert.Equal(t, "agent-1", top["task_id"])
			require.Contains(t, top, "output_file")
			assert.Equal(t, want, top["output_file"])

			var back task.Result
			require.NoError(t, json.Unmarshal(b, &back))
			assert.Equal(t, result(t, out), back, "the value reads back as it was")
		})
	}

	w := newWorld(t, worldConfig{light: []scripted.Turn{scripted.Text("Done.")}})
	b, err := json.Marshal(w.call(t, w.main, input("reader", "Find the login code", "Where is Login?")).Value)
	require.NoError(t, err)
	var top map[string]any
	require.NoError(t, json.Unmarshal(b, &top))
	assert.Equal(t, "success", top["status"])
	assert.NotContains(t, top, "agent_id")
	assert.NotContains(t, top, "task_id")
	assert.NotContains(t, top, "output_file")
}

// A background call returns at once, while the agent's model is still
// thinking, with the envelope of a launch; the agent goes on and ends as
// its script says.
func TestBackgroundLaunchReturnsAtOnce(t *testing.T) {
	dir := t.TempDir()
	release := make(chan struct{})
	w := newWorld(t, worldConfig{
		engine: subagent.Options{Transcripts: transcript.Dir(dir)},
		light:  []scripted.Turn{gate(release, "Login is in src/login.go.")},
	})
	res := result(t, w.call(t, w.main, bgInput("reader", "Find the login code", "Where is Login?")))

	output := filepath.Join(dir, "s1", "subagents", "agent-agent-1.output")
	assert.Equal(t, "async_launched", res.Status)
	assert.Equal(t, "agent-1", res.AgentID)
	assert.Equal(t, "agent-1", res.TaskID, "the task id is the agent id")
	assert.Equal(t, output, res.OutputFile)
	assert.Equal(t, "async_launched", res.Data.Status)
	assert.Equal(t, "agent-1", res.Data.AgentID)
	assert.Equal(t, "agent-1", res.Data.TaskID)
	assert.Equal(t, output, res.Data.OutputFile)
	assert.Equal(t, "reader", res.Data.SubagentType)
	assert.Equal(t, "gpt-light", res.Data.ModelUsed)
	assert.Empty(t, res.Data.Result)
	assert.Equal(t, "Task started in the background by reader", res.ShortResult)
	assert.Equal(t, "Subagent (reader, gpt-light) started in the background as task agent-1. "+
		"Its result will come to you in a task notification when it ends; go on with other work meanwhile. "+
		"To read its output before then, call TaskOutput with task_id agent-1; to stop it, call TaskStop.", res.Text)

	bg, err := w.engine.Tasks().Get("agent-1")
	require.NoError(t, err)
	assert.Equal(t, subagent.TaskStatusRunning, bg.Status(), "the agent still works")
	close(release)
	n, err := bg.Wait(within(t))
	require.NoError(t, err)
	assert.True(t, n.IsSuccess())
	assert.Equal(t, "Login is in src/login.go.", n.Summary)
	assert.Equal(t, w.s.ID(), n.SessionID)
}

// An agent whose definition says background: true runs in the background
// without being asked.
func TestBackgroundByDefinition(t *testing.T) {
	defs := map[string]agents.Definition{"watcher": {Description: "Watches.", Prompt: "You watch.", Background: true, Model: "light"}}
	w := newWorld(t, worldConfig{agents: defs, light: []scripted.Turn{scripted.Text("All quiet.")}})
	res := result(t, w.call(t, w.main, input("watcher", "Watch the build", "Watch it.")))
	require.Equal(t, "async_launched", res.Data.Status, res.Text)
	bg, err := w.engine.Tasks().Get(res.Data.TaskID)
	require.NoError(t, err)
	n, err := bg.Wait(within(t))
	require.NoError(t, err)
	assert.Equal(t, "All quiet.", n.Summary)
}

var launchedAs = regexp.MustCompile(`started in the background as task (\S+)\.`)

// Two background agents started in one turn run side by side; the main
// agent waits for both with TaskOutput, and its next model call carries
// both notifications — their results, not their tool calls.
func TestParallelLaunchesAndTheNotificationInTheNextModelCall(t *testing.T) {
	w := newWorld(t, worldConfig{light: []scripted.Turn{
		scripted.When(scripted.LastUserContains("Login"),
			scripted.ToolCall("read_file", `{"file_path":"src/login.go"}`),
			scripted.Text("Login is in src/login.go.")),
		scripted.When(scripted.LastUserContains("README"), scripted.Text("The README is one heading.")),
	}})
	caller := scripted.New(
		scripted.ToolCalls(
			model.ToolCall{Name: "Task", Arguments: string(args(t, bgInput("reader", "Find the login code", "Where is Login?")))},
			model.ToolCall{Name: "Task", Arguments: string(args(t, bgInput("reader", "Read the README", "What does the README say?")))},
		),
		// Wait for each task the launches name.
		scripted.Func(func(_ context.Context, req *model.Request) (*model.Response, error) {
			var calls []model.ToolCall
			for _, m := range req.Messages {
				if sm := launchedAs.FindStringSubmatch(m.Content); m.Role == model.RoleTool && sm != nil {
					calls = append(calls, model.ToolCall{ID: "out-" + sm[1], Name: task.OutputToolName, Arguments: `{"task_id":"` + sm[1] + `"}`})
				}
			}
			return &model.Response{Message: model.AssistantMessage("", calls...)}, nil
		}),
		scripted.Text("Both agents reported."),
	)
	c, cancel := context.WithTimeout(ctx, watchdog)
	defer cancel()
	resp, err := runner.Evaluate(c, runner.Request{Prompt: w.parent, Session: w.s, Model: caller, ModelName: "caller", UserMessage: "Look around."})
	require.NoError(t, err)
	assert.Equal(t, "Both agents reported.", resp.Text)
	require.NoError(t, caller.Verify())
	require.NoError(t, w.light.Verify())

	calls := caller.Calls()
	require.Len(t, calls, 3)
	second := calls[1].Request.Messages
	assert.Len(t, launchedAs.FindAllString(joined(second), -1), 2, "both launched in the first turn")

	last := calls[2].Request.Messages
	var notes []string
	for _, m := range last {
		if m.Role == model.RoleUser && strings.HasPrefix(m.Content, "<task-notification>") {
			notes = append(notes, m.Content)
		}
	}
	require.Len(t, notes, 2, "the next model call carries both notifications")
	all := strings.Join(notes, "\n")
	assert.Contains(t, all, "(Find the login code, by the reader agent) has completed.\n\nIts result:\nLogin is in src/login.go.")
	assert.Contains(t, all, "(Read the README, by the reader agent) has completed.\n\nIts result:\nThe README is one heading.")
	assert.NotContains(t, all, "read_file", "never the agents' tool calls")
	assert.NotContains(t, all, "package src", "never their tool results")

	// TaskOutput answered with both results.
	var outputs []string
	for _, m := range last {
		if m.Role == model.RoleTool && strings.HasPrefix(m.ToolCallID, "out-") {
			outputs = append(outputs, m.Content)
		}
	}
	assert.ElementsMatch(t, []string{
		"Task agent-1 has completed. Its result:\n\nLogin is in src/login.go.",
		"Task agent-2 has completed. Its result:\n\nThe README is one heading.",
	}, remapIDs(outputs))
}

// remapIDs makes the two tasks' outputs comparable whichever started
// first: the login task becomes agent-1.
func remapIDs(outputs []string) []string {
	out := make([]string, len(outputs))
	for i, o := range outputs {
		id := "agent-2"
		if strings.Contains(o, "Login") {
			id = "agent-1"
		}
		out[i] = regexp.MustCompile(`agent-\d+`).ReplaceAllString(o, id)
	}
	return out
}

func joined(msgs []model.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		b.WriteString(m.Content)
		b.WriteString("\n")
	}
	return b.String()
}

// A background agent lives on the run's context, not the call's: it
// outlives the evaluation that started it, and cancelling the run's
// context stops it.
func TestCancellingTheRunStopsBackgroundAgents(t *testing.T) {
	w := newWorld(t, worldConfig{light: []scripted.Turn{gate(make(chan struct{}), "never")}})
	caller := scripted.New(
		scripted.ToolCall("Task", string(args(t, bgInput("reader", "Find the login code", "Where is Login?")))),
		scripted.Text("It is looking."),
	)
	run, cancel := context.WithCancel(ctx)
	defer cancel()
	resp, err := runner.Evaluate(run, runner.Request{Prompt: w.parent, Session: w.s, Model: caller, ModelName: "caller", UserMessage: "Find Login."})
	require.NoError(t, err)
	assert.Equal(t, "It is looking.", resp.Text)

	bg, err := w.engine.Tasks().Get("agent-1")
	require.NoError(t, err)
	assert.Equal(t, subagent.TaskStatusRunning, bg.Status(), "the evaluation is over, the agent goes on")
	cancel()
	n, err := bg.Wait(within(t))
	require.NoError(t, err)
	assert.Equal(t, subagent.TaskStatusStopped, n.Status)
}
