package runner_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/tools"
)

// A tool call whose arguments are 10 MB is one failed call the model can
// correct, never the run; the arguments are not kept in the conversation.
func TestHugeArgumentsFailOneCall(t *testing.T) {
	huge := `{"text":"` + strings.Repeat("x", 10<<20) + `"}`
	var second *model.Request
	m := scripted.New(
		scripted.ToolCall("echo", huge),
		scripted.Func(func(_ context.Context, req *model.Request) (*model.Response, error) {
			second = req
			return &model.Response{Message: model.AssistantMessage("I will send less.")}, nil
		}),
	)
	s := newSession(t)
	resp, err := runner.Evaluate(ctx, request(newPrompt(t, echoTool(t)), s, m))
	require.NoError(t, err)
	assert.Equal(t, "I will send less.", resp.Text)
	ti, ok := session.Latest[runner.ToolInvoked](s)
	require.True(t, ok)
	assert.False(t, ti.Success)
	assert.Contains(t, ti.Result, "Tool validation failed: echo: the arguments are 10.0 MiB, more than the 1.0 MiB a call may have")
	assert.Zero(t, session.Len[Echoed](s), "the tool did not run")
	size := 0
	for _, msg := range second.Messages {
		size += len(msg.Content)
		for _, c := range msg.ToolCalls {
			size += len(c.Arguments)
		}
	}
	assert.Less(t, size, 64<<10, "the next request does not carry the 10 MB again")
}

// A tool result of 5 MB reaches the model cut, with a note of what was cut.
func TestHugeResultsAreCut(t *testing.T) {
	big, err := tools.New("big", "Return a lot.", func(context.Context, *tools.Invocation, struct{}) (tools.Result[string], error) {
		return tools.OK(strings.Repeat("é", 5<<20/2), ""), nil
	})
	require.NoError(t, err)
	var second *model.Request
	m := scripted.New(scripted.ToolCall("big", `{}`), scripted.Func(func(_ context.Context, req *model.Request) (*model.Response, error) {
		second = req
		return &model.Response{Message: model.AssistantMessage("ok")}, nil
	}))
	s := newSession(t)
	_, err = runner.Evaluate(ctx, request(newPrompt(t, big), s, m))
	require.NoError(t, err)
	last := second.Messages[len(second.Messages)-1]
	assert.Equal(t, model.RoleTool, last.Role)
	assert.Less(t, len(last.Content), 260<<10)
	assert.Contains(t, last.Content, "more cut: a tool result may have at most 256.0 KiB")
	assert.True(t, strings.HasPrefix(last.Content, "éé"), "cut at a character boundary")
	ti, _ := session.Latest[runner.ToolInvoked](s)
	assert.Equal(t, last.Content, ti.Result, "the record holds what the model read")
}
