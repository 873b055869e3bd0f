package offshoot_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot"
	"github.com/offshoot-dev/offshoot/agents"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/permission"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/store"
	"github.com/offshoot-dev/offshoot/store/postgres"
	"github.com/offshoot-dev/offshoot/store/sqlite"
	"github.com/offshoot-dev/offshoot/tools"
	"github.com/offshoot-dev/offshoot/tools/vfs"
)

// askCall is the model's AskUserQuestion call of these tests.
var askCall = model.ToolCall{ID: "ask-1", Name: "AskUserQuestion", Arguments: `{"questions":[{"question":"Which database?","header":"Database","options":[{"label":"SQLite","description":"One file"},{"label":"PostgreSQL"}]}]}`}

// askedText is askCall's question, as a person reads it.
const askedText = "[Database] Which database?\n  1. SQLite — One file\n  2. PostgreSQL"

// park is an Options.AskUser with no one to answer now.
func park(_ context.Context, q string) (string, error) { return "", runner.Wait(q) }

// A run that asks when no one can answer parks: its query ends waiting,
// the process may go (the client and its store closed), and a client
// opened on the stored session later answers it and goes on exactly
// there — on SQLite, and on PostgreSQL when a server answers.
func TestWaitingAcrossARestart(t *testing.T) {
	tests := map[string]func(t *testing.T) func() store.Store{
		"sqlite": func(t *testing.T) func() store.Store {
			path := filepath.Join(t.TempDir(), "sessions.db")
			return func() store.Store {
				st, err := sqlite.Open(within(t), path)
				require.NoError(t, err)
				return st
			}
		},
		"postgres": func(t *testing.T) func() store.Store {
			dsn := postgresDSN(t)
			return func() store.Store {
				st, err := postgres.Open(within(t), dsn)
				require.NoError(t, err)
				return st
			}
		},
	}
	for name, open := range tests {
		t.Run(name, func(t *testing.T) {
			reopen := open(t)
			st := reopen()
			first := scripted.New(scripted.ToolCalls(askCall))
			c, err := offshoot.NewClient(offshoot.Options{Model: first, Store: st, SessionID: "wait-1", AskUser: park})
			require.NoError(t, err)
			res := final(t, collect(t, c, "Set up the project."))
			w, ok := errors.AsType[*runner.Waiting](res.Err)
			require.True(t, ok, "the query ends waiting: %v", res.Err)
			assert.Equal(t, askedText, w.Question)
			got, waits := c.Waiting()
			require.True(t, waits)
			assert.Equal(t, *w, got)
			require.NoError(t, c.Close())
			require.NoError(t, st.Close())

			st = reopen()
			t.Cleanup(func() { assert.NoError(t, st.Close()) })
			second := scripted.New(scripted.Text("SQLite it is."))
			again := newClient(t, second, offshoot.Options{Store: st, SessionID: "wait-1", AskUser: park})
			got, waits = again.Waiting()
			require.True(t, waits, "the wait survives the restart")
			assert.Equal(t, "ask-1", got.CallID)
			assert.Equal(t, askedText, got.Question)

			require.ErrorContains(t, final(t, collect(t, again, "Anything else?")).Err, "waits for an answer")

			msgs := collectSeq(t, again.Answer(within(t), "SQLite"))
			res = final(t, msgs)
			require.NoError(t, res.Err)
			assert.Equal(t, "SQLite it is.", res.Text)
			assert.Contains(t, msgs, offshoot.ToolResultMessage{CallID: "ask-1", Name: "AskUserQuestion", Success: true, Summary: "SQLite"})
			sent := second.Calls()[0].Request.Messages
			assert.Equal(t, model.ToolMessage("ask-1", "AskUserQuestion", "SQLite"), sent[len(sent)-1], "the answer is the call's result")
			_, waits = again.Waiting()
			assert.False(t, waits)

			require.ErrorIs(t, final(t, collectSeq(t, again.Answer(within(t), "PostgreSQL"))).Err, offshoot.ErrNotWaiting, "answering twice")
			require.ErrorContains(t, final(t, collectSeq(t, again.Answer(within(t), " "))).Err, "empty")
		})
	}
}

// With an AskUser that answers, the question is answered at once, and the
// model's requests are those of a run parked and answered later.
func TestAskUserAnsweredAtOnce(t *testing.T) {
	var asked []string
	m := scripted.New(scripted.ToolCalls(askCall), scripted.Text("SQLite it is."))
	c := newClient(t, m, offshoot.Options{AskUser: func(_ context.Context, q string) (string, error) {
		asked = append(asked, q)
		return "SQLite", nil
	}})
	res := final(t, collect(t, c, "Set up the project."))
	require.NoError(t, res.Err)
	assert.Equal(t, []string{askedText}, asked)

	parked := scripted.New(scripted.ToolCalls(askCall), scripted.Text("SQLite it is."))
	p := newClient(t, parked, offshoot.Options{AskUser: park})
	require.Error(t, final(t, collect(t, p, "Set up the project.")).Err)
	require.NoError(t, final(t, collectSeq(t, p.Answer(within(t), "SQLite"))).Err)
	a, b := m.Calls(), parked.Calls()
	require.Len(t, b, 2)
	assert.Equal(t, a[1].Request.Messages, b[1].Request.Messages)

	assert.NotContains(t, newClient(t, m, offshoot.Options{}).Tools().Names(), "AskUserQuestion", "offered only with AskUser")
}

// postgresDSN returns the DSN of a schema of its own on the test server
// (dropped with the test): the one OFFSHOOT_TEST_POSTGRES names, else
// 127.0.0.1:5432, database test. Without a server the test skips, unless
// OFFSHOOT_TEST_POSTGRES_REQUIRED=1.
func postgresDSN(t *testing.T) string {
	t.Helper()
	dsn := os.Getenv("OFFSHOOT_TEST_POSTGRES")
	if dsn == "" {
		dsn = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"
	}
	conn, err := pgx.Connect(within(t), dsn)
	if err != nil {
		if os.Getenv("OFFSHOOT_TEST_POSTGRES_REQUIRED") == "1" {
			t.Fatalf("OFFSHOOT_TEST_POSTGRES_REQUIRED=1, and no PostgreSQL server answers: %v", err)
		}
		t.Skipf("no PostgreSQL server: set OFFSHOOT_TEST_POSTGRES to a DSN, or run PostgreSQL on 127.0.0.1:5432 with a database named test that user postgres may use without a password (%v)", err)
	}
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	schema := "offshoot_wait_" + hex.EncodeToString(b)
	t.Cleanup(func() {
		defer conn.Close(context.Background())
		_, err := conn.Exec(context.Background(), "DROP SCHEMA IF EXISTS "+pgx.Identifier{schema}.Sanitize()+" CASCADE")
		assert.NoError(t, err)
	})
	switch {
	case !strings.Contains(dsn, "://"):
		return dsn + " offshoot_schema=" + schema
	case strings.Contains(dsn, "?"):
		return dsn + "&offshoot_schema=" + schema
	}
	return dsn + "?offshoot_schema=" + schema
}

// Only the main agent's run parks: an agent whose tool waits ends its
// task, and the main agent's model reads that it stopped to wait; the
// session waits for nothing.
func TestAnAgentsWaitDoesNotParkTheMainAgent(t *testing.T) {
	confirm, err := tools.New("confirm", "Ask for a confirmation.", func(context.Context, *tools.Invocation, struct{}) (tools.Result[string], error) {
		return tools.Result[string]{}, runner.Wait("Deploy?")
	})
	require.NoError(t, err)
	m := scripted.New(
		scripted.When(scripted.SystemContains("You deploy"), scripted.ToolCall("confirm", `{}`)),
		scripted.ToolCall("Task", `{"subagent_type":"deployer","description":"Deploy","prompt":"Deploy it."}`),
		scripted.Text("The deployer could not go on."),
	)
	c := newClient(t, m, offshoot.Options{Tools: []tools.Tool{confirm}, AskUser: park,
		Agents: map[string]agents.Definition{"deployer": {Description: "Deploys.", Prompt: "You deploy."}}})
	res := final(t, collect(t, c, "Deploy."))
	require.NoError(t, res.Err)
	assert.Equal(t, "The deployer could not go on.", res.Text)
	_, waits := c.Waiting()
	assert.False(t, waits)
	calls := m.Calls()
	last := calls[len(calls)-1].Request.Messages
	assert.Contains(t, last[len(last)-1].Content, "waits for an answer to its confirm call")
}

// A permission policy's CanUseTool with no one to ask parks the call;
// Client.Answer asks it again with the answer, and a yes runs the tool.
func TestAnApproverWaits(t *testing.T) {
	m := scripted.New(
		scripted.ToolCalls(model.ToolCall{ID: "w1", Name: "write_file", Arguments: `{"file_path":"notes.md","content":"hi"}`}),
		scripted.Text("Written."),
	)
	c := newClient(t, m, offshoot.Options{Permissions: &permission.Policy{
		Settings: permission.Settings{Ask: permission.Rules{{Tool: "Write"}}},
		CanUseTool: func(ctx context.Context, r permission.Request) (permission.Decision, error) {
			switch answer, ok := runner.AnswerOf(ctx); {
			case !ok:
				return permission.Decision{}, runner.Wait("May " + r.Tool + " run?")
			case answer == "yes":
				return permission.Decision{Allow: true}, nil
			}
			return permission.Decision{Reason: "the user said no"}, nil
		},
	}})
	res := final(t, collect(t, c, "Write the notes."))
	w, ok := errors.AsType[*runner.Waiting](res.Err)
	require.True(t, ok, "%v", res.Err)
	assert.True(t, w.Approval)
	assert.Equal(t, "May write_file run?", w.Question)

	res = final(t, collectSeq(t, c.Answer(within(t), "yes")))
	require.NoError(t, res.Err)
	assert.Equal(t, "Written.", res.Text)
	_, written := vfs.Files(c.Session()).Get("notes.md")
	assert.True(t, written)
}
