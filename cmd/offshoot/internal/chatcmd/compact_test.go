package chatcmd

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
)

// /compact summarizes the conversation, says how to undo it, and the
// chat goes on from the summary; with too little to compact it says so.
func TestChatCompact(t *testing.T) {
	f := newFixture(t, nil)
	m := scripted.New(
		scripted.When(scripted.SystemContains("You write the summary"), scripted.Text("The user counted to three.")),
		scripted.Repeat(scripted.Text("Noted.")),
	)
	c := &chat{}
	input := strings.Join([]string{"/compact", "one", "two", "three", "/compact keep the numbers", "four", ""}, "\n")
	require.NoError(t, f.chat(t, context.Background(), strings.NewReader(input), m, c))
	out := f.stdout.String() + f.stderr.String()
	assert.Contains(t, out, "nothing to compact yet")
	assert.Contains(t, out, "compacted the conversation (manual): ")
	assert.Contains(t, out, "the session is not stored (--no-store), so it cannot be forked back to before it")
	snap := c.client.Session().Snapshot()
	done, ok := session.SliceOfSnapshot[runner.Compacted](snap).Latest()
	require.True(t, ok)
	assert.Equal(t, "The user counted to three.", done.Summary)
	calls := m.Calls()
	last := calls[len(calls)-1].Request.Messages
	assert.Contains(t, last[1].Content, "The user counted to three.", "the next turn goes on from the summary")
}
