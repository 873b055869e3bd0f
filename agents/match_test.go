package agents_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/agents"
)

func TestFind(t *testing.T) {
	r := agents.Load(agents.Options{Agents: map[string]agents.Definition{
		"code-reviewer":  {Description: "Reviews code for quality and security.", Prompt: "x"},
		"test-runner":    {Description: "Runs the test suite and explains failures.", Prompt: "x"},
		"data-scientist": {Description: "Analyses data with SQL.", Prompt: "x"},
	}})
	tests := []struct{ ask, want string }{
		{"code-reviewer", "code-reviewer"},
		{"  code-reviewer ", "code-reviewer"},
		{"Code Reviewer", "code-reviewer"},
		{"code_reviewer", "code-reviewer"},
		{"CodeReviewer", "code-reviewer"},
		{"CODE-REVIEWER", "code-reviewer"},
		{"code.reviewer", "code-reviewer"},
		{"general", "general-purpose"},
		{"General", "general-purpose"},
		{"general-purpose", "general-purpose"},
		{"Explore", "explore"},
		{"Plan", "plan"},
		{"Data Scientist", "data-scientist"},
	}
	for _, tt := range tests {
		def, err := r.Find(tt.ask)
		require.NoError(t, err, tt.ask)
		assert.Equal(t, tt.want, def.Name, tt.ask)
	}
}

// Nothing matches: the error lists the available agents, sorted.
func TestFindNotFound(t *testing.T) {
	r := agents.Load(agents.Options{Agents: map[string]agents.Definition{
		"zeta":  {Description: "Z.", Prompt: "x"},
		"alpha": {Description: "A.", Prompt: "x"},
	}})
	for _, ask := range []string{"gamma", "review my code", "", "explorer"} {
		_, err := r.Find(ask)
		var nf *agents.NotFoundError
		require.ErrorAs(t, err, &nf, ask)
		assert.Equal(t, "Subagent '"+ask+"' not found. Available: alpha, explore, general-purpose, plan, summary, zeta", err.Error())
		assert.Equal(t, ask, nf.Name)
	}
}

func TestFindNoAgents(t *testing.T) {
	r := agents.Load(agents.Options{NoBuiltins: true})
	_, err := r.Find("explore")
	require.ErrorIs(t, err, agents.ErrNoAgents)
	assert.EqualError(t, err, "No subagents available for delegation")
}

// Two agents that differ only in separators are not guessed between.
func TestFindAmbiguous(t *testing.T) {
	r := agents.Load(agents.Options{NoBuiltins: true, Agents: map[string]agents.Definition{
		"code-reviewer": {Description: "A.", Prompt: "x"},
		"codereviewer":  {Description: "B.", Prompt: "x"},
	}})
	def, err := r.Find("Code Reviewer")
	require.NoError(t, err)
	assert.Equal(t, "code-reviewer", def.Name, "the slug matches exactly")
	_, err = r.Find("Code_Review_Er")
	assert.EqualError(t, err, "Subagent 'Code_Review_Er' not found. Available: code-reviewer, codereviewer")
}

// Matching by description only when the program opts in.
func TestFindByDescription(t *testing.T) {
	defs := map[string]agents.Definition{
		"code-reviewer": {Description: "Reviews code for quality and security.", Prompt: "x"},
		"test-runner":   {Description: "Runs the test suite and explains failures.", Prompt: "x"},
	}
	off := agents.Load(agents.Options{NoBuiltins: true, Agents: defs})
	_, err := off.Find("review code security")
	var nf *agents.NotFoundError
	require.ErrorAs(t, err, &nf)

	on := agents.Load(agents.Options{NoBuiltins: true, Agents: defs, MatchDescriptions: true})
	tests := []struct{ ask, want string }{
		{"review code security", "code-reviewer"},
		{"security reviewer for code", "code-reviewer"},
		{"run the failing tests", "test-runner"},
		{"explains test failures", "test-runner"},
	}
	for _, tt := range tests {
		def, err := on.Find(tt.ask)
		require.NoError(t, err, tt.ask)
		assert.Equal(t, tt.want, def.Name, tt.ask)
	}
	for _, ask := range []string{"deploy the website", "code tests", "the and for"} {
		_, err := on.Find(ask)
		require.ErrorAs(t, err, &nf, "%q: too weak or tied", ask)
	}
}
