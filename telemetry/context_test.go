package telemetry_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/telemetry"
)

// Each chat span says how full the model's context window was.
func TestChatSpansSayHowFullTheContextIs(t *testing.T) {
	ctx := watchdog(t)
	p := newProviders(t)
	s := newSession(t)
	obs, err := telemetry.Observe(s.Bus(), p.options())
	require.NoError(t, err)
	defer obs.Stop()
	m := scripted.New(scripted.ToolCall("echo", `{"text":"hi"}`), scripted.Text("done"))
	_, err = runner.Evaluate(ctx, runner.Request{Prompt: agentPrompt(t, "demo", "echo", echoTool(t, false)), Session: s, Model: m, ModelName: "scripted", UserMessage: "go",
		Context: runner.ContextOptions{Window: 50_000}})
	require.NoError(t, err)

	usages := session.Get[runner.ContextUsage](s)
	chats := byName(p.spans.GetSpans(), "chat scripted")
	require.Len(t, chats, 2)
	for i, sp := range chats {
		assert.Equal(t, 50_000, intAttr(sp, "offshoot.context.window"))
		assert.Equal(t, usages.At(i).Tokens, intAttr(sp, "offshoot.context.tokens"))
		assert.Positive(t, usages.At(i).Tokens)
	}
}
