package task_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/agents"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/subagent"
	"github.com/offshoot-dev/offshoot/subagent/transcript"
	"github.com/offshoot-dev/offshoot/tools"
	"github.com/offshoot-dev/offshoot/tools/task"
)

// Every failure the model reads, word for word. A failure is a failed
// result whose text is exactly the spec's, with the envelope recorded.
func TestFailureTextsAreExact(t *testing.T) {
	blocked := scripted.Func(func(ctx context.Context, _ *model.Request) (*model.Response, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	})
	tests := []struct {
		name string
		cfg  worldConfig
		in   any
		want string
	}{
		{"no agents", worldConfig{noAgent: true}, input("reader", "Find the login code", "Where is Login defined?"),
			"No subagents available for delegation"},
		{"unknown agent, the available ones sorted", worldConfig{}, input("debugger", "Find the bug", "Why does login fail?"),
			"Subagent 'debugger' not found. Available: code-reviewer, forker, reader, shell, writer"},
		{"initialization failure", worldConfig{engine: subagent.Options{ChildSetup: func(*session.Session) error { return errors.New("the disk is full") }}},
			input("reader", "Find the login code", "Where is Login defined?"),
			"Failed to initialize subagent: the disk is full"},
		{"timeout", worldConfig{engine: subagent.Options{Timeout: 30 * time.Millisecond}, light: []scripted.Turn{blocked}},
			input("reader", "Find the login code", "Where is Login defined?"),
			"Subagent task timed out after 30ms"},
		{"no permitted tools", worldConfig{}, input("shell", "Run the tests", "Run go test ./..."),
			"Subagent lacks permission for required tools: [run_shell]"},
		{"resume without transcripts", worldConfig{}, map[string]any{"subagent_type": "reader", "description": "Find the login code", "prompt": "Where?", "resume": "agent-7"},
			"Agent agent-7 cannot be resumed: this program keeps no transcripts of its agents, so their conversations are gone. Start a new agent instead, and give it everything it needs in its prompt."},
		{"resume an unknown agent", worldConfig{engine: subagent.Options{Transcripts: transcript.Dir(t.TempDir())}},
			map[string]any{"subagent_type": "reader", "description": "Find the login code", "prompt": "Where?", "resume": "agent-7"},
			"No agent found with ID: agent-7"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t, tt.cfg)
			out := w.call(t, scripted.New(), tt.in)
			require.NoError(t, out.Err)
			assert.False(t, out.Success)
			assert.Equal(t, tt.want, out.Text)
			res := result(t, out)
			assert.Equal(t, "error", res.Status)
			assert.Equal(t, "failed", res.Data.Status)
			assert.Equal(t, tt.want, res.Error)
			assert.Equal(t, tt.want, res.Text)
			assert.Equal(t, "Task delegation failed", res.ShortResult)
		})
	}
}

// A registry without agents, or none at all, fails every call the same
// way.
func TestNoRegistry(t *testing.T) {
	tool, err := task.Tool(nil, subagent.New(subagent.Options{}), nil, task.Options{})
	require.NoError(t, err)
	out := tool.Call(ctx, nil, args(t, input("reader", "Find the code", "Where?")))
	// Outside an evaluation there is no session to delegate from.
	require.Error(t, out.Err)
	assert.Contains(t, out.Text, "needs the session of the calling evaluation")

	w := newWorld(t, worldConfig{})
	tool, err = task.Tool(nil, w.engine, w.router, task.Options{})
	require.NoError(t, err)
	out = tool.Call(ctx, &tools.Invocation{Session: w.s}, args(t, input("reader", "Find the code", "Where?")))
	assert.Equal(t, "No subagents available for delegation", out.Text)
	assert.Contains(t, tool.Spec().Description, "No agents are available in this program.")
}

// A cycle: with nesting allowed, an agent that delegates to its own type
// is refused, and its model reads why.
func TestCircularDelegationIsPrevented(t *testing.T) {
	const want = "Circular delegation prevented: app/main -> code-reviewer -> code-reviewer"
	w := newWorld(t, worldConfig{
		task: task.Options{MaxDepth: 3},
		main: []scripted.Turn{
			scripted.When(scripted.SystemContains("You review code."),
				scripted.ToolCall("Task", `{"subagent_type":"code-reviewer","description":"Review it again","prompt":"Review src/login.go"}`),
				scripted.Func(func(_ context.Context, req *model.Request) (*model.Response, error) {
					last := req.Messages[len(req.Messages)-1]
					return &model.Response{Message: model.AssistantMessage("the nested call said: " + last.Content)}, nil
				}),
			),
		},
	})
	res := result(t, w.call(t, w.main, map[string]any{"subagent_type": "code-reviewer", "description": "Review the login", "prompt": "Review src/login.go", "model": "main"}))
	assert.Equal(t, "success", res.Status)
	assert.Equal(t, "the nested call said: "+want, res.Data.Result)
	assert.Equal(t, []task.ToolCount{{Tool: "Task", Count: 1}}, res.Data.ToolSummary)
}

// Invalid input is a validation failure naming the field; no agent runs.
func TestInvalidInputNamesTheField(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"description missing", `{"prompt":"Where is Login?","subagent_type":"reader"}`, "Tool validation failed: Task: description: is required"},
		{"prompt missing", `{"description":"Find the code","subagent_type":"reader"}`, "Tool validation failed: Task: prompt: is required"},
		{"subagent_type missing", `{"description":"Find the code","prompt":"Where?"}`, "Tool validation failed: Task: subagent_type: is required"},
		{"blank description", `{"description":"  ","prompt":"Where?","subagent_type":"reader"}`,
			"Tool validation failed: Task: description: is required: give a short (3-5 word) description of the task"},
		{"blank prompt", `{"description":"Find the code","prompt":"\n","subagent_type":"reader"}`,
			"Tool validation failed: Task: prompt: is required: give the agent its whole task, since it sees nothing else"},
		{"description of two lines", `{"description":"Find\nthe code","prompt":"Where?","subagent_type":"reader"}`,
			"Tool validation failed: Task: description: must be one line (a short summary, 3 to 5 words); put the details in prompt"},
		{"description too long", `{"description":"` + strings.Repeat("word ", 40) + `x","prompt":"Where?","subagent_type":"reader"}`,
			"Tool validation failed: Task: description: is 201 characters long; give at most 200 (a short summary, 3 to 5 words) and put the details in prompt"},
		{"prompt too long", `{"description":"Find the code","prompt":"` + strings.Repeat("x", 100_001) + `","subagent_type":"reader"}`,
			"Tool validation failed: Task: prompt: is 100001 characters long; give at most 100000"},
		{"max_turns negative", `{"description":"Find the code","prompt":"Where?","subagent_type":"reader","max_turns":-1}`,
			"Tool validation failed: Task: max_turns: must be from 1 to 10000, or left out"},
		{"max_turns not a number", `{"description":"Find the code","prompt":"Where?","subagent_type":"reader","max_turns":"ten"}`,
			"Tool validation failed: Task: max_turns: must be an integer, got a string"},
		{"unknown field", `{"description":"Find the code","prompt":"Where?","subagent_type":"reader","priority":1}`,
			"Tool validation failed: Task: priority: unknown field; allowed: description, prompt, subagent_type, model, max_turns, name, run_in_background, resume, team_name, mode"},
		{"name of two lines", `{"description":"Find the code","prompt":"Where?","subagent_type":"reader","name":"a\nb"}`,
			"Tool validation failed: Task: name: must be one line"},
		{"unknown model", `{"description":"Find the code","prompt":"Where?","subagent_type":"reader","model":"gpt-9"}`,
			`Tool validation failed: Task: model: "gpt-9" is not a model this program knows; use main, light, inherit, haiku, opus or sonnet, or leave model out`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t, worldConfig{})
			out := w.call(t, scripted.New(), tt.in)
			var ve *tools.ValidationError
			require.ErrorAs(t, out.Err, &ve)
			assert.Equal(t, tt.want, out.Text)
			assert.Empty(t, w.light.Calls())
			assert.Empty(t, w.main.Calls())
		})
	}
}

// The 3 to 5 words of a description are guidance for the model, not a
// limit: a longer one-line description runs the agent, and ends its system
// prompt as written.
func TestALongerDescriptionIsAccepted(t *testing.T) {
	for _, desc := range []string{
		"Find",
		"Find every place that reads or compares passwords in the login code",
		strings.Repeat("é", 200),
	} {
		t.Run(desc[:4], func(t *testing.T) {
			w := newWorld(t, worldConfig{light: []scripted.Turn{scripted.Text("In src/login.go.")}})
			out := w.call(t, w.main, input("reader", desc, "Where is Login?"))
			require.True(t, out.Success, out.Text)
			reqs := childRequests(w.light)
			require.Len(t, reqs, 1)
			assert.Contains(t, reqs[0].Messages[0].Content, "\n\n# Task\n"+desc+"\n")
		})
	}
}

// An agent that failed to load is found by its name, and the call says
// why it cannot start.
func TestABrokenAgentFailsToInitialize(t *testing.T) {
	w := newWorld(t, worldConfig{})
	reg := agents.Load(agents.Options{NoBuiltins: true, AgentsJSON: []byte(`{"deployer": {"prompt": "You deploy."}}`)})
	require.NotEmpty(t, reg.Errors())
	tool, err := task.Tool(reg, w.engine, w.router, task.Options{})
	require.NoError(t, err)
	out := tool.Call(ctx, &tools.Invocation{Session: w.s}, args(t, input("deployer", "Deploy the app", "Deploy it.")))
	assert.False(t, out.Success)
	assert.True(t, strings.HasPrefix(out.Text, "Failed to initialize subagent: --agents"), out.Text)
	assert.Contains(t, out.Text, "description is required")
}
