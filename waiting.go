package offshoot

import (
	"context"
	"errors"
	"iter"
	"strings"

	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
)

// ErrNotWaiting: Client.Answer on a session that waits for no answer —
// nothing asked, or the question was answered already.
var ErrNotWaiting = errors.New("offshoot: the session waits for no answer: nothing asked, or it was answered already (Client.Waiting says what a session waits for)")

// Waiting returns what the client's session waits for, and whether it
// waits: the question a tool call of the main agent's put to a person who
// was not there to answer (Options.AskUser returned runner.Wait, or a
// tool or the permission policy's CanUseTool did), which ended its query waiting. It is
// read from the session's records, so a client opened on the stored
// session after a restart (Options.Store, Options.SessionID) sees it,
// and so does a fork. Answer it with Answer; until then, Query is an
// error.
func (c *Client) Waiting() (runner.Waiting, bool) {
	w, ok := session.Latest[runner.Waiting](c.session)
	if !ok || w.Answered {
		return runner.Waiting{}, false
	}
	return w, true
}

// Answer continues the query the session waits in (see Waiting) with
// answer, and yields what happens from there, as Query does: answer is
// the waiting tool call's result, word for word — the conversation is
// what it would have been had the answer come at once — and the main
// agent goes on. It fails (ResultMessage.Err) with ErrNotWaiting when the
// session waits for nothing, an answer given twice included, and on an
// empty answer.
func (c *Client) Answer(ctx context.Context, answer string) iter.Seq[Message] {
	if strings.TrimSpace(answer) == "" {
		return func(yield func(Message) bool) {
			yield(ResultMessage{Err: errors.New("offshoot: the answer is empty; give the person's answer as text")})
		}
	}
	return c.query(ctx, "", nil, answer)
}
