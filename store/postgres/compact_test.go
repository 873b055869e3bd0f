package postgres

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/serde"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/store"
	"github.com/offshoot-dev/offshoot/store/journal"
)

// A compaction survives closing and reopening the store: the reopened
// session sends the compacted conversation, keeps every message, and a
// fork at the compaction's Seq sends the original.
func TestCompactionSurvivesReopen(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dsn := serverDSN(t)
	schema := testSchema(t, dsn)
	st, err := Open(ctx, withSchema(dsn, schema))
	require.NoError(t, err)
	m := model.Func(func(_ context.Context, req *model.Request) (*model.Response, error) {
		if strings.Contains(req.Messages[0].Content, "You write the summary") {
			return &model.Response{Message: model.AssistantMessage("The user listed four facts.")}, nil
		}
		return &model.Response{Message: model.AssistantMessage("Noted.")}, nil
	})
	p, err := prompt.New("test", "chat", prompt.Markdown[prompt.NoParams]("Role", "You note facts."))
	require.NoError(t, err)
	j := journal.New(st, journal.Options{})
	s, err := session.New(session.WithID("chat"), session.WithRegistry(serde.NewRegistry()), session.WithJournal(j))
	require.NoError(t, err)
	eval := ""
	for i := range 4 {
		resp, err := runner.Evaluate(ctx, runner.Request{Prompt: p, Session: s, Model: m, UserMessage: fmt.Sprint("fact ", i), Continue: eval})
		require.NoError(t, err)
		eval = resp.Evaluation
	}
	done, err := runner.Compact(ctx, runner.Request{Session: s, Continue: eval, Model: m}, "")
	require.NoError(t, err)
	want := runner.AsSent(s.Snapshot(), eval, runner.Conversation(s.Snapshot(), eval))
	require.NoError(t, s.Close())
	require.NoError(t, j.Close())
	require.NoError(t, st.Close())

	st, err = Open(ctx, withSchema(dsn, schema))
	require.NoError(t, err)
	defer st.Close()
	j = journal.New(st, journal.Options{})
	defer j.Close()
	again, err := j.Open(ctx, "chat", serde.NewRegistry(), []session.Reducers{runner.Reducers()})
	require.NoError(t, err)
	defer again.Close()
	snap := again.Snapshot()
	all := runner.Conversation(snap, eval)
	assert.Len(t, all, 1+4*2, "every message stays")
	assert.Equal(t, want, runner.AsSent(snap, eval, all))
	got, ok := session.Latest[runner.Compacted](again)
	require.True(t, ok)
	assert.Equal(t, *done, got)

	require.NoError(t, store.Fork(ctx, st, "chat", done.Seq, "undo"))
	undo, err := j.Open(ctx, "undo", serde.NewRegistry(), []session.Reducers{runner.Reducers()})
	require.NoError(t, err)
	defer undo.Close()
	before := runner.Conversation(undo.Snapshot(), eval)
	assert.Equal(t, all, before)
	assert.Equal(t, before, runner.AsSent(undo.Snapshot(), eval, before), "the fork sends the original")
}
