package inspector_test

import (
	"encoding/json"
	"fmt"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/store"
	"github.com/offshoot-dev/offshoot/tools/vfs"
)

// hostile are texts a model, a tool or a repository may put in a session
// to run script in the page of the person who inspects it.
var hostile = []struct {
	name, text string
	// file is a file name made of it, for the VFS's rules (printable
	// ASCII, no "/" games).
	file string
}{
	{"a script tag", `<script>alert("x")</script>`, `<script>alert(1)<script>.md`},
	{"an attribute breaker", `"><img src=x onerror=alert(1)>`, `"><img src=x onerror=alert(1)>.md`},
	{"single quotes", `' onmouseover='alert(1)' x='`, `' onmouseover='alert(1)'.md`},
	{"a javascript: link", `javascript:alert(1)`, `javascript:alert(1)`},
	{"a closing tag", `</textarea></pre></details><svg onload=alert(1)>`, `svg onload=alert(1).md`},
	{"control characters", "red\x1b[31m\x07bell\x00nul\x08", "plain.md"},
	{"bidirectional overrides", "abc\u202Etxt.exe\u2066", "bidi.md"},
	{"a template", `{{.Token}} ${document.cookie}`, `{{.Token}}.md`},
}

// hostileStore returns a store whose session id holds payload everywhere a
// session's text can be (id, a hostile one too): its tags, its messages, its tool calls'
// names and arguments, a tool's result, its files' names and contents.
func hostileStore(t *testing.T, id, payload, file string) (store.Store, []session.Reducers, string) {
	ctx := within(t)
	st := store.NewMemory()
	sets := []session.Reducers{runner.Reducers(), vfs.Reducers(vfs.Table{})}
	// A store may come from anywhere: its ids are not the ids a session
	// would take, so it is written through the store's own interface.
	tags := map[string]string{
		"offshoot.kind": payload, "offshoot.question": payload, "offshoot.agent": payload, "offshoot.agent.type": payload,
		"offshoot.agent.description": payload, "offshoot.worker": payload, payload: payload,
	}
	require.NoError(t, st.Create(ctx, store.Header{ID: id, Tags: tags}))
	args, _ := json.Marshal(map[string]string{payload: payload})
	seq := uint64(1)
	commit := func(id string, events ...any) {
		b := store.Batch{Seq: seq, Time: time.Now()}
		for _, e := range events {
			data, err := json.Marshal(e)
			require.NoError(t, err)
			b.Events = append(b.Events, store.Event{Type: eventName(e), Data: data})
		}
		require.NoError(t, st.Append(ctx, id, b))
		seq += uint64(len(events))
	}
	commit(id,
		runner.PromptRendered{Evaluation: payload, NS: payload, Key: payload, Text: payload},
		runner.ConversationMessage{Evaluation: payload, Message: model.UserMessage(payload)},
		runner.ConversationMessage{Evaluation: payload, Message: model.AssistantMessage(payload+"\n```\n"+payload+"\n```",
			model.ToolCall{ID: payload, Name: payload, Arguments: payload}, model.ToolCall{ID: "2", Name: "x", Arguments: string(args)})},
		runner.ModelCalled{Evaluation: payload, Model: payload, Error: payload, Usage: model.Usage{TotalTokens: 10}},
	)
	commit(id,
		runner.ToolInvoked{Evaluation: payload, Name: payload, CallID: payload, Arguments: args, Result: payload},
		runner.ConversationMessage{Evaluation: payload, Message: model.Message{Role: model.RoleTool, Content: payload, ToolCallID: payload, Name: payload}},
		vfs.FileWritten{Path: file, Content: payload, Version: 1},
	)
	child := "child " + id
	require.NoError(t, st.Create(ctx, store.Header{ID: child, Parent: id, ForkSeq: seq - 1, Tags: tags}))
	commit(child, runner.Inbound{Source: payload, Text: payload})
	return st, sets, id
}

// eventName is the name a stored event of e's type has.
func eventName(e any) string {
	switch e.(type) {
	case vfs.FileWritten:
		return "offshoot.vfs.FileWritten"
	default:
		return "offshoot.runner." + reflect.TypeOf(e).Name()
	}
}

// No page shows a hostile text as anything but text.
func TestHostileContent(t *testing.T) {
	for _, tt := range hostile {
		t.Run(tt.name, func(t *testing.T) {
			st, sets, id := hostileStore(t, "id "+tt.text, tt.text, tt.file)
			r := run{st: st, sets: sets}
			s := newServer(t, r, true)
			h, err := st.Header(within(t), id)
			require.NoError(t, err)
			q := url.QueryEscape(id)
			child := url.QueryEscape("child " + id)
			for _, target := range []string{
				"/", "/?all=1", "/?q=" + url.QueryEscape(tt.text), "/session?id=" + q, "/session?id=" + child,
				"/state?id=" + q, fmt.Sprintf("/diff?id=%s&from=0&to=%d", q, h.Seq), "/tree?id=" + child,
				"/writeback?id=" + q, "/session?id=" + q + "x", "/state?id=" + q + "&seq=" + url.QueryEscape(tt.text),
			} {
				code, body := get(t, s, target)
				assert.Less(t, code, 500, target)
				assertInert(t, target, body)
			}
			code, body := get(t, s, "/session?id="+q)
			require.Equal(t, 200, code)
			assert.Contains(t, body, "calls", "the page was shown, not refused")
		})
	}
}

// assertInert fails when body holds markup or characters a hostile text
// could have brought.
func assertInert(t *testing.T, target, body string) {
	t.Helper()
	lower := strings.ToLower(body)
	// Escaped, these are text; raw, markup.
	for _, bad := range []string{"<script>alert", "<img", "<svg", "</textarea>", "' onmouseover", `href="javascript:`, `src="javascript:`, `action="javascript:`, `href='javascript:`} {
		assert.NotContains(t, lower, bad, "%s", target)
	}
	for _, c := range []string{"\x1b", "\x07", "\x00", "\x08", "\u202E", "\u2066"} {
		assert.NotContains(t, body, c, "%s: a control character %q", target, c)
	}
}
