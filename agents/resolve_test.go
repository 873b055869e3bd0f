package agents_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/agents"
)

// parentTools is the toolset of a main agent with offshoot's tools, the
// Task tools and two MCP tools.
var parentTools = []string{
	"ls", "read_file", "write_file", "edit_file", "glob", "grep",
	"planning_setup_plan", "planning_add_step", "planning_update_step", "planning_mark_step", "planning_clear_plan", "planning_read_plan",
	"Task", "TaskOutput", "TaskStop", "mcp__github__create_issue", "mcp__github__list_prs",
}

func without(all []string, drop ...string) []string {
	var out []string
	for _, n := range all {
		keep := true
		for _, d := range drop {
			keep = keep && n != d
		}
		if keep {
			out = append(out, n)
		}
	}
	return out
}

var planning = []string{"planning_setup_plan", "planning_add_step", "planning_update_step", "planning_mark_step", "planning_clear_plan", "planning_read_plan"}

// The filtering table: neither field, tools only, deny only, both, globs,
// Claude Code names, the depth limit and zero tools.
func TestResolveTools(t *testing.T) {
	parent := toolset(t, parentTools...)
	tests := []struct {
		name    string
		tools   []string
		deny    []string
		atLimit bool
		want    []string
		wantErr string
	}{
		{name: "neither field: all the caller's tools", want: parentTools},
		{name: "neither field at the depth limit: no delegation tools", atLimit: true,
			want: without(parentTools, "Task", "TaskOutput", "TaskStop")},
		{name: "tools only", tools: []string{"grep", "read_file"}, want: []string{"read_file", "grep"}},
		{name: "tools only, Claude Code names", tools: []string{"Read", "Grep", "Glob", "LS", "TodoWrite"},
			want: append([]string{"ls", "read_file", "glob", "grep"}, planning...)},
		{name: "Edit and MultiEdit are one tool", tools: []string{"Edit", "MultiEdit", "Write"}, want: []string{"write_file", "edit_file"}},
		{name: "deny only", deny: []string{"write_file", "edit_file"}, want: without(parentTools, "write_file", "edit_file")},
		{name: "deny only, Claude Code names", deny: []string{"Write", "Edit", "MultiEdit", "Task"},
			want: without(parentTools, "write_file", "edit_file", "Task")},
		{name: "both: deny wins", tools: []string{"Read", "Write", "Grep"}, deny: []string{"Write"}, want: []string{"read_file", "grep"}},
		{name: "glob in tools", tools: []string{"planning_*", "mcp__github__*"},
			want: append(append([]string{}, planning...), "mcp__github__create_issue", "mcp__github__list_prs")},
		{name: "glob in deny", deny: []string{"mcp__*", "planning_*"}, want: without(parentTools, append([]string{"mcp__github__create_issue", "mcp__github__list_prs"}, planning...)...)},
		{name: "one MCP tool", tools: []string{"mcp__github__list_prs"}, want: []string{"mcp__github__list_prs"}},
		{name: "tools at the depth limit lose Task", tools: []string{"Task", "Read"}, atLimit: true, want: []string{"read_file"}},
		{name: "argument rule in deny disallows the whole tool", deny: []string{"Read(./secrets/**)"}, want: without(parentTools, "read_file")},
		{name: "argument rule in tools grants nothing", tools: []string{"Read", "Bash(git diff:*)"}, want: []string{"read_file"}},
		{name: "malformed patterns are ignored", tools: []string{"read_[", "grep"}, deny: []string{"gr[", `x\`}, want: []string{"grep"}},
		{name: "tools that do not exist are skipped", tools: []string{"Read", "Bash", "WebFetch"}, want: []string{"read_file"}},
		{name: "zero tools", tools: []string{}, want: nil},
		{name: "zero tools at the depth limit", tools: []string{}, atLimit: true, want: nil},
		{name: "unknown tool", tools: []string{"Grpe"}, wantErr: "Subagent lacks permission for required tools: [Grpe]"},
		{name: "only tools with no equivalent", tools: []string{"Bash", "WebFetch", "Bash"}, wantErr: "Subagent lacks permission for required tools: [Bash, WebFetch]"},
		{name: "every tool denied", tools: []string{"Write"}, deny: []string{"write_file"}, wantErr: "Subagent lacks permission for required tools: [Write]"},
		{name: "only Task at the depth limit", tools: []string{"Task"}, atLimit: true, wantErr: "Subagent lacks permission for required tools: [Task]"},
		{name: "only an argument rule", tools: []string{"Bash(git diff:*)"}, wantErr: "Subagent lacks permission for required tools: [Bash(git diff:*)]"},
		{name: "only a malformed pattern", tools: []string{"read_["}, wantErr: "Subagent lacks permission for required tools: [read_[]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			def := agents.Definition{Name: "a", Tools: tt.tools, DisallowedTools: tt.deny}
			got, err := def.ResolveTools(parent, tt.atLimit)
			if tt.wantErr != "" {
				require.EqualError(t, err, tt.wantErr)
				var missing *agents.MissingToolsError
				require.ErrorAs(t, err, &missing)
				assert.Zero(t, got.Len())
				return
			}
			require.NoError(t, err)
			if tt.want == nil {
				assert.Zero(t, got.Len())
				return
			}
			assert.Equal(t, tt.want, got.Names())
		})
	}
}

// A tool of the caller's named like a Claude Code tool is itself, not the
// tool the Claude Code name stands for.
func TestResolveToolsExactNameWins(t *testing.T) {
	parent := toolset(t, "read", "read_file")
	got, err := agents.Definition{Tools: []string{"read"}}.ResolveTools(parent, false)
	require.NoError(t, err)
	assert.Equal(t, []string{"read"}, got.Names())
	got, err = agents.Definition{Tools: []string{"Read"}}.ResolveTools(parent, false)
	require.NoError(t, err)
	assert.Equal(t, []string{"read_file"}, got.Names())
}

// The tools a file lists resolve the same whether the registry mapped
// them or not: a loaded definition and its hand-written twin agree.
func TestResolveToolsLoadedDefinition(t *testing.T) {
	project := tree(t, map[string]string{
		".claude/agents/a.md": agentFile("a", "A.", "x", "tools: Read, Bash", "disallowedTools: Write"),
		".claude/agents/b.md": agentFile("b", "B.", "x", "tools: Bash, WebSearch"),
	})
	r := agents.Load(agents.Options{ProjectDir: project})
	parent := toolset(t, parentTools...)
	got, err := mustFind(t, r, "a").ResolveTools(parent, false)
	require.NoError(t, err)
	assert.Equal(t, []string{"read_file"}, got.Names())
	// Tools with no equivalent here were dropped when b loaded: b has no
	// tools, as its tools: [] would say.
	b := mustFind(t, r, "b")
	assert.Equal(t, []string{}, b.Tools)
	got, err = b.ResolveTools(parent, false)
	require.NoError(t, err)
	assert.Zero(t, got.Len())
	// The same list written in Go and never loaded names no tool here.
	_, err = agents.Definition{Tools: []string{"Bash", "WebSearch"}}.ResolveTools(parent, false)
	assert.EqualError(t, err, "Subagent lacks permission for required tools: [Bash, WebSearch]")
}

// The built-ins resolve to what they promise.
func TestResolveToolsBuiltins(t *testing.T) {
	r := agents.Load(agents.Options{})
	parent := toolset(t, parentTools...)
	tests := map[string][]string{
		"general-purpose": without(parentTools, "Task", "TaskOutput", "TaskStop"),
		"explore":         {"ls", "read_file", "glob", "grep", "planning_read_plan"},
		"plan":            {"ls", "read_file", "glob", "grep", "planning_read_plan"},
		"summary":         nil,
	}
	for name, want := range tests {
		got, err := mustFind(t, r, name).ResolveTools(parent, true)
		require.NoError(t, err, name)
		if want == nil {
			assert.Zero(t, got.Len(), name)
			continue
		}
		assert.Equal(t, want, got.Names(), name)
	}
}
