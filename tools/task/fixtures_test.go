package task_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/offshoot-dev/offshoot/agents"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/sessiontest"
	"github.com/offshoot-dev/offshoot/subagent"
	"github.com/offshoot-dev/offshoot/tools"
	"github.com/offshoot-dev/offshoot/tools/task"
	"github.com/offshoot-dev/offshoot/tools/vfs"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var ctx = context.Background()

var t0 = time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)

// The agents of the tests.
var testAgents = map[string]agents.Definition{
	"reader": {
		Description: "Reads files and answers questions about them. Use it for lookups.",
		Prompt:      "You read code and answer questions about it.",
		Tools:       []string{"read_file", "grep", "glob", "ls"},
		Model:       "light",
	},
	"writer": {
		Description: "Writes files.",
		Prompt:      "You write the files you are asked for.",
		Tools:       []string{"read_file", "write_file"},
		Model:       "main",
	},
	"code-reviewer": {
		Description: "Reviews code.",
		Prompt:      "You review code. Templates such as {{ .Secret }} stay as they are.",
	},
	"forker": {
		Description: "Carries on from the conversation so far.",
		Prompt:      "You continue the work in progress.",
		ForkContext: true,
	},
	"shell": {
		Description: "Runs shell commands.",
		Prompt:      "You run commands.",
		Tools:       []string{"run_shell"}, // a tool this program does not have
	},
}

// world is a main agent with the VFS and Task sections over testAgents, a
// session holding two files, and three models: main and light behind the
// router, and the caller's own.
type world struct {
	reg         *agents.Registry
	engine      *subagent.Engine
	router      *model.Router
	main, light *scripted.Model
	parent      *prompt.Prompt
	s           *session.Session
}

type worldConfig struct {
	agents  map[string]agents.Definition
	noAgent bool
	engine  subagent.Options
	task    task.Options
	main    []scripted.Turn
	light   []scripted.Turn
	// tools are more tools of the main agent's, which agents without a
	// tools list inherit.
	tools []tools.Tool
	// project is a project directory whose agent files load too.
	project string
}

func newWorld(t testing.TB, cfg worldConfig) *world {
	t.Helper()
	defs := cfg.agents
	if defs == nil {
		defs = testAgents
	}
	vfsTools, err := vfs.Tools(vfs.Options{})
	require.NoError(t, err)
	opts := agents.Options{NoBuiltins: true, ToolNames: append(vfsTools.Names(), task.ToolName), ProjectDir: cfg.project}
	if !cfg.noAgent {
		opts.Agents = defs
	}
	// The router's models have ids of their own, as configured models do.
	w := &world{reg: agents.Load(opts), main: scripted.New(cfg.main...).Named("gpt-main"), light: scripted.New(cfg.light...).Named("gpt-light")}
	require.Empty(t, w.reg.Errors())
	w.router, err = model.NewStaticRouter(map[string]model.Model{model.Main: w.main, model.Light: w.light}, nil)
	require.NoError(t, err)
	var n atomic.Int64
	eo := cfg.engine
	eo.NewID = func() string { return fmt.Sprintf("agent-%d", n.Add(1)) }
	eo.Clock = func() time.Time { return t0 }
	w.engine = subagent.New(eo)
	w.parent, err = prompt.New("app", "main",
		prompt.Markdown[prompt.NoParams]("Assistant", "You are a coding assistant.", prompt.WithTools(cfg.tools...)),
		vfs.Section(vfs.Options{}),
		task.Section(w.reg, w.engine, w.router, cfg.task),
	)
	require.NoError(t, err)
	// Background agents end before the test does.
	t.Cleanup(w.engine.Tasks().StopAll)

	w.s = sessiontest.New(t)
	r, err := w.parent.Render()
	require.NoError(t, err)
	require.NoError(t, r.Tools.Install(context.Background(), w.s))
	require.NoError(t, w.s.Dispatch(ctx,
		vfs.FileWritten{Path: "src/login.go", Content: "package src\n\nfunc Login() {}\n", Version: 1},
		vfs.FileWritten{Path: "README.md", Content: "# App\n", Version: 1},
	))
	return w
}

// tools returns the main agent's rendered toolset.
func (w *world) tools(t testing.TB) tools.Toolset {
	t.Helper()
	r, err := w.parent.Render()
	require.NoError(t, err)
	return r.Tools
}

// call calls the Task tool as the main agent's evaluation would, on the
// caller's model m (named "caller").
func (w *world) call(t testing.TB, m model.Model, in any) tools.Outcome {
	t.Helper()
	set := w.tools(t)
	tool, ok := set.Lookup(task.ToolName)
	if !ok {
		// The section is off without agents; the tool still answers.
		var err error
		tool, err = task.Tool(w.reg, w.engine, w.router, task.Options{})
		require.NoError(t, err)
	}
	return tool.Call(subagent.WithRun(ctx), invocationOn(w.s, set, m), args(t, in))
}

// invocationOn is the invocation of a call by the main agent on s, with
// the toolset set, answered by m.
func invocationOn(s *session.Session, set tools.Toolset, m model.Model) *tools.Invocation {
	return &tools.Invocation{Session: s, Bus: s.Bus(), CallID: "call-1", PromptNS: "app", PromptKey: "main", Tools: set, Model: m, ModelName: "caller"}
}

// evaluate runs the main agent on m with a user message.
func (w *world) evaluate(t testing.TB, m model.Model, user string) *runner.Response {
	t.Helper()
	resp, err := runner.Evaluate(ctx, runner.Request{Prompt: w.parent, Session: w.s, Model: m, ModelName: "caller", UserMessage: user})
	require.NoError(t, err)
	return resp
}

// result returns the Result an outcome carries.
func result(t testing.TB, out tools.Outcome) task.Result {
	t.Helper()
	require.NoError(t, out.Err, out.Text)
	res, ok := out.Value.(task.Result)
	require.True(t, ok, "value %T", out.Value)
	return res
}

func args(t testing.TB, v any) json.RawMessage {
	t.Helper()
	if s, ok := v.(string); ok {
		return json.RawMessage(s)
	}
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}

// input is a call's input as a model writes it.
func input(agent, description, prompt string) map[string]any {
	return map[string]any{"subagent_type": agent, "description": description, "prompt": prompt}
}

// childRequests returns the requests m received from Task children (whose
// system message has the "# Task" heading).
func childRequests(m *scripted.Model) []*model.Request {
	var out []*model.Request
	for _, c := range m.Calls() {
		msgs := c.Request.Messages
		isolated := len(msgs) > 0 && msgs[0].Role == model.RoleSystem && strings.Contains(msgs[0].Content, "\n\n# Task\n")
		forked := slices.ContainsFunc(msgs, func(m model.Message) bool {
			return m.Role == model.RoleUser && strings.HasPrefix(m.Content, "You are now a subagent:")
		})
		if isolated || forked {
			out = append(out, c.Request)
		}
	}
	return out
}

func toolNames(req *model.Request) []string {
	names := make([]string, len(req.Tools))
	for i, s := range req.Tools {
		names[i] = s.Name
	}
	return names
}

// watchdog bounds every wait of these tests.
const watchdog = 5 * time.Second

// within returns a context that ends after the watchdog, or with the test.
func within(t testing.TB) context.Context {
	t.Helper()
	c, cancel := context.WithTimeout(ctx, watchdog)
	t.Cleanup(cancel)
	return c
}

// callTool calls the main agent's tool name (TaskOutput, TaskStop) on s,
// as the main agent's evaluation would.
func (w *world) callTool(t testing.TB, s *session.Session, name string, in any) tools.Outcome {
	t.Helper()
	set := w.tools(t)
	tool, ok := set.Lookup(name)
	require.True(t, ok, "the main agent has no %s", name)
	return tool.Call(subagent.WithRun(ctx), invocationOn(s, set, w.main), args(t, in))
}

// gate is a model turn that answers text once release is closed, or fails
// when its context ends first.
func gate(release <-chan struct{}, text string) scripted.Turn {
	return scripted.Func(func(ctx context.Context, _ *model.Request) (*model.Response, error) {
		select {
		case <-release:
			return &model.Response{Message: model.AssistantMessage(text)}, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	})
}
