package mcp_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/subagent"
	"github.com/offshoot-dev/offshoot/tools"
	"github.com/offshoot-dev/offshoot/tools/mcp"
)

func agentPrompt(t testing.TB, key, role string) *prompt.Prompt {
	t.Helper()
	p, err := prompt.New("agents", key, prompt.Markdown[prompt.NoParams]("Role", role))
	require.NoError(t, err)
	return p
}

func newSession(t testing.TB) *session.Session {
	t.Helper()
	s, err := session.New()
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	return s
}

// toolMessages returns the text of the tool messages of a conversation.
func toolMessages(msgs []model.Message) []string {
	var out []string
	for _, m := range msgs {
		if m.Role == model.RoleTool {
			out = append(out, m.Content)
		}
	}
	return out
}

func specNames(req *model.Request) []string {
	var names []string
	for _, s := range req.Tools {
		names = append(names, s.Name)
	}
	return names
}

func TestRoundTripThroughTheRunner(t *testing.T) {
	m := newManager(t, map[string]mcp.ServerConfig{"notes": stdioConfig(t)})
	ts := toolsOf(t, m, "notes")
	s := newSession(t)
	llm := scripted.New(
		scripted.ToolCall("mcp__notes__echo", `{"text":"hi"}`),
		scripted.ToolCall("mcp__notes__fail", `{"message":"the notebook is locked"}`),
		scripted.Text("The server said hi, then that the notebook is locked."),
	)
	resp, err := runner.Evaluate(ctx, runner.Request{
		Prompt: agentPrompt(t, "main", "You answer questions."), Session: s,
		UserMessage: "Say hi through the notes server.", Model: llm, Tools: ts,
	})
	require.NoError(t, err)
	assert.Equal(t, "The server said hi, then that the notebook is locked.", resp.Text)
	assert.Equal(t, []string{"mcp__notes__echo", "mcp__notes__fail"}, resp.ToolsUsed)
	assert.Equal(t, []string{"echo: hi", "the notebook is locked"}, toolMessages(resp.Messages))

	var records []runner.ToolInvoked
	for r := range session.All[runner.ToolInvoked](s) {
		records = append(records, r)
	}
	require.Len(t, records, 2)
	assert.True(t, records[0].Success)
	assert.JSONEq(t, `{"text":"hi"}`, string(records[0].Arguments))
	assert.False(t, records[1].Success, "an isError result is a failed call")

	first := llm.Calls()[0].Request
	assert.Equal(t, ts.Names(), specNames(first))
	echo, _ := ts.Lookup("mcp__notes__echo")
	i := slices.Index(specNames(first), "mcp__notes__echo")
	assert.JSONEq(t, string(echo.Spec().Params), string(first.Tools[i].Parameters), "the model gets the server's schema")
	assert.Equal(t, "Send the text back.", first.Tools[i].Description)
}

func TestRunnerToolFilterDropsServers(t *testing.T) {
	m := newManager(t, map[string]mcp.ServerConfig{"notes": inMemory(t), "other": inMemory(t)})
	ts := toolsOf(t, m, "notes", "other")
	for _, tt := range []struct {
		name   string
		filter tools.Filter
		want   func(string) bool
	}{
		{"deny one server", tools.Filter{Deny: []string{"mcp__notes"}}, func(n string) bool { return strings.HasPrefix(n, "mcp__other__") }},
		{"deny every MCP tool", tools.Filter{Deny: []string{"mcp__*"}}, func(string) bool { return false }},
		{"allow one server", tools.Filter{Allow: []string{"mcp__notes__*"}}, func(n string) bool { return strings.HasPrefix(n, "mcp__notes__") }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			llm := scripted.New(scripted.Text("ok"))
			_, err := runner.Evaluate(ctx, runner.Request{
				Prompt: agentPrompt(t, "main", "You answer."), Session: newSession(t), Model: llm,
				Tools: ts, ToolFilter: tt.filter,
			})
			require.NoError(t, err)
			var want []string
			for _, n := range ts.Names() {
				if tt.want(n) {
					want = append(want, n)
				}
			}
			assert.Equal(t, want, specNames(llm.Calls()[0].Request))
		})
	}
}

func TestSlowToolIsCutByTheRunDeadline(t *testing.T) {
	m := newManager(t, map[string]mcp.ServerConfig{"notes": stdioConfig(t)})
	ts := toolsOf(t, m, "notes")
	llm := scripted.New(scripted.ToolCall("mcp__notes__slow", `{"ms":60000}`), scripted.Text("never"))
	cctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	started := time.Now()
	_, err := runner.Evaluate(cctx, runner.Request{
		Prompt: agentPrompt(t, "main", "You wait."), Session: newSession(t), Model: llm, Tools: ts,
	})
	assert.Less(t, time.Since(started), 5*time.Second)
	require.Error(t, err)
	assert.True(t, errors.Is(err, context.DeadlineExceeded), err.Error())
	var ee *runner.EvaluationError
	require.ErrorAs(t, err, &ee)
	assert.Equal(t, runner.PhaseTool, ee.Phase)

	assert.Equal(t, "echo: after", call(t, ts, "mcp__notes__echo", `{"text":"after"}`).Text, "the server is still usable")
	assert.Empty(t, m.Warnings())
}

func TestSubagentInheritsMCPTools(t *testing.T) {
	m := newManager(t, map[string]mcp.ServerConfig{"notes": stdioConfig(t)})
	ts := toolsOf(t, m, "notes")
	engine := subagent.New(subagent.Options{})

	t.Run("inherited", func(t *testing.T) {
		llm := scripted.New(
			scripted.ToolCall("mcp__notes__echo", `{"text":"from the child"}`),
			scripted.Text("The child used the notes server."),
		)
		out, err := engine.Run(ctx, subagent.Spec{Name: "researcher", Parent: newSession(t), Request: runner.Request{Prompt: agentPrompt(t, "researcher", "You research."), UserMessage: "Use the notes server.", Model: llm, Tools: ts}})
		require.NoError(t, err)
		assert.Equal(t, "The child used the notes server.", out.Text)
		assert.Equal(t, []string{"echo: from the child"}, toolMessages(out.Response.Messages))
		assert.Subset(t, specNames(llm.Calls()[0].Request), ts.Names())
	})
	t.Run("denied", func(t *testing.T) {
		llm := scripted.New(scripted.Text("No MCP tools here."))
		_, err := engine.Run(ctx, subagent.Spec{Name: "reviewer", Parent: newSession(t), Request: runner.Request{Prompt: agentPrompt(t, "reviewer", "You review."), UserMessage: "Review.", Model: llm, Tools: ts, ToolFilter: tools.Filter{Deny: []string{"mcp__*"}}}})
		require.NoError(t, err)
		assert.Empty(t, specNames(llm.Calls()[0].Request))
	})
}
