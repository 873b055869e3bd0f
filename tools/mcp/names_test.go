package mcp_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/offshoot-dev/offshoot/tools"
	"github.com/offshoot-dev/offshoot/tools/mcp"
)

var toolNamePattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

func TestToolName(t *testing.T) {
	long := strings.Repeat("x", 80)
	tests := []struct {
		server, tool, want string
	}{
		{"github", "create_issue", "mcp__github__create_issue"},
		{"my-server", "get-file", "mcp__my-server__get-file"},
		{"claude-mem", "search.nodes", "mcp__claude-mem__search_nodes"},
		{"my server", "read/file", "mcp__my_server__read_file"},
		{"café", "résumé", "mcp__caf___r_sum_"},
		{"github", "", "mcp__github"},
		{"notes.app", "", "mcp__notes_app"},
		{"s", long, "mcp__s__" + strings.Repeat("x", 47) + "_"},
	}
	for _, tt := range tests {
		got := mcp.ToolNameOf(tt.server, tt.tool)
		assert.True(t, strings.HasPrefix(got, tt.want), "%s/%s: %s", tt.server, tt.tool, got)
		if tt.tool != long {
			assert.Equal(t, tt.want, got)
		}
		assert.Regexp(t, toolNamePattern, got)
	}

	a, b := mcp.ToolNameOf("s", long+"a"), mcp.ToolNameOf("s", long+"b")
	assert.Len(t, a, 64)
	assert.NotEqual(t, a, b, "long names that share a prefix stay apart")
	assert.Equal(t, a, mcp.ToolNameOf("s", long+"a"), "and are stable")
	assert.Regexp(t, `_[0-9a-f]{8}$`, a)
}

func TestServerNameFiltersItsTools(t *testing.T) {
	f := tools.Filter{Deny: []string{mcp.ToolNameOf("notes.app", "")}}
	assert.False(t, f.Allows(mcp.ToolNameOf("notes.app", "search")))
	assert.True(t, f.Allows(mcp.ToolNameOf("notes", "search")))
}
