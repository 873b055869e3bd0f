package task_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/agents"
	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/subagent"
	"github.com/offshoot-dev/offshoot/tools"
	"github.com/offshoot-dev/offshoot/tools/task"
)

// The input schema: the seed's three required fields, the SDK's options,
// nothing else.
func TestTheInputSchema(t *testing.T) {
	tool, err := task.Tool(agents.Load(agents.Options{}), subagent.New(subagent.Options{}), nil, task.Options{})
	require.NoError(t, err)
	var schema struct {
		Type                 string                     `json:"type"`
		Properties           map[string]json.RawMessage `json:"properties"`
		Required             []string                   `json:"required"`
		AdditionalProperties *bool                      `json:"additionalProperties"`
	}
	require.NoError(t, json.Unmarshal(tool.Spec().Params, &schema))
	assert.Equal(t, "object", schema.Type)
	assert.Equal(t, []string{"description", "prompt", "subagent_type"}, schema.Required)
	require.NotNil(t, schema.AdditionalProperties)
	assert.False(t, *schema.AdditionalProperties)
	var names []string
	for n := range schema.Properties {
		names = append(names, n)
	}
	assert.ElementsMatch(t, []string{"description", "prompt", "subagent_type", "model", "max_turns", "name",
		"run_in_background", "resume", "team_name", "mode"}, names)
	assert.Contains(t, string(schema.Properties["description"]), "A short (3-5 word) description of the task")
	assert.Contains(t, string(schema.Properties["prompt"]), "The task for the agent to perform")
	assert.Contains(t, string(schema.Properties["subagent_type"]), "The type of specialized agent to use for this task")
	assert.Equal(t, task.ToolName, tool.Spec().Name)
	assert.True(t, tool.Spec().ConcurrentSafe)
}

// The description lists the registry's agents as the registry lists them
// when that fits the limit of tool descriptions; the full listing is in
// the section either way.
func TestTheDescriptionListsTheAgents(t *testing.T) {
	reg := agents.Load(agents.Options{NoBuiltins: true, Agents: testAgents})
	tool, err := task.Tool(reg, subagent.New(subagent.Options{}), nil, task.Options{})
	require.NoError(t, err)
	assert.True(t, strings.HasSuffix(tool.Spec().Description, "Agents:\n"+strings.TrimSpace(reg.Listing())), tool.Spec().Description)
	assert.Contains(t, tool.Spec().Description, "- reader: Reads files and answers questions about them. Use it for lookups. (Tools: read_file, grep, glob, ls)")
	assert.Contains(t, tool.Spec().Description, "- forker: Carries on from the conversation so far. (Tools: all; sees this conversation)")

	// A new registry is a new tool: what the tool describes is what it runs.
	other := agents.Load(agents.Options{NoBuiltins: true, Agents: map[string]agents.Definition{"solo": {Description: "Works alone.", Prompt: "x"}}})
	tool2, err := task.Tool(other, subagent.New(subagent.Options{}), nil, task.Options{})
	require.NoError(t, err)
	assert.Contains(t, tool2.Spec().Description, "- solo: Works alone. (Tools: all)")
	assert.NotContains(t, tool2.Spec().Description, "reader")
}

// Many or long agents: the description stays within the limit, listing
// first sentences, then names, as fits.
func TestTheDescriptionFitsTheLimit(t *testing.T) {
	long := strings.Repeat("A very thorough agent that does many things. ", 10)
	tests := []struct {
		name  string
		n     int
		desc  string
		wants []string
	}{
		{"the built-ins", 0, "", []string{"- explore: ", "- general-purpose: ", "- plan: ", "- summary: "}},
		{"a few long ones", 3, long, []string{"- agent-00: A very thorough agent that does many things.\n", "- agent-02: "}},
		{"many", 40, "Does one thing.", []string{"Agents (your instructions say what each does): agent-00, agent-01,"}},
		{"very many", 400, "Does one thing.", []string{"agent-00, agent-01", "more."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := agents.Options{}
			if tt.n > 0 {
				opts.NoBuiltins = true
				opts.Agents = map[string]agents.Definition{}
				for i := range tt.n {
					opts.Agents[fmt.Sprintf("agent-%02d", i)] = agents.Definition{Description: tt.desc, Prompt: "x"}
				}
			}
			tool, err := task.Tool(agents.Load(opts), subagent.New(subagent.Options{}), nil, task.Options{})
			require.NoError(t, err)
			d := tool.Spec().Description
			assert.LessOrEqual(t, utf8.RuneCountInString(d), tools.MaxDescription)
			for _, want := range tt.wants {
				assert.Contains(t, d, want)
			}
		})
	}
}

// The section lists every agent in full, says when to delegate, and
// carries the tool; without agents it is off, and offers no tool.
func TestTheSection(t *testing.T) {
	reg := agents.Load(agents.Options{NoBuiltins: true, Agents: testAgents})
	p, err := prompt.New("app", "main", task.Section(reg, subagent.New(subagent.Options{}), nil, task.Options{}))
	require.NoError(t, err)
	r, err := p.Render()
	require.NoError(t, err)
	assert.Contains(t, r.Text, strings.TrimSpace(reg.Listing()))
	assert.Contains(t, r.Text, "light for simple tasks")
	assert.Contains(t, r.Text, "main for\n  complex reasoning")
	assert.Equal(t, []string{task.ToolName, task.OutputToolName, task.StopToolName}, r.Tools.Names())

	p, err = prompt.New("app", "main", task.Section(agents.Load(agents.Options{NoBuiltins: true}), subagent.New(subagent.Options{}), nil, task.Options{}))
	require.NoError(t, err)
	r, err = p.Render()
	require.NoError(t, err)
	assert.Empty(t, r.Text)
	assert.Zero(t, r.Tools.Len())

	_, err = prompt.New("app", "main", task.Section(reg, nil, nil, task.Options{}))
	require.ErrorContains(t, err, "task: Tool needs a subagent engine; create one with subagent.New")
}
