package agents_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/agents"
	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/tools"
)

func TestListing(t *testing.T) {
	r := agents.Load(agents.Options{
		NoBuiltins: true,
		MCPServers: []string{"github"},
		Agents: map[string]agents.Definition{
			"reviewer":  {Description: "Reviews code.\nUse it after changes.\n\n<example>review</example>", Prompt: "x", Tools: []string{"Read", "Grep", "Bash"}},
			"writer":    {Description: "Writes docs.", Prompt: "x", DisallowedTools: []string{"Task", "rm"}},
			"continuer": {Description: "Carries on.", Prompt: "x", ForkContext: true},
			"helper":    {Description: "Helps.", Prompt: "x"},
			"quiet":     {Description: "Summarizes.", Prompt: "x", Tools: []string{}},
			"shell":     {Description: "Runs commands.", Prompt: "x", Tools: []string{"Bash"}},
			"issues":    {Description: "Files issues.", Prompt: "x", Tools: []string{"mcp__github__*", "mcp__jira__create", "planning_*"}, DisallowedTools: []string{"planning_clear_plan"}},
			"read-only": {Description: "Reads.", Prompt: "x", Tools: []string{"read_file", "write_file"}, DisallowedTools: []string{"write_file"}},
		},
	})
	assert.Equal(t, `- continuer: Carries on. (Tools: all; sees this conversation)
- helper: Helps. (Tools: all)
- issues: Files issues. (Tools: mcp__github__*, planning_*)
- quiet: Summarizes. (Tools: none)
- read-only: Reads. (Tools: read_file)
- reviewer: Reviews code.
  Use it after changes.

  <example>review</example> (Tools: read_file, grep)
- shell: Runs commands. (Tools: none)
- writer: Writes docs. (Tools: all except Task, rm)
`, r.Listing())
}

// The section shows the agents and the guidance; it is off when there are
// none; options reach prompt.Markdown.
func TestSection(t *testing.T) {
	r := agents.Load(agents.Options{NoBuiltins: true, Agents: map[string]agents.Definition{
		"reviewer": {Description: "Reviews {{ code }}.", Prompt: "x", Model: "light"},
	}})
	task, err := tools.New("Task", "Hand a task to a subagent.",
		func(context.Context, *tools.Invocation, noParams) (tools.Result[noResult], error) {
			return tools.OK("done", noResult{}), nil
		})
	require.NoError(t, err)
	p, err := prompt.New("main", "agent", agents.Section(r, prompt.WithTools(task)))
	require.NoError(t, err)
	out, err := p.Render()
	require.NoError(t, err)
	assert.Equal(t, `## 1. Agents

Use the Task tool to hand a self-contained task to a subagent. A subagent works on its own, with
its own instructions and tools, and returns only its final answer, so delegating keeps this
conversation short.

Available agents (the subagent_type to ask for, and when to use each):
- reviewer: Reviews {{ code }}. (Tools: all)

When to delegate:
- Delegate research that takes many searches or reads, work that matches an agent's description,
  and independent tasks: several Task calls in one turn run side by side.
- Do not delegate what one or two tool calls of your own can do.
- Write a complete prompt: a subagent sees only the task you give it, not this conversation
  (unless its entry says it sees this conversation). Say what it should return.
- Choose the model: light for simple tasks such as lookups, summaries and quick searches; main for
  complex reasoning, design and planning. Leave it out to use the agent's own choice.
- The subagent's answer is for you, not for the user: pass on what matters.`, out.Text)
	assert.Equal(t, []string{"Task"}, out.Tools.Names())

	empty, err := prompt.New("main", "agent", agents.Section(agents.Load(agents.Options{NoBuiltins: true}), prompt.WithTools(task)))
	require.NoError(t, err)
	out, err = empty.Render()
	require.NoError(t, err)
	assert.Empty(t, out.Text)
	assert.Zero(t, out.Tools.Len())

	nilRegistry, err := prompt.New("main", "agent", agents.Section(nil))
	require.NoError(t, err)
	out, err = nilRegistry.Render()
	require.NoError(t, err)
	assert.Empty(t, out.Text)
}
