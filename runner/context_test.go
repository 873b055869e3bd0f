package runner_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/bus"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
)

// chat runs turns questions in one conversation on s, each a continued
// evaluation, and returns the evaluation's id.
func chat(t testing.TB, ctx context.Context, s *session.Session, p *prompt.Prompt, m model.Model, turns int, opts runner.ContextOptions) string {
	t.Helper()
	eval := ""
	for i := range turns {
		resp, err := runner.Evaluate(ctx, runner.Request{Prompt: p, Session: s, Model: m, UserMessage: fmt.Sprintf("question %d", i),
			Continue: eval, Context: opts})
		require.NoError(t, err, "turn %d", i)
		eval = resp.Evaluation
	}
	return eval
}

// A chat of 2,000 questions, each answered after a tool result of 1 to 50
// KB, on a model whose window is 64k tokens, never fails: the runner
// clears old results and compacts; every original message stays
// recorded; a fork before the first compaction renders the original.
func TestLongChatNeverOverflows(t *testing.T) {
	turns := 2000
	if testing.Short() || raceEnabled {
		turns = 300
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	for _, tt := range []struct {
		name string
		opts runner.ContextOptions
	}{
		{"compaction", runner.ContextOptions{}},
		{"clearing and compaction", runner.ContextOptions{ClearToolResults: 3}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m := &windowModel{window: 64_000}
			s := newSession(t)
			snaps := recordSnapshots(s)
			eval := chat(t, ctx, s, chatPrompt(t), m, turns, tt.opts)

			assert.Zero(t, m.overflows, "no request was over the window")
			n := 0
			for c := range session.All[runner.Compacted](s) {
				n++
				assert.Equal(t, eval, c.Evaluation)
				assert.Less(t, c.TokensAfter, c.TokensBefore)
				assert.Equal(t, "auto", c.Trigger)
			}
			cleared := session.Len[runner.ToolResultsCleared](s)
			t.Logf("%d turns: %d compactions, %d clearings, %d model calls, %d summaries", turns, n, cleared, m.calls, m.summaries)
			if tt.opts.ClearToolResults == 0 || turns >= 2000 {
				assert.Positive(t, n, "the chat compacted")
			}
			assert.Positive(t, n+cleared)

			snap := s.Snapshot()
			all := runner.Conversation(snap, eval)
			assert.Len(t, all, 1+turns*4, "system, then each turn's question, call, result and answer")
			for i := range turns {
				require.Equal(t, fmt.Sprintf("question %d", i), all[1+4*i].Content)
				require.Len(t, all[3+4*i].Content, resultSize(i*2+1), "result %d kept whole", i)
			}
			sent := runner.AsSent(snap, eval, all)
			assert.Less(t, tokensOf(sent), tokensOf(all)/10, "what is sent is a fraction of what is recorded")
			assert.Equal(t, all[0], sent[0], "the system message is unchanged")

			at, ok := snaps()
			require.True(t, ok, "a state before the first compaction or clearing")
			fork, err := session.New(session.WithSnapshot(at))
			require.NoError(t, err)
			defer fork.Close()
			before := runner.Conversation(fork.Snapshot(), eval)
			assert.Equal(t, before, runner.AsSent(fork.Snapshot(), eval, before), "before the first compaction, the conversation is sent as recorded")
		})
	}
}

// recordSnapshots keeps s's snapshot after each batch it commits until
// the first compaction or clearing, and returns a func that gives the
// state just before it: the state a store's Fork at a seq rebuilds.
func recordSnapshots(s *session.Session) (before func() (session.Snapshot, bool)) {
	var snaps []session.Snapshot
	done := false
	s.Bus().SubscribeAll("test.snapshots", func(_ context.Context, env bus.Envelope) error {
		switch env.Payload.(type) {
		case runner.Compacted, runner.ToolResultsCleared:
			done = true
		}
		if snap := s.Snapshot(); !done && (len(snaps) == 0 || snaps[len(snaps)-1].Seq() != snap.Seq()) {
			snaps = append(snaps, snap)
		}
		return nil
	})
	return func() (session.Snapshot, bool) {
		if !done || len(snaps) == 0 {
			return session.Snapshot{}, false
		}
		return snaps[len(snaps)-1], true
	}
}
