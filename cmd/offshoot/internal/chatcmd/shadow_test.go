package chatcmd

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/model/scripted"
)

// A project agent that takes a built-in agent's name is named at the start
// of the chat.
func TestChatNamesProjectAgentsThatReplaceBuiltins(t *testing.T) {
	f := newFixture(t, map[string]string{".claude/agents/general-purpose.md": "---\nname: general-purpose\ndescription: Does it all.\n---\nDo it.\n"})
	require.NoError(t, f.chat(t, context.Background(), strings.NewReader(""), scripted.New(), &chat{}))
	assert.Contains(t, f.stdout.String(), "offshoot chat: the project's agent replaces the built-in general-purpose (.claude/agents/general-purpose.md)\n")
}
