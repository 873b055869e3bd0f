package tools_test

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/tools"
)

// named builds a trivial tool called name.
func named(t testing.TB, name string) tools.Tool {
	t.Helper()
	tool, err := tools.New(name, "Tool "+name+".", listPath)
	require.NoError(t, err)
	return tool
}

func TestToolsetIsOrderedAndNameUnique(t *testing.T) {
	ls, read, write := named(t, "ls"), named(t, "read_file"), named(t, "write_file")
	ts, err := tools.NewToolset(ls, read)
	require.NoError(t, err)
	assert.Equal(t, []string{"ls", "read_file"}, ts.Names())
	assert.Equal(t, 2, ts.Len())
	assert.Same(t, read, ts.At(1))

	got, ok := ts.Lookup("read_file")
	require.True(t, ok)
	assert.Same(t, read, got)
	_, ok = ts.Lookup("write_file")
	assert.False(t, ok)

	more, err := ts.With(write)
	require.NoError(t, err)
	assert.Equal(t, []string{"ls", "read_file", "write_file"}, more.Names())
	assert.Equal(t, []string{"ls", "read_file"}, ts.Names(), "With returns a new toolset")
	assert.Equal(t, more.Tools(), slices.Collect(more.All()))

	_, err = ts.With(named(t, "ls"))
	assert.EqualError(t, err, `tools: two tools are named "ls"; tool names must be unique within a toolset`)
	_, err = tools.NewToolset(ls, nil)
	assert.EqualError(t, err, "tools: tool 1: tools: nil tool; build tools with tools.New")

	var zero tools.Toolset
	assert.Equal(t, 0, zero.Len())
	assert.Empty(t, zero.Names())
	_, ok = zero.Lookup("ls")
	assert.False(t, ok)
}

func TestToolsetFilter(t *testing.T) {
	var all []tools.Tool
	for _, n := range []string{"ls", "read_file", "write_file", "vfs_ls", "vfs_rm", "Task", "dispatch_subagent"} {
		all = append(all, named(t, n))
	}
	ts, err := tools.NewToolset(all...)
	require.NoError(t, err)
	tests := []struct {
		name   string
		filter tools.Filter
		want   []string
	}{
		{"zero filter keeps all", tools.Filter{}, []string{"ls", "read_file", "write_file", "vfs_ls", "vfs_rm", "Task", "dispatch_subagent"}},
		{"allow by name", tools.Filter{Allow: []string{"Task", "ls"}}, []string{"ls", "Task"}},
		{"allow by glob", tools.Filter{Allow: []string{"vfs_*"}}, []string{"vfs_ls", "vfs_rm"}},
		{"deny by name", tools.Filter{Deny: []string{"Task", "dispatch_subagent"}}, []string{"ls", "read_file", "write_file", "vfs_ls", "vfs_rm"}},
		{"deny by glob", tools.Filter{Deny: []string{"*_file"}}, []string{"ls", "vfs_ls", "vfs_rm", "Task", "dispatch_subagent"}},
		{"deny wins over allow", tools.Filter{Allow: []string{"vfs_*", "ls"}, Deny: []string{"vfs_rm"}}, []string{"ls", "vfs_ls"}},
		{"character classes", tools.Filter{Allow: []string{"[rw]*_file"}}, []string{"read_file", "write_file"}},
		{"single character", tools.Filter{Allow: []string{"vfs_?s"}}, []string{"vfs_ls"}},
		{"allow of an absent tool", tools.Filter{Allow: []string{"nope"}}, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ts.Filter(tt.filter)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got.Names())
			for _, n := range ts.Names() {
				assert.Equal(t, slices.Contains(tt.want, n), tt.filter.Allows(n), n)
			}
		})
	}

	_, err = ts.Filter(tools.Filter{Deny: []string{"vfs_["}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `tools: tool filter pattern "vfs_[" is malformed`)
	assert.False(t, tools.Filter{Allow: []string{"vfs_["}}.Allows("vfs_ls"))
}

func TestToolsetFilterMCPServers(t *testing.T) {
	names := []string{
		"ls", "mcp__github__search", "mcp__github__create_issue", "mcp__gitlab__search",
		"mcp__notes__read", "mcp__notes_archive__read", "mcp_helper",
	}
	var all []tools.Tool
	for _, n := range names {
		all = append(all, named(t, n))
	}
	ts, err := tools.NewToolset(all...)
	require.NoError(t, err)
	tests := []struct {
		name   string
		filter tools.Filter
		want   []string
	}{
		{"a server name allows all its tools", tools.Filter{Allow: []string{"mcp__github"}},
			[]string{"mcp__github__search", "mcp__github__create_issue"}},
		{"a server glob allows all its tools", tools.Filter{Allow: []string{"mcp__github__*"}},
			[]string{"mcp__github__search", "mcp__github__create_issue"}},
		{"a server name denies all its tools", tools.Filter{Deny: []string{"mcp__github"}},
			[]string{"ls", "mcp__gitlab__search", "mcp__notes__read", "mcp__notes_archive__read", "mcp_helper"}},
		{"a server glob denies all its tools", tools.Filter{Deny: []string{"mcp__notes__*"}},
			[]string{"ls", "mcp__github__search", "mcp__github__create_issue", "mcp__gitlab__search", "mcp__notes_archive__read", "mcp_helper"}},
		{"a server name is not a prefix of another server", tools.Filter{Allow: []string{"mcp__notes"}},
			[]string{"mcp__notes__read"}},
		{"mcp__* denies every MCP tool", tools.Filter{Deny: []string{"mcp__*"}},
			[]string{"ls", "mcp_helper"}},
		{"one tool by its full name", tools.Filter{Allow: []string{"ls", "mcp__github__search"}},
			[]string{"ls", "mcp__github__search"}},
		{"deny one tool of an allowed server", tools.Filter{Allow: []string{"mcp__github"}, Deny: []string{"mcp__github__create_issue"}},
			[]string{"mcp__github__search"}},
		{"a tool name is not a server", tools.Filter{Allow: []string{"mcp__github__search"}},
			[]string{"mcp__github__search"}},
		{"mcp__ alone names no server", tools.Filter{Allow: []string{"mcp__"}}, []string{}},
		{"an unknown server matches nothing", tools.Filter{Allow: []string{"mcp__jira"}}, []string{}},
		{"a glob over servers", tools.Filter{Allow: []string{"mcp__git*"}},
			[]string{"mcp__github__search", "mcp__github__create_issue", "mcp__gitlab__search"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ts.Filter(tt.filter)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got.Names())
			for _, n := range names {
				assert.Equal(t, slices.Contains(tt.want, n), tt.filter.Allows(n), n)
			}
		})
	}
}

// A wrapper changes only what it overrides: one that embeds a tool keeps
// its Spec — its State and its reducers — through any number of wrappers.
func TestAWrapperDoesNotChangeWhatAToolIs(t *testing.T) {
	type state struct{ tools.State }
	st := state{}
	inner := newLs(t, listPath, tools.WithState(st), tools.WithReducers(session.Reducers{Key: "k"}))
	wrapped := wrapper{wrapper{inner}}
	assert.Equal(t, tools.State(st), wrapped.Spec().State)
	set, err := tools.NewToolset(wrapped)
	require.NoError(t, err)
	assert.Equal(t, []tools.State{st}, set.States())
	require.Len(t, set.Reducers(), 1)
	assert.Equal(t, "k", set.Reducers()[0].Key)
}

// wrapper is a tool wrapped the way net/http middleware wraps a handler.
type wrapper struct{ tools.Tool }
