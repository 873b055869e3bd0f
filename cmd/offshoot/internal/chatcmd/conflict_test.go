package chatcmd

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/store"
	"github.com/offshoot-dev/offshoot/store/sqlite"
)

// Another process that writes to the chat's stored session during a turn
// (a second 'chat --resume' of it) makes the turn fail: the chat says
// that, and to resume the session again — not to say it again, which
// would fail the same way for ever.
func TestAnotherWriterFailsTheTurnAndSaysWhatToDo(t *testing.T) {
	f := newFixture(t, nil)
	path := filepath.Join(t.TempDir(), "sessions.db")
	other := scripted.Func(func(ctx context.Context, _ *model.Request) (*model.Response, error) {
		st, err := sqlite.Open(context.Background(), path)
		if err != nil {
			return nil, err
		}
		defer st.Close()
		hs, err := st.List(ctx, store.Query{})
		if err != nil || len(hs) != 1 {
			return nil, err
		}
		b := store.Batch{Seq: hs[0].Seq + 1, Events: []store.Event{{Type: "offshoot.test.Other", Data: json.RawMessage(`{}`)}}}
		if err := st.Append(ctx, hs[0].ID, b); err != nil {
			return nil, err
		}
		return &model.Response{Message: model.AssistantMessage("Hello.")}, nil
	})
	c := &chat{}
	c.flags.Store.DSN = path
	require.NoError(t, f.chat(t, context.Background(), strings.NewReader("hello\n"), scripted.New(other), c))
	msg := f.stderr.String()
	assert.Contains(t, msg, "the turn failed: another process wrote to this session meanwhile (session ")
	assert.Contains(t, msg, "what the turn did from then on was not stored; end this one and carry the session on from where the other left it with 'offshoot chat --resume' and its id\n")
	assert.NotContains(t, msg, "say it again")
}
