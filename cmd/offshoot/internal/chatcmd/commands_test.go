package chatcmd

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/offshoot-dev/offshoot/agents"
	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/columns"
)

// TestAgentTableFitsTheWidth: /agents cuts each line to the terminal's
// width, as every other line of the chat; off a terminal (width 0) a
// description is cut to 80 characters.
func TestAgentTableFitsTheWidth(t *testing.T) {
	long := "Reviews code for correctness, style and security: " + strings.Repeat("reads every file it is given, ", 6) + "then reports."
	defs := []agents.Definition{
		{Name: "code-reviewer", Source: agents.Project, Description: long},
		{Name: "explore", Source: agents.Builtin, Description: "Finds files\nand reads them."},
		{Name: "wide", Source: agents.User, Description: strings.Repeat("漢字", 60)},
	}
	for _, width := range []int{0, 40, 60, 100} {
		table := agentTable(defs, width)
		lines := strings.Split(strings.TrimSuffix(table, "\n"), "\n")
		assert.Len(t, lines, 4, "a line per agent and the header, at width %d", width)
		assert.Contains(t, lines[0], "NAME")
		assert.Contains(t, lines[2], "Finds files", "the first line of a description")
		assert.NotContains(t, table, "and reads them")
		for _, line := range lines {
			if width > 0 {
				assert.LessOrEqual(t, columns.Width(line), width, "width %d: %q", width, line)
			} else {
				assert.LessOrEqual(t, columns.Width(line), 200, "off a terminal: %q", line)
			}
		}
		if width >= 60 {
			assert.Contains(t, lines[1], "Reviews code", "the description starts where it fits")
			assert.True(t, strings.HasSuffix(lines[1], "…"), "a cut is marked: %q", lines[1])
		}
	}
}
