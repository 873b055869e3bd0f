package anthropic_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/anthropic"
	"github.com/offshoot-dev/offshoot/model/anthropic/anthropictest"
	"github.com/offshoot-dev/offshoot/model/scripted"
)

// A cassette records an Anthropic exchange — thinking kept for the tool
// loop, cache reads and writes — and replays it offline, request for
// request, with the same answers.
func TestCassetteRecordsAndReplays(t *testing.T) {
	ctx := watchdog(t)
	srv := anthropictest.NewServer()
	srv.Answer = loopAnswers(3)
	m := newModel(t, srv, anthropic.Config{})
	var tape bytes.Buffer
	rec := scripted.Record(m, &tape)
	assert.Equal(t, "anthropic", model.Describe(rec).Provider)

	run := func(mdl model.Model) []*model.Response {
		req := &model.Request{Messages: []model.Message{model.SystemMessage("You are careful. " + string(bytes.Repeat([]byte("Rules. "), 800))), model.UserMessage("Go.")}, Tools: loopTools()}
		var out []*model.Response
		for {
			resp, err := model.Stream(ctx, mdl, req, nil)
			require.NoError(t, err)
			out = append(out, resp)
			if len(resp.Message.ToolCalls) == 0 {
				return out
			}
			req.Messages = append(req.Messages, resp.Message, model.ToolMessage(resp.Message.ToolCalls[0].ID, "tool_1", "done"))
		}
	}
	recorded := run(rec)
	srv.Close()
	require.Len(t, recorded, 3)
	assert.Positive(t, recorded[1].Usage.CachedInputTokens)
	assert.Positive(t, recorded[0].Usage.CacheWriteTokens)

	replay, err := scripted.Replay(&tape)
	require.NoError(t, err)
	assert.Equal(t, recorded, run(replay))
}
