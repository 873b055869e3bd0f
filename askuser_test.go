package offshoot_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/tools"
)

// askWith calls the AskUserQuestion tool on args, answering with answer
// and err, and returns what it was asked and its outcome.
func askWith(t testing.TB, args string, answer string, err error) (asked string, out tools.Outcome) {
	t.Helper()
	tool, e := offshoot.AskUserTool(func(_ context.Context, q string) (string, error) {
		asked = q
		return answer, err
	})
	require.NoError(t, e)
	s, e := session.New()
	require.NoError(t, e)
	defer s.Close()
	out = tool.Call(context.Background(), &tools.Invocation{Session: s, CallID: "c1"}, json.RawMessage(args))
	return asked, out
}

// The model's questions reach AskUser worded for a person; its answer is
// the result word for word; a bad call is the model's to correct; a wait
// outside the client's own session is not parked.
func TestAskUserQuestionTool(t *testing.T) {
	tests := map[string]struct {
		args, answer string
		err          error
		asked, text  string
		success      bool
	}{
		"two questions": {
			args:   `{"questions":[{"question":"Which database?","header":"DB","options":[{"label":"SQLite","description":"One file"},{"label":"PostgreSQL"}],"multiSelect":true},{"question":"Name?"}]}`,
			answer: "SQLite; offshoot", asked: "[DB] Which database?\n  1. SQLite — One file\n  2. PostgreSQL\n  (several may be chosen)\n\nName?",
			text: "SQLite; offshoot", success: true,
		},
		"no question": {args: `{"questions":[]}`, text: "questions", success: false},
		"five options": {
			args: `{"questions":[{"question":"Q?","options":[{"label":"a"},{"label":"b"},{"label":"c"},{"label":"d"},{"label":"e"}]}]}`,
			text: "options", success: false,
		},
		"an empty answer":     {args: `{"questions":[{"question":"Q?"}]}`, asked: "Q?", text: "The user gave no answer.", success: true},
		"no one to ask":       {args: `{"questions":[{"question":"Q?"}]}`, err: runner.Wait("Q?"), asked: "Q?", text: "No one can answer your questions now"},
		"the asking failed":   {args: `{"questions":[{"question":"Q?"}]}`, err: assert.AnError, asked: "Q?", text: "the user could not be asked"},
		"header on two lines": {args: `{"questions":[{"question":"Q?","header":"a\nb"}]}`, answer: "x", asked: "[a b] Q?", text: "x", success: true},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			asked, out := askWith(t, tt.args, tt.answer, tt.err)
			assert.Equal(t, tt.asked, asked)
			assert.Contains(t, out.Text, tt.text)
			assert.Equal(t, tt.success, out.Success)
		})
	}
}

// Whatever the model sends, the tool neither panics nor asks an unbounded
// question.
func FuzzAskUserQuestion(f *testing.F) {
	f.Add(`{"questions":[{"question":"Which?","header":"H","options":[{"label":"a","description":"d"}],"multiSelect":true}]}`)
	f.Add(`{"questions":"x"}`)
	f.Add(`{}`)
	f.Fuzz(func(t *testing.T, args string) {
		if !json.Valid([]byte(args)) || !strings.HasPrefix(strings.TrimSpace(args), "{") {
			return
		}
		asked, out := askWith(t, args, "ok", nil)
		require.True(t, utf8.ValidString(out.Text) || !utf8.ValidString(args))
		require.LessOrEqual(t, len(asked), 4*4*(2000+40+4*(200+1000+16)+40), "4 questions, 4 options, 4 bytes a character at most")
	})
}
