package agentscmd

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/agents"
	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/cli"
)

func TestToolsSummary(t *testing.T) {
	tests := []struct {
		def  agents.Definition
		want string
	}{
		{agents.Definition{}, "all"},
		{agents.Definition{DisallowedTools: []string{"rm", "write_file"}}, "all except rm, write_file"},
		{agents.Definition{Tools: []string{}}, "none"},
		{agents.Definition{Tools: []string{"read_file", "grep"}}, "read_file, grep"},
		{agents.Definition{Tools: []string{"mcp__*"}, DisallowedTools: []string{"mcp__db__drop"}}, "mcp__* (except mcp__db__drop)"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, toolsSummary(tt.def))
	}
}

func TestMayUseMCP(t *testing.T) {
	tests := []struct {
		def  agents.Definition
		want bool
	}{
		{agents.Definition{}, true},
		{agents.Definition{Tools: []string{}}, false},
		{agents.Definition{Tools: []string{"read_file"}}, false},
		{agents.Definition{Tools: []string{"mcp__notes__search"}}, true},
		{agents.Definition{Tools: []string{"*_file"}}, true},
		{agents.Definition{Tools: []string{"read_file"}, MCPServers: []agents.MCPServer{{Name: "notes"}}}, true},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, mayUseMCP(tt.def), "%+v", tt.def)
	}
}

func TestUnavailable(t *testing.T) {
	ts, err := cli.MainTools()
	require.NoError(t, err)
	d := agents.Definition{Name: "x", Tools: []string{"read_file", "Bash", "planning_*", "mcp__gone__*"}}
	assert.Equal(t, []string{"Bash", "mcp__gone__*"}, unavailable(d, ts))
	assert.Empty(t, unavailable(agents.Definition{Name: "all"}, ts))
}

// The drafting prompt lists the main agent's tools in the order it
// always has.
func TestDraftTools(t *testing.T) {
	ts, err := cli.MainTools()
	require.NoError(t, err)
	assert.Equal(t, []string{
		"ls", "read_file", "write_file", "edit_file", "glob", "grep", "rm",
		"planning_setup_plan", "planning_add_step", "planning_update_step", "planning_mark_step", "planning_clear_plan", "planning_read_plan",
		"dispatch_subagent", "Task", "TaskOutput", "TaskStop",
	}, draftTools(ts.Names()))
}

func TestCheckName(t *testing.T) {
	for _, ok := range []string{"a", "code-reviewer", "v2"} {
		assert.NoError(t, checkName(ok), ok)
	}
	for _, bad := range []string{"", "Code", "a b", "-a", "a/b", "a.md"} {
		err := checkName(bad)
		require.Error(t, err, bad)
		assert.Equal(t, cli.ExitUsage, cli.Code(err, true))
	}
}

func TestMerge(t *testing.T) {
	d := agents.Definition{Name: "w", Description: "drafted", Tools: []string{"grep"}, Model: "main", Prompt: "drafted prompt"}
	assert.Equal(t, d, merge(agents.Definition{Name: "w"}, d, false), "no flags: the draft")
	got := merge(agents.Definition{Name: "w", Description: "mine", Tools: []string{}, Model: "light", Prompt: "my prompt"}, d, true)
	assert.Equal(t, agents.Definition{Name: "w", Description: "mine", Tools: []string{}, Model: "light", Prompt: "my prompt"}, got)
}

func TestCleanTools(t *testing.T) {
	assert.Equal(t, []string{}, cleanTools([]string{""}))
	assert.Equal(t, []string{"a", "b"}, cleanTools([]string{" a", "", "b "}))
}
