package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestRun(t *testing.T) {
	var out strings.Builder
	require.NoError(t, run(&out))
	got := out.String()

	for _, want := range []string{
		// The enabled sections, numbered, with their params rendered in.
		"## 1. Role\n\nYou review small repositories.\nBe specific and brief.\n",
		"## 2. Repository\n\nYou are reviewing demo. Call list_files to see its files.\n",
		"## 3. Review\n\nFocus on typos. Read the files you need with read_file.\n",
		"## 4. Response Format\n",
		// The tools of the enabled sections only.
		"=== tools\nlist_files: List the repository's files.\nread_file: Read one file of the repository.\nwith Strict on:",
		"with Strict on: list_files, read_file, run_linter\n",
		// The evaluation and its typed output.
		"turns: 3, tool calls: 3, tools used: list_files, read_file\n",
		"files read: README.md, cmd/demo.go\n",
		"summary: One typo in the program's output.\n",
		"finding: cmd/demo.go: \"helo\" should be \"hello\".\n",
	} {
		assert.Contains(t, got, want)
	}
	// The disabled section renders nothing and offers no tool.
	rendered, _, _ := strings.Cut(got, "=== tools")
	assert.NotContains(t, rendered, "Strict Mode")
	assert.NotContains(t, rendered, "run_linter")
}

func TestNewPromptTakesParamsByType(t *testing.T) {
	p, err := newPrompt()
	require.NoError(t, err)
	// Order does not matter: params are matched to sections by Go type.
	r, err := p.Render(ReviewParams{Focus: "style", Strict: true}, RepoParams{Name: "other"})
	require.NoError(t, err)
	assert.Contains(t, r.Text, "You are reviewing other.")
	assert.Contains(t, r.Text, "### 3.1. Strict Mode\n\nRun run_linter on every Go file.")
	// A section's params are validated: Focus is required.
	_, err = p.Render(RepoParams{Name: "other"})
	assert.ErrorContains(t, err, `section "review": invalid params: Focus: is required`)
}
