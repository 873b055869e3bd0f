package runner_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
)

// A provider's context-length error leads to one compaction and one
// retry; when the retry is refused too, the evaluation fails clearly.
func TestContextLengthErrorCompactsOnceAndRetries(t *testing.T) {
	tests := []struct {
		name      string
		refuse    int // how many chat calls the provider refuses, from the 5th question's first
		wantErr   bool
		wantCalls int
	}{
		{name: "retry succeeds", refuse: 1},
		{name: "retry refused", refuse: 2, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inner := &windowModel{}
			refused := 0
			question := 0
			m := model.Func(func(ctx context.Context, req *model.Request) (*model.Response, error) {
				last := req.Messages[len(req.Messages)-1]
				if last.Role == model.RoleUser && strings.HasPrefix(last.Content, "question ") {
					fmt.Sscanf(last.Content, "question %d", &question)
				}
				if question == 4 && !strings.Contains(req.Messages[0].Content, "You write the summary") && refused < tt.refuse {
					refused++
					return nil, &model.APIError{StatusCode: 400, Code: "context_length_exceeded", Message: "too long", Err: model.ErrContextLength}
				}
				return inner.Generate(ctx, req)
			})
			s := newSession(t)
			// Manual: no automatic compaction, so only the error triggers one.
			opts := runner.ContextOptions{Manual: true}
			eval := chat(t, ctx, s, chatPrompt(t), m, 4, opts)
			resp, err := runner.Evaluate(ctx, runner.Request{Prompt: chatPrompt(t), Session: s, Model: m, UserMessage: "question 4", Continue: eval, Context: opts})
			if tt.wantErr {
				require.ErrorIs(t, err, model.ErrContextLength)
				assert.Contains(t, err.Error(), "still too long after compacting")
			} else {
				require.NoError(t, err)
				assert.Equal(t, eval, resp.Evaluation)
			}
			c, ok := session.Latest[runner.Compacted](s)
			require.True(t, ok)
			assert.Equal(t, "overflow", c.Trigger)
			assert.Equal(t, 1, session.Len[runner.Compacted](s), "one compaction")
		})
	}
}

// ContextUsage follows each model call, with the window the model
// describes, or Options'.
func TestContextUsageAfterEachCall(t *testing.T) {
	for _, tt := range []struct {
		name   string
		opts   runner.ContextOptions
		window int
	}{
		{"the model's window", runner.ContextOptions{}, 64_000},
		{"the options' window", runner.ContextOptions{Window: 100_000, MaxOutput: 1_000}, 100_000},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m := &windowModel{window: 64_000}
			s := newSession(t)
			chat(t, ctx, s, chatPrompt(t), m, 2, tt.opts)
			usages := session.Get[runner.ContextUsage](s)
			require.Equal(t, 4, usages.Len(), "one a model call")
			for u := range usages.All() {
				assert.Equal(t, tt.window, u.Window)
				assert.Positive(t, u.Tokens)
				assert.False(t, u.Estimated)
				assert.Equal(t, u.Tokens*100/tt.window, u.Percent())
			}
			assert.Equal(t, []int{1, 2, 1, 2}, []int{usages.At(0).Turn, usages.At(1).Turn, usages.At(2).Turn, usages.At(3).Turn})
		})
	}
}

// Compact compacts on demand with guidance, which the summary prompt
// carries; PreCompact adds its own and may refuse automatic ones only.
func TestCompactOnDemand(t *testing.T) {
	m := &windowModel{}
	s := newSession(t)
	eval := chat(t, ctx, s, chatPrompt(t), m, 5, runner.ContextOptions{Manual: true})
	var infos []runner.CompactionInfo
	opts := runner.ContextOptions{SummaryModel: m, PreCompact: func(_ context.Context, info runner.CompactionInfo) (string, bool) {
		infos = append(infos, info)
		return "the file names", false
	}}
	c, err := runner.Compact(ctx, runner.Request{Session: s, Continue: eval, Model: m, Context: opts}, "the numbers")
	require.NoError(t, err)
	assert.Equal(t, "manual", c.Trigger)
	assert.Equal(t, 1+4*4, c.Upto, "the last two model turns are kept: question 4's call and answer")
	require.Len(t, infos, 1)
	assert.Equal(t, "the numbers", infos[0].Guidance)

	all := runner.Conversation(s.Snapshot(), eval)
	sent := runner.AsSent(s.Snapshot(), eval, all)
	require.Len(t, sent, 2+4)
	assert.Equal(t, all[0], sent[0])
	assert.Contains(t, sent[1].Content, m.lastSummary)
	assert.Equal(t, all[c.Upto:], sent[2:])

	// The next question goes on from the compacted conversation.
	var got []model.Message
	m.requests = func(req *model.Request, _ int) {
		if got == nil {
			got = req.Messages
		}
	}
	chatFrom(t, s, m, eval, "question 5")
	assert.Equal(t, sent, got[:len(sent)], "the next request begins with the compacted conversation")

	// A conversation with no turns to spare has nothing to compact.
	short := newSession(t)
	e := chat(t, ctx, short, chatPrompt(t), m, 1, runner.ContextOptions{})
	_, err = runner.Compact(ctx, runner.Request{Session: short, Continue: e, Model: m}, "")
	require.ErrorIs(t, err, runner.ErrNothingToCompact)
	_, err = runner.Compact(ctx, runner.Request{Session: short, Model: m}, "")
	require.Error(t, err)
}

func chatFrom(t *testing.T, s *session.Session, m model.Model, eval, question string) {
	t.Helper()
	_, err := runner.Evaluate(ctx, runner.Request{Prompt: chatPrompt(t), Session: s, Model: m, UserMessage: question, Continue: eval})
	require.NoError(t, err)
}

// PreCompact refuses an automatic compaction: the request is sent as it is.
func TestPreCompactVetoesAutomatic(t *testing.T) {
	m := &windowModel{window: 1_000_000}
	s := newSession(t)
	asked := 0
	opts := runner.ContextOptions{Window: 20_000, MaxOutput: 1_000, PreCompact: func(context.Context, runner.CompactionInfo) (string, bool) {
		asked++
		return "", false
	}}
	chat(t, ctx, s, chatPrompt(t), m, 10, opts)
	assert.Positive(t, asked)
	assert.Zero(t, session.Len[runner.Compacted](s))
}

// A summary turn that fails leaves an automatic compaction undone, and
// the evaluation goes on.
func TestFailedAutomaticCompactionSendsAsIs(t *testing.T) {
	m := &windowModel{window: 1_000_000}
	broken := model.Func(func(context.Context, *model.Request) (*model.Response, error) {
		return nil, errors.New("summary model down")
	})
	s := newSession(t)
	chat(t, ctx, s, chatPrompt(t), m, 10, runner.ContextOptions{Window: 20_000, MaxOutput: 1_000, SummaryModel: broken})
	assert.Zero(t, session.Len[runner.Compacted](s))
}

func TestCompactPromptRenders(t *testing.T) {
	rd, err := runner.CompactPrompt().Render(runner.CompactionInfo{Guidance: "keep the API names"})
	require.NoError(t, err)
	assert.Contains(t, rd.Text, "You write the summary")
	assert.Contains(t, rd.Text, "keep the API names")
	assert.Equal(t, "offshoot", runner.CompactPrompt().NS())
	assert.Equal(t, "compact", runner.CompactPrompt().Key())
}
