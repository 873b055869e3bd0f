package task_test

import (
	"context"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/subagent"
	"github.com/offshoot-dev/offshoot/subagent/transcript"
	"github.com/offshoot-dev/offshoot/tools"
	"github.com/offshoot-dev/offshoot/tools/task"
	"github.com/offshoot-dev/offshoot/tools/vfs"
)

// resumeInput is a call resuming agent id of type agent.
func resumeInput(agent, id, description, prompt string) map[string]any {
	in := input(agent, description, prompt)
	in["resume"] = id
	return in
}

// Resuming continues the same agent: same id, type and model, its
// conversation and then the new prompt, on its caller's state as it is
// now.
func TestResumeContinuesTheSameAgent(t *testing.T) {
	w := newWorld(t, worldConfig{
		engine: subagent.Options{Transcripts: transcript.Dir(t.TempDir())},
		light: []scripted.Turn{
			scripted.ToolCall("read_file", `{"file_path":"src/login.go"}`),
			scripted.Text("Login is in src/login.go."),
			scripted.ToolCall("read_file", `{"file_path":"src/auth.go"}`),
			scripted.Text("Auth checks the password in src/auth.go."),
		},
	})
	first := result(t, w.call(t, w.main, input("reader", "Find the login code", "Where is Login?")))
	require.Equal(t, "success", first.Status, first.Text)

	// The caller moves on: a file the agent never saw.
	require.NoError(t, w.s.Dispatch(ctx, vfs.FileWritten{Path: "src/auth.go", Content: "package src\n\nfunc Check() {}\n", Version: 1}))
	again := result(t, w.call(t, w.main, resumeInput("reader", first.Data.AgentID, "Find the auth code", "And where is the password checked?")))
	require.Equal(t, "success", again.Status, again.Text)
	assert.Equal(t, first.Data.AgentID, again.Data.AgentID, "the same agent")
	assert.Equal(t, "reader", again.Data.SubagentType)
	assert.Equal(t, "gpt-light", again.Data.ModelUsed, "on the same model")
	assert.Equal(t, "Subagent (reader, gpt-light) completed.\n\nAuth checks the password in src/auth.go.\n\n"+
		"agent_id: "+first.Data.AgentID+" (to continue this agent's work later, call Task with resume set to this id)", again.Text)

	reqs := childRequests(w.light)
	require.Len(t, reqs, 4)
	resumed := reqs[2].Messages
	assert.Contains(t, resumed[0].Content, "You read code and answer questions about it.\n\n# Task\nFind the auth code", "its type's prompt, the new description")
	firstRun := reqs[1].Messages[1:]
	firstRun = append(firstRun, model.AssistantMessage("Login is in src/login.go."))
	assert.Equal(t, append(firstRun, model.UserMessage("And where is the password checked?")), resumed[1:],
		"its conversation, then the new prompt")
	last := reqs[3].Messages
	assert.Equal(t, model.RoleTool, last[len(last)-1].Role)
	assert.Contains(t, last[len(last)-1].Content, "func Check()", "it works on its caller's state as it is now")
	assert.Equal(t, 1, strings.Count(resumed[0].Content, "# Task"))
}

// A run cut short leaves a tool call without its result: resuming drops
// it and keeps the agent's text; the resumed agent can run in the
// background too.
func TestResumeRepairsAnOrphanToolCall(t *testing.T) {
	entered := make(chan struct{})
	var once sync.Once
	slow, err := tools.New("slow_check", "Check slowly.", func(ctx context.Context, _ *tools.Invocation, _ struct{}) (tools.Result[string], error) {
		once.Do(func() { close(entered) })
		<-ctx.Done()
		return tools.Result[string]{}, ctx.Err()
	})
	require.NoError(t, err)
	w := newWorld(t, worldConfig{
		engine: subagent.Options{Transcripts: transcript.Dir(t.TempDir())},
		tools:  []tools.Tool{slow},
		main: []scripted.Turn{scripted.When(scripted.SystemContains("You review code."),
			scripted.Reply(&model.Response{Message: model.AssistantMessage("Checking the login code.",
				model.ToolCall{ID: "c1", Name: "slow_check", Arguments: `{}`})}),
			scripted.Text("The login code is fine."),
		)},
	})
	// code-reviewer runs on its caller's model, here the router's main.
	res := result(t, w.call(t, w.main, bgInput("code-reviewer", "Review the login code", "Review src/login.go.")))
	require.Equal(t, "async_launched", res.Data.Status, res.Text)
	select {
	case <-entered:
	case <-within(t).Done():
		t.Fatal("the agent never called slow_check")
	}
	stop := w.callTool(t, w.s, task.StopToolName, map[string]any{"task_id": res.Data.TaskID})
	require.Equal(t, "Task agent-1 was stopped. What it wrote before it stopped:\n\nChecking the login code.", stop.Text)

	again := result(t, w.call(t, w.main, func() map[string]any {
		in := resumeInput("code-reviewer", res.Data.AgentID, "Finish the review", "Go on.")
		in["run_in_background"] = true
		return in
	}()))
	require.Equal(t, "async_launched", again.Data.Status, again.Text)
	assert.Equal(t, res.Data.AgentID, again.Data.TaskID)
	assert.Equal(t, "gpt-main", again.Data.ModelUsed, "the model it ran on: its caller's")
	bg, err := w.engine.Tasks().Get(again.Data.TaskID)
	require.NoError(t, err)
	n, err := bg.Wait(within(t))
	require.NoError(t, err)
	assert.Equal(t, "The login code is fine.", n.Summary)

	reqs := childRequests(w.main)
	require.Len(t, reqs, 2)
	assert.Equal(t, []model.Message{
		model.UserMessage("Review src/login.go."),
		model.AssistantMessage("Checking the login code."), // its text kept, its call without a result dropped
		model.UserMessage("Go on."),
	}, reqs[1].Messages[1:])
}

// What cannot be resumed says why, and what to do.
func TestResumeRefusals(t *testing.T) {
	w := newWorld(t, worldConfig{
		engine: subagent.Options{Transcripts: transcript.Dir(t.TempDir())},
		light:  []scripted.Turn{scripted.Text("Login is in src/login.go.")},
		main:   []scripted.Turn{scripted.When(scripted.SystemContains("You continue the work"), scripted.Text("Carried on."))},
	})
	reader := result(t, w.call(t, w.main, input("reader", "Find the login code", "Where is Login?")))
	require.Equal(t, "success", reader.Status, reader.Text)

	// A forker carries on its caller's conversation: run it from an
	// evaluation, which has one.
	caller := scripted.New(
		scripted.ToolCall("Task", string(args(t, map[string]any{"subagent_type": "forker", "description": "Carry on", "prompt": "Carry on.", "model": "main"}))),
		scripted.Text("Done."),
	)
	_, err := runner.Evaluate(within(t), runner.Request{Prompt: w.parent, Session: w.s, Model: caller, ModelName: "caller", UserMessage: "Work on login."})
	require.NoError(t, err)

	tests := []struct {
		name string
		in   map[string]any
		want string
	}{
		{"an unknown agent", resumeInput("reader", "agent-9", "Find more", "More?"), "No agent found with ID: agent-9"},
		{"a forked-context agent", resumeInput("forker", "agent-2", "Carry on", "Again."),
			"Agent agent-2 cannot be resumed: a forker agent carries on your conversation, and only agents that start from their task alone can be resumed. " +
				"Call Task again without resume to start a new forker agent: it carries on the conversation as it is now."},
		{"as another type", resumeInput("writer", "agent-1", "Find more", "More?"),
			"Agent agent-1 is a reader agent, not writer: call Task again with subagent_type reader to resume it, or without resume to start a new agent."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := result(t, w.call(t, w.main, tt.in))
			assert.Equal(t, "error", res.Status)
			assert.Equal(t, tt.want, res.Text)
		})
	}

	in := resumeInput("reader", "agent-1", "Find more", "More?")
	in["model"] = "main"
	out := w.call(t, w.main, in)
	assert.Equal(t, "Tool validation failed: Task: model: a resumed agent runs on the model it ran on before (light); leave model out", out.Text)
}

// What the model reads names the agent when it can be resumed — the
// engine keeps transcripts and the agent started from its task alone — so
// that a model can continue it; otherwise the text is exactly the
// spec's.
func TestTheResultNamesAResumableAgent(t *testing.T) {
	const answer = "Subagent (reader, gpt-light) completed.\n\nLogin is in src/login.go."
	tests := []struct {
		name        string
		transcripts bool
		agent       string
		want        string
	}{
		{"transcripts off", false, "reader", answer},
		{"transcripts on", true, "reader",
			answer + "\n\nagent_id: agent-1 (to continue this agent's work later, call Task with resume set to this id)"},
		{"a forked-context agent cannot be resumed", true, "forker",
			"Subagent (forker, gpt-light) completed.\n\nLogin is in src/login.go."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := worldConfig{light: []scripted.Turn{scripted.Text("Login is in src/login.go.")}}
			if tt.transcripts {
				cfg.engine = subagent.Options{Transcripts: transcript.Dir(t.TempDir())}
			}
			w := newWorld(t, cfg)
			in := input(tt.agent, "Find the login code", "Where is Login?")
			in["model"] = "light"
			out := w.call(t, w.main, in)
			require.True(t, out.Success, out.Text)
			assert.Equal(t, tt.want, out.Text)
			assert.Equal(t, "agent-1", result(t, out).Data.AgentID)
		})
	}
}

// A model that reads the tool message alone can resume the agent: the id
// it gives is the one the message names.
func TestAModelResumesFromWhatItReads(t *testing.T) {
	idLine := regexp.MustCompile(`(?m)^agent_id: (\S+) `)
	w := newWorld(t, worldConfig{
		engine: subagent.Options{Transcripts: transcript.Dir(t.TempDir())},
		light:  []scripted.Turn{scripted.Text("Login is in src/login.go."), scripted.Text("It takes no arguments.")},
	})
	parent := scripted.New(
		scripted.ToolCall("Task", `{"subagent_type":"reader","description":"Find the login code","prompt":"Where is Login?"}`),
		scripted.Func(func(_ context.Context, req *model.Request) (*model.Response, error) {
			last := req.Messages[len(req.Messages)-1]
			m := idLine.FindStringSubmatch(last.Content)
			if last.Role != model.RoleTool || m == nil {
				return &model.Response{Message: model.AssistantMessage("I cannot tell which agent to resume.")}, nil
			}
			return &model.Response{Message: model.AssistantMessage("",
				model.ToolCall{ID: "t2", Name: "Task", Arguments: `{"subagent_type":"reader","description":"Ask a follow-up","prompt":"What arguments does it take?","resume":"` + m[1] + `"}`})}, nil
		}),
		scripted.Text("Done."),
	)
	resp := w.evaluate(t, parent, "Where is Login, and what does it take?")
	require.Equal(t, "Done.", resp.Text)
	reqs := childRequests(w.light)
	require.Len(t, reqs, 2)
	assert.Equal(t, model.UserMessage("What arguments does it take?"), reqs[1].Messages[len(reqs[1].Messages)-1])
	assert.Contains(t, reqs[1].Messages, model.UserMessage("Where is Login?"), "the same agent, its conversation carried on")
}
