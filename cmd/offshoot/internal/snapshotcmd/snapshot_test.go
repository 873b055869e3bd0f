package snapshotcmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/tools/planning"
	"github.com/offshoot-dev/offshoot/tools/vfs"
)

func TestRegistryKnowsOffshootTypes(t *testing.T) {
	reg, err := Registry()
	require.NoError(t, err)
	for _, name := range []string{"offshoot.runner.ConversationMessage", "offshoot.vfs.Table", "offshoot.planning.Plan"} {
		_, ok := reg.Lookup(name)
		assert.True(t, ok, name)
	}

	s, err := session.New(session.WithRegistry(reg))
	require.NoError(t, err)
	defer s.Close()
	require.NoError(t, s.Install(context.Background(), vfs.Reducers(vfs.Table{})))
	require.NoError(t, s.Install(context.Background(), planning.Reducers()))
	require.NoError(t, s.Dispatch(context.Background(), runner.Inbound{Source: "test", Text: "hello"}))
	data, err := session.MarshalSnapshot(s.Snapshot(), reg)
	require.NoError(t, err)
	assert.Empty(t, unknownTypes(data, reg))
}

func TestUnknownTypes(t *testing.T) {
	reg, err := Registry()
	require.NoError(t, err)
	tests := []struct {
		data string
		want []string
	}{
		{`{"slices": [{"slice_type": "offshoot.vfs.Table", "items": []}]}`, nil},
		{`{"slices": [{"slice_type": "b.T", "item_type": "a.T", "items": []}, {"slice_type": "b.T"}]}`, []string{"a.T", "b.T"}},
		{`{"slices": [{"slice_type": 5}]}`, nil},
		{`not json`, nil},
		{`{"slices": {"slice_type": "x"}}`, nil},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, unknownTypes([]byte(tt.data), reg), tt.data)
	}
}

func TestOneLine(t *testing.T) {
	assert.Equal(t, "a b c", oneLine("a\n\n b\tc ", 10))
	assert.Equal(t, "abc…", oneLine("abcdef", 3))
	assert.Equal(t, "ééé…", oneLine("éééé", 3), "cut at characters, not bytes")
}

func TestSize(t *testing.T) {
	assert.Equal(t, "15 B", size(15))
	assert.Equal(t, "1.5 KiB", size(1536))
	assert.Equal(t, "2.0 MiB", size(2<<20))
}

func TestOneLineEscapes(t *testing.T) {
	assert.Equal(t, "x \uFFFD[2J y", oneLine("x\n\x1b[2J y", 20))
}

// A conversation carried on over several queries, as chat and run with
// background tasks do, records a PromptExecuted per query under one
// evaluation id: show sums them.
func TestShowSumsEveryQuery(t *testing.T) {
	reg, err := Registry()
	require.NoError(t, err)
	p, err := prompt.New("example", "helper", prompt.Markdown[prompt.NoParams]("Helper", "You help."), vfs.Section(vfs.Options{}))
	require.NoError(t, err)
	tests := []struct {
		name    string
		queries [][]scripted.Turn
		failed  bool
		want    string // with %d for the tokens of every model call
	}{{
		name:    "one query, one of each",
		queries: [][]scripted.Turn{{scripted.ToolCall("ls", `{"path": ""}`), scripted.Text("Nothing here.")}},
		want:    ": 5 messages, 2 model turns, 1 tool call, %d tokens, finished",
	}, {
		name:    "one query, one turn",
		queries: [][]scripted.Turn{{scripted.Text("Hi.")}},
		want:    ": 3 messages, 1 model turn, 0 tool calls, %d tokens, finished",
	}, {
		name: "three queries of one chat",
		queries: [][]scripted.Turn{
			{scripted.Text("Hi.")},
			{scripted.ToolCall("ls", `{"path": ""}`), scripted.Text("Nothing here.")},
			{scripted.ToolCall("ls", `{"path": ""}`), scripted.ToolCall("ls", `{"path": ""}`), scripted.Text("Still nothing.")},
		},
		want: ": 13 messages, 3 queries, 6 model turns, 3 tool calls, %d tokens, finished",
	}, {
		name:    "the last query failed",
		queries: [][]scripted.Turn{{scripted.Text("Hi.")}, {scripted.Fail(errors.New("the server is down"))}},
		failed:  true,
		want:    ": 4 messages, 2 queries, 2 model turns, 0 tool calls, %d tokens, 1 of 2 queries finished", // the failed call counts
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			s, err := session.New(session.WithRegistry(reg))
			require.NoError(t, err)
			defer s.Close()
			eval := ""
			for i, turns := range tt.queries {
				resp, err := runner.Evaluate(ctx, runner.Request{Prompt: p, Session: s, Model: scripted.New(turns...),
					ModelName: "main", UserMessage: fmt.Sprintf("message %d", i+1), Continue: eval})
				if tt.failed && i == len(tt.queries)-1 {
					require.Error(t, err)
					continue
				}
				require.NoError(t, err)
				eval = resp.Evaluation
			}
			data, err := session.MarshalSnapshot(s.Snapshot(), reg)
			require.NoError(t, err)
			file := filepath.Join(t.TempDir(), "chat.json")
			require.NoError(t, os.WriteFile(file, data, 0o644))
			snap, err := read(file, reg)
			require.NoError(t, err)

			tokens := 0
			for v := range snap.Items(reflect.TypeFor[runner.ModelCalled]()) {
				tokens += v.(runner.ModelCalled).Usage.TotalTokens
			}
			require.Positive(t, tokens)

			var out strings.Builder
			require.NoError(t, show(&out, file, snap, reg, false))
			assert.Contains(t, out.String(), "\n  "+eval+" (example/helper)"+fmt.Sprintf(tt.want, tokens)+"\n")
		})
	}
}

// compare leaves out what says which run an item belongs to, or when it
// happened, and nothing else.
func TestNormalize(t *testing.T) {
	n := &normalizer{ids: strings.NewReplacer("0b5e-task-42", "<id>")}
	tests := []struct {
		name string
		doc  string
		want string
	}{
		{"identity and timing fields go", `{"evaluation":"e-1","session_id":"s","agent_id":"a","call_id":"c","duration":5,"created_at":"t","updated_at":"t","text":"hi"}`, `{"text":"hi"}`},
		{"at any depth", `{"tool_calls":[{"id":"call_1","name":"ls"}],"usage":{"total_tokens":3}}`, `{"tool_calls":[{"name":"ls"}],"usage":{"total_tokens":3}}`},
		{"an id inside a text", `{"result":"started task 0b5e-task-42; see 0b5e-task-42.output"}`, `{"result":"started task <id>; see <id>.output"}`},
		{"a time inside a text", `{"result":"{\"updated_at\":\"2026-11-23T05:52:59.775Z\"} and 2026-01-02T03:04:05+01:00"}`, `{"result":"{\"updated_at\":\"<time>\"} and <time>"}`},
		{"what the work is stays", `{"path":"a.go","content":"package a\n","version":2,"status":"done","turn":3}`, `{"content":"package a\n","path":"a.go","status":"done","turn":3,"version":2}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var doc any
			require.NoError(t, json.Unmarshal([]byte(tt.doc), &doc))
			got, err := json.Marshal(n.normalize(doc))
			require.NoError(t, err)
			assert.JSONEq(t, tt.want, string(got))
		})
	}
}

func TestParagraph(t *testing.T) {
	assert.Empty(t, paragraph("x.T", []string{"a"}, []string{"a"}))
	assert.Empty(t, paragraph("x.T", nil, nil), "a missing slice equals an empty one")
	assert.Equal(t, "slice x.T: 2 items vs 1 item\n  - [0] a\n  + [0] b\n  - [1] c\n", paragraph("x.T", []string{"a", "c"}, []string{"b"}))
	long := make([]string, 50)
	for i := range long {
		long[i] = fmt.Sprint(i)
	}
	assert.Equal(t, maxItemLines+2, strings.Count(paragraph("x.T", nil, long), "\n"), "the head, at most maxItemLines items, then …")
}
