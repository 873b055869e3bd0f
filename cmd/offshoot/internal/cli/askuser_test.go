package cli

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/runner"
)

// TestWaitingSaysTheFlagsAgain: the answer's command gives the run's
// --agent and --allow again, quoted for a shell where they need it.
func TestWaitingSaysTheFlagsAgain(t *testing.T) {
	lines := Waiting(runner.Waiting{Question: "May I?"}, "s1", AgentFlags{Agent: "my agent", Allow: []string{"bash=unconfined", "webfetch"}})
	require.Len(t, lines, 2)
	assert.Equal(t, `the run waits for your answer: offshoot sessions answer s1 "YOUR ANSWER" --agent 'my agent' --allow bash=unconfined --allow webfetch`, lines[1])
	lines = Waiting(runner.Waiting{Question: "May I?"}, "s1", AgentFlags{})
	assert.Equal(t, `the run waits for your answer: offshoot sessions answer s1 "YOUR ANSWER"`, lines[1])
	assert.Equal(t, `'it'\''s'`, shellWord("it's"))
}
