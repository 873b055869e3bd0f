package agents_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/offshoot-dev/offshoot/agents"
)

// The texts a Task tool shows a model, exactly.
func TestErrorTexts(t *testing.T) {
	tests := []struct {
		err  error
		want string
	}{
		{agents.ErrNoAgents, "No subagents available for delegation"},
		{&agents.NotFoundError{Name: "X", Available: []string{"a", "b", "c"}}, "Subagent 'X' not found. Available: a, b, c"},
		{&agents.MissingToolsError{Tools: []string{"Grpe"}}, "Subagent lacks permission for required tools: [Grpe]"},
		{&agents.MissingToolsError{Tools: []string{"Bash", "WebFetch"}}, "Subagent lacks permission for required tools: [Bash, WebFetch]"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tt.err.Error())
	}
}

func TestDiagnosticText(t *testing.T) {
	tests := []struct {
		d    agents.Diagnostic
		want string
	}{
		{agents.Diagnostic{Path: "a.md", Line: 3, Agent: "a", Message: "m"}, "a.md:3: m"},
		{agents.Diagnostic{Path: "a.md", Agent: "a", Message: "m"}, `a.md: agent "a": m`},
		{agents.Diagnostic{Path: "a.md", Message: "m"}, "a.md: m"},
		{agents.Diagnostic{Line: 3, Message: "m"}, "line 3: m"},
		{agents.Diagnostic{Agent: "a", Message: "m"}, `agent "a": m`},
		{agents.Diagnostic{Message: "m"}, "m"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tt.d.Error())
	}
}

// The warning for a tool name nobody knows names the known tools.
func TestUnknownToolWarning(t *testing.T) {
	r := agents.Load(agents.Options{ToolNames: []string{"read_file", "grep"}, Agents: map[string]agents.Definition{
		"a": {Description: "A.", Prompt: "x", Tools: []string{"Grpe", "Read", "Write"}, DisallowedTools: []string{"Nope"}},
	}})
	assert.Equal(t, []string{
		`Options.Agents: agent "a": unknown tool "Grpe" in tools (known: grep, read_file); the agent runs without it`,
		`Options.Agents: agent "a": unknown tool "Write" (write_file here) in tools (known: grep, read_file); the agent runs without it`,
		`Options.Agents: agent "a": unknown tool "Nope" in disallowedTools (known: grep, read_file); it has no effect`,
	}, messages(r.Warnings()))
}
