package offshoot_test

import (
	"context"
	"iter"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/project"
	"github.com/offshoot-dev/offshoot/tools"
)

// collectSeq runs a query's messages to their end and returns them.
func collectSeq(t testing.TB, seq iter.Seq[offshoot.Message]) []offshoot.Message {
	t.Helper()
	var out []offshoot.Message
	for msg := range seq {
		out = append(out, msg)
	}
	require.NotEmpty(t, out)
	return out
}

// toolNamesOf returns the names of the tools a request offered.
func toolNamesOf(req *model.Request) []string {
	var out []string
	for _, s := range req.Tools {
		out = append(out, s.Name)
	}
	return out
}

// A slash command's query: its text expanded is the message; its
// allowed-tools are the turn's only tools and its model the turn's model;
// the next query has them all back.
func TestQueryCommand(t *testing.T) {
	mainModel := scripted.New(scripted.Text("Chatted."))
	light := scripted.New(scripted.Text("Reviewed."))
	r, err := model.NewStaticRouter(map[string]model.Model{model.Main: mainModel, model.Light: light}, nil)
	require.NoError(t, err)
	c, err := offshoot.NewClient(offshoot.Options{Router: r})
	require.NoError(t, err)
	defer c.Close()

	review := project.Command{Name: "review", Body: "Review $1 for $2.", AllowedTools: []string{"Read", "Grep", "Bash(git diff:*)"}, Model: "haiku"}
	res := final(t, collectSeq(t, c.QueryCommand(within(t), review, `main.go "race conditions"`)))
	require.NoError(t, res.Err)
	assert.Equal(t, "Reviewed.", res.Text)
	require.Len(t, light.Calls(), 1, "haiku is the light model")
	req := light.Calls()[0].Request
	assert.Equal(t, model.UserMessage("Review main.go for race conditions."), req.Messages[len(req.Messages)-1])
	assert.Equal(t, []string{"read_file", "grep"}, toolNamesOf(req))

	assert.Equal(t, "Chatted.", final(t, collect(t, c, "Hello.")).Text)
	assert.Contains(t, toolNamesOf(mainModel.Calls()[0].Request), "write_file", "the next query has every tool")

	none := project.Command{Name: "think", Body: "Think.", AllowedTools: []string{}}
	light2 := scripted.New(scripted.Text("Thought."))
	r2, err := model.NewStaticRouter(map[string]model.Model{model.Main: light2}, nil)
	require.NoError(t, err)
	c2, err := offshoot.NewClient(offshoot.Options{Router: r2})
	require.NoError(t, err)
	defer c2.Close()
	final(t, collectSeq(t, c2.QueryCommand(within(t), none, "")))
	assert.Empty(t, toolNamesOf(light2.Calls()[0].Request), "an empty allowed-tools gives no tool")

	bad := project.Command{Name: "odd", Body: "x", Model: "gpt-99"}
	res = final(t, collectSeq(t, c.QueryCommand(within(t), bad, "")))
	require.Error(t, res.Err)
	assert.Contains(t, res.Err.Error(), `offshoot: the command /odd: its model "gpt-99"`)
}

// Public slash commands whose allowed-tools are argument rules
// (claude-agent-sdk-python's /commit: Bash(git add:*), Bash(git
// status:*), Bash(git commit:*)) keep the tool they name for their turn,
// as Claude Code lets those commands run; the permission rules decide
// each call. /re-review and github-mcp-server's /add-tool mix names and
// rules (Agent is Task).
func TestQueryCommandArgumentRules(t *testing.T) {
	bash, err := tools.New("bash", "Run a command.", func(context.Context, *tools.Invocation, struct{}) (tools.Result[string], error) {
		return tools.OK("ran", ""), nil
	})
	require.NoError(t, err)
	for _, tc := range []struct {
		repo, name string
		want       []string
	}{
		{"claude-agent-sdk-python", "commit", []string{"bash"}},
		{"claude-agent-sdk-python", "re-review", []string{"bash", "read_file", "glob", "grep"}},
		{"github-mcp-server", "add-tool", []string{"bash", "read_file", "write_file", "edit_file", "glob", "grep", "Task"}},
	} {
		dir := t.TempDir()
		require.NoError(t, os.CopyFS(dir, os.DirFS("project/testdata/corpus/"+tc.repo)))
		cmd, ok := project.LoadCommands(project.Options{Dir: dir}).Find(tc.name)
		require.True(t, ok, tc.name)
		m := scripted.New(scripted.Text("Done."))
		c := newClient(t, m, offshoot.Options{Tools: []tools.Tool{bash}})
		require.NoError(t, final(t, collectSeq(t, c.QueryCommand(within(t), cmd, "328"))).Err)
		assert.Equal(t, tc.want, toolNamesOf(m.Calls()[0].Request), tc.name)
	}
}
