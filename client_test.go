package offshoot_test

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/offshoot-dev/offshoot"
	"github.com/offshoot-dev/offshoot/agents"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/subagent"
	"github.com/offshoot-dev/offshoot/tools"
	"github.com/offshoot-dev/offshoot/tools/vfs"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var ctx = context.Background()

// watchdog bounds every wait of these tests.
const watchdog = 5 * time.Second

func within(t testing.TB) context.Context {
	t.Helper()
	c, cancel := context.WithTimeout(ctx, watchdog)
	t.Cleanup(cancel)
	return c
}

// The agents of the tests.
var testAgents = map[string]agents.Definition{
	"reviewer": {Description: "Reviews code.", Prompt: "You review code.", Tools: []string{"read_file", "grep"}},
	"watcher":  {Description: "Watches a build.", Prompt: "You watch builds.", Model: "light"},
}

// newClient returns a client on m over testAgents and those of opts,
// closed with the test.
func newClient(t testing.TB, m model.Model, opts offshoot.Options) *offshoot.Client {
	t.Helper()
	opts.Model = m
	defs := maps.Clone(testAgents)
	maps.Copy(defs, opts.Agents)
	opts.Agents = defs
	c, err := offshoot.NewClient(opts)
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, c.Close()) })
	return c
}

// collect runs a query to its end under the watchdog and returns what it
// yielded.
func collect(t testing.TB, c *offshoot.Client, prompt string) []offshoot.Message {
	t.Helper()
	var out []offshoot.Message
	for msg := range c.Query(within(t), prompt) {
		out = append(out, msg)
	}
	require.NotEmpty(t, out)
	return out
}

// final returns the ResultMessage that ends msgs.
func final(t testing.TB, msgs []offshoot.Message) offshoot.ResultMessage {
	t.Helper()
	r, ok := msgs[len(msgs)-1].(offshoot.ResultMessage)
	require.True(t, ok, "the last message is a %T", msgs[len(msgs)-1])
	return r
}

func TestNewClientWithoutAModel(t *testing.T) {
	_, err := offshoot.NewClient(offshoot.Options{Agents: testAgents})
	require.ErrorIs(t, err, offshoot.ErrNoModel)
	assert.EqualError(t, err, "offshoot: no model configured: set Options.Model (any model.Model) or Options.Router (main and light, from model.NewRouter)")

	r, err := model.NewStaticRouter(map[string]model.Model{model.Main: scripted.New()}, nil)
	require.NoError(t, err)
	_, err = offshoot.NewClient(offshoot.Options{Router: r, ModelName: "gpt-9"})
	require.ErrorIs(t, err, model.ErrUnknownModel)
	assert.ErrorContains(t, err, "offshoot: the main agent's model: ")
}

// The agents: the built-ins and the program's, with the problems of those
// that did not load.
func TestAgents(t *testing.T) {
	c := newClient(t, scripted.New(), offshoot.Options{Agents: map[string]agents.Definition{"broken": {Description: "No prompt."}}})
	var names []string
	for _, d := range c.Agents().All() {
		names = append(names, d.Name)
	}
	assert.Equal(t, []string{"explore", "general-purpose", "plan", "reviewer", "summary", "watcher"}, names)
	require.Len(t, c.Agents().Errors(), 1)
	assert.Contains(t, c.Agents().Errors()[0].Error(), "broken")
}

// The files: a directory copied in read-only, and files written in.
func TestFiles(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "src", ".git"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "src", "main.go"), []byte("package main\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "src", ".git", "HEAD"), []byte("ref\n"), 0o644))
	c := newClient(t, scripted.New(), offshoot.Options{
		Mounts: []vfs.Mount{offshoot.DirectoryMount(dir, "project")},
		Files:  map[string]string{"notes/todo.md": "- review\n"},
	})
	var paths []string
	for f := range vfs.Files(c.Session()).All() {
		paths = append(paths, f.Path)
	}
	assert.Equal(t, []string{"notes/todo.md", "project/src/main.go"}, paths, ".git left out")
}

// The client keeps its conversation in the session Options.Session gives:
// a new client on it carries on.
func TestSessionCarriesOn(t *testing.T) {
	s, err := session.New()
	require.NoError(t, err)
	defer s.Close()
	first, err := offshoot.NewClient(offshoot.Options{Model: scripted.New(scripted.Text("Noted: the build is red.")), Session: s})
	require.NoError(t, err)
	assert.Equal(t, "Noted: the build is red.", final(t, collect(t, first, "The build is red.")).Text)
	require.NoError(t, first.Close())
	assert.False(t, s.Closed(), "the program's session stays open")

	m := scripted.New(scripted.Text("It was red."))
	second, err := offshoot.NewClient(offshoot.Options{Model: m, Session: s})
	require.NoError(t, err)
	defer second.Close()
	assert.Equal(t, "It was red.", final(t, collect(t, second, "What colour was the build?")).Text)
	msgs := m.Calls()[0].Request.Messages
	require.Len(t, msgs, 4)
	assert.Equal(t, []model.Message{
		model.UserMessage("The build is red."), model.AssistantMessage("Noted: the build is red."), model.UserMessage("What colour was the build?"),
	}, msgs[1:])
	assert.Equal(t, 1, countEvaluations(s), "one conversation, carried on")
}

func countEvaluations(s *session.Session) int { return len(runner.Evaluations(s.Snapshot())) }

// The main agent can play one of the agents: its prompt, its tools, its
// model.
func TestMainAgent(t *testing.T) {
	mainModel, lightModel := scripted.New(), scripted.New(scripted.Text("Reviewed."))
	r, err := model.NewStaticRouter(map[string]model.Model{model.Main: mainModel, model.Light: lightModel}, nil)
	require.NoError(t, err)
	defs := map[string]agents.Definition{"reviewer": {Description: "Reviews code.", Prompt: "You review code.", Tools: []string{"Read", "Grep"}, Model: "light"}}
	c, err := offshoot.NewClient(offshoot.Options{Router: r, Agents: defs, MainAgent: "Reviewer"})
	require.NoError(t, err)
	defer c.Close()
	assert.Equal(t, "Reviewed.", final(t, collect(t, c, "Review main.go.")).Text)
	require.Len(t, lightModel.Calls(), 1, "the agent's model")
	req := lightModel.Calls()[0].Request
	assert.Contains(t, req.Messages[0].Content, "You review code.")
	assert.NotContains(t, req.Messages[0].Content, offshoot.DefaultSystemPrompt)
	var names []string
	for _, s := range req.Tools {
		names = append(names, s.Name)
	}
	assert.Equal(t, []string{"read_file", "grep"}, names, "its tools")

	_, err = offshoot.NewClient(offshoot.Options{Router: r, Agents: defs, MainAgent: "debugger"})
	assert.EqualError(t, err, "offshoot: the main agent: Subagent 'debugger' not found. Available: explore, general-purpose, plan, reviewer, summary")
}

// The depth of Task delegation: 1 by default (the agents the main agent
// starts have no Task), MaxDepth 2 or the engine's own limit of 2 give
// them Task, and their agents none; MaxDepth wins over the engine's.
func TestTheDepthOfDelegation(t *testing.T) {
	team := map[string]agents.Definition{
		"lead":   {Description: "Leads.", Prompt: "You lead the work."},
		"writer": {Description: "Writes.", Prompt: "You write notes."},
	}
	hasTask := func(req *model.Request) bool {
		for _, s := range req.Tools {
			if s.Name == "Task" {
				return true
			}
		}
		return false
	}
	tests := []struct {
		name     string
		opts     offshoot.Options
		leadTask bool
	}{
		{"default", offshoot.Options{}, false},
		{"MaxDepth 2", offshoot.Options{MaxDepth: 2}, true},
		{"the engine's depth", offshoot.Options{Subagents: subagent.Options{MaxDepth: 2}}, true},
		{"MaxDepth wins", offshoot.Options{MaxDepth: 1, Subagents: subagent.Options{MaxDepth: 3}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var leadTools, writerTools atomic.Pointer[bool]
			m := scripted.New(
				scripted.When(scripted.SystemContains("You write notes."), scripted.Func(func(_ context.Context, req *model.Request) (*model.Response, error) {
					has := hasTask(req)
					writerTools.Store(&has)
					return &model.Response{Message: model.AssistantMessage("Wrote it.")}, nil
				})),
				scripted.When(scripted.SystemContains("You lead the work."), scripted.Func(func(_ context.Context, req *model.Request) (*model.Response, error) {
					has := hasTask(req)
					leadTools.Store(&has)
					if !has {
						return &model.Response{Message: model.AssistantMessage("Led alone.")}, nil
					}
					return &model.Response{Message: model.AssistantMessage("", model.ToolCall{ID: "w1", Name: "Task",
						Arguments: `{"subagent_type":"writer","description":"Write the notes","prompt":"Write notes/a.md."}`})}, nil
				}), scripted.Text("Led.")),
				scripted.ToolCall("Task", `{"subagent_type":"lead","description":"Lead the work","prompt":"Lead."}`),
				scripted.Text("Done."),
			)
			opts := tt.opts
			opts.Model, opts.Agents = m, team
			c, err := offshoot.NewClient(opts)
			require.NoError(t, err)
			t.Cleanup(func() { assert.NoError(t, c.Close()) })
			require.NoError(t, final(t, collect(t, c, "Get the notes written.")).Err)

			require.NotNil(t, leadTools.Load(), "the lead ran")
			assert.Equal(t, tt.leadTask, *leadTools.Load(), "the lead has Task")
			if !tt.leadTask {
				assert.Nil(t, writerTools.Load(), "no writer ran")
				return
			}
			require.NotNil(t, writerTools.Load(), "the writer ran")
			assert.False(t, *writerTools.Load(), "the writer, at the limit, has no Task")
		})
	}
}

// The main agent's own tools, in the order its model is offered them; a
// main agent that plays an agent has that agent's.
func TestTools(t *testing.T) {
	lookup, err := tools.New("lookup", "Look a word up.", func(context.Context, *tools.Invocation, struct{}) (tools.Result[string], error) {
		return tools.OK("found", ""), nil
	})
	require.NoError(t, err)
	m := scripted.New(scripted.Text("Done."))
	c := newClient(t, m, offshoot.Options{Tools: []tools.Tool{lookup}, DispatchSubagent: prompt.NewRegistry()})
	want := []string{
		"lookup",
		"ls", "read_file", "write_file", "edit_file", "glob", "grep", "rm",
		"planning_setup_plan", "planning_add_step", "planning_update_step", "planning_mark_step", "planning_clear_plan", "planning_read_plan",
		"Task", "TaskOutput", "TaskStop",
		"dispatch_subagent",
	}
	assert.Equal(t, want, c.Tools().Names())
	require.NoError(t, final(t, collect(t, c, "Hi.")).Err)
	var offered []string
	for _, s := range m.Calls()[0].Request.Tools {
		offered = append(offered, s.Name)
	}
	assert.Equal(t, want, offered, "what the model is offered")

	playing := newClient(t, scripted.New(), offshoot.Options{MainAgent: "reviewer"})
	assert.Equal(t, []string{"read_file", "grep"}, playing.Tools().Names())
}
