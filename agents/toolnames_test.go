package agents

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSlugify(t *testing.T) {
	tests := map[string]string{
		"code-reviewer":              "code-reviewer",
		"Code Reviewer":              "code-reviewer",
		"Python DevOps/CI-CD Expert": "python-devops-ci-cd-expert",
		"data_scientist":             "data-scientist",
		"v2.agent":                   "v2-agent",
		"--a--b--":                   "a-b",
		"Données":                    "donn-es",
		"!!!":                        "",
	}
	for in, want := range tests {
		assert.Equal(t, want, slugify(in), in)
	}
}

func TestSplitAndDedent(t *testing.T) {
	doc, err := split("---\n  name: a\n    nested: b\n\n  description: c\n  -----\n\nbody\n")
	assert.Nil(t, err)
	assert.Equal(t, []string{"name: a", "  nested: b", "", "description: c"}, doc.front)
	assert.Equal(t, 2, doc.frontLine)
	assert.Equal(t, "body", doc.body)

	// As Claude Code reads them, the frontmatter begins on the first line:
	// after blank lines, or indented, it is not read, and the file is
	// skipped with the reason.
	for _, text := range []string{"\n\n  ---\nname: a\ndescription: c\n---\nbody", "  ---\nname: a\n---\nbody", "\n---\nname: a\n---\n"} {
		_, err = split(text)
		require.NotNil(t, err, "%q", text)
		assert.True(t, err.notAgent)
		assert.Contains(t, err.message, "does not begin on the first line")
	}

	doc, err = split("---\nname: a\n---")
	assert.Nil(t, err)
	assert.Equal(t, "", doc.body)

	_, err = split("--\nname: a\n--\nbody")
	assert.True(t, err.notAgent, "two dashes are not a fence")
}

func TestNormalize(t *testing.T) {
	text, bad := normalize([]byte("\uFEFFa\r\nb\rc\n"))
	assert.Equal(t, "a\nb\nc\n", text)
	assert.False(t, bad)
	text, bad = normalize([]byte("a\xffb"))
	assert.Equal(t, "a\uFFFDb", text)
	assert.True(t, bad)
}

// Claude Code's AskUserQuestion is the tool of that name when the program
// offers it (Options.AskUser), and else dropped with a warning.
func TestAskUserQuestionMapping(t *testing.T) {
	none := func(string) bool { return false }
	offered := func(n string) bool { return n == "AskUserQuestion" }
	assert.Equal(t, toolRef{names: []string{"AskUserQuestion"}, known: true}, resolveTool("AskUserQuestion", offered, none))
	assert.Equal(t, toolRef{names: []string{"AskUserQuestion"}, known: true}, resolveTool("askuserquestion", offered, none))
	assert.Equal(t, toolRef{notOffered: "AskUserQuestion"}, resolveTool("AskUserQuestion", none, none))
}

// TestOptInMapping: Claude Code's Bash and WebFetch are the bash and
// web_fetch tools when the program offers them, and else dropped with a
// warning that says how to offer them.
func TestOptInMapping(t *testing.T) {
	tests := []struct {
		name    string
		entries []string
		offered []string
		want    toolRef
	}{
		{"bash offered", []string{"Bash", "bash", "BASH"}, []string{"read_file", "bash"}, toolRef{names: []string{"bash"}, known: true}},
		{"bash not offered", []string{"Bash", "bash", "BASH"}, []string{"read_file"}, toolRef{notOffered: "bash"}},
		{"web_fetch offered", []string{"WebFetch", "webfetch"}, []string{"read_file", "web_fetch"}, toolRef{names: []string{"web_fetch"}, known: true}},
		{"web_fetch not offered", []string{"WebFetch", "webfetch"}, []string{"read_file"}, toolRef{notOffered: "web_fetch"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			has := func(n string) bool { return slices.Contains(tt.offered, n) }
			for _, entry := range tt.entries {
				assert.Equal(t, tt.want, resolveTool(entry, has, func(string) bool { return false }), entry)
			}
			rule := resolveTool(tt.entries[0]+"(x:*)", has, func(string) bool { return false })
			assert.True(t, rule.rule)
			assert.Equal(t, tt.want.names, rule.names)
		})
	}
	names, ok := ClaudeToolNames("WebFetch")
	assert.True(t, ok)
	assert.Equal(t, []string{"web_fetch"}, names)
}

// ClaudeToolName gives offshoot's tools back under Claude Code's names,
// by the table ClaudeToolNames reads: each name it gives maps back to
// the tool.
func TestClaudeToolName(t *testing.T) {
	for tool, want := range map[string]string{
		"read_file": "Read", "write_file": "Write", "edit_file": "Edit", "bash": "Bash", "ls": "LS",
		"glob": "Glob", "grep": "Grep", "Task": "Task", "planning_add_step": "TodoWrite",
		"rm": "rm", "mcp__github__search": "mcp__github__search", "my_tool": "my_tool",
	} {
		got := ClaudeToolName(tool)
		require.Equal(t, want, got, tool)
		if got != tool {
			names, ok := ClaudeToolNames(got)
			require.True(t, ok)
			require.Contains(t, names, tool)
		}
	}
}
