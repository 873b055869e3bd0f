package scripted_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/scripted"
)

func childScript(n int) *scripted.Model {
	var turns []scripted.Turn
	for i := range n {
		turns = append(turns, scripted.When(scripted.LastUserContains(fmt.Sprintf("child %d:", i)),
			scripted.ToolCall("read", fmt.Sprintf(`{"path":"file%d"}`, i)),
			scripted.Text(fmt.Sprintf("summary %d", i))))
	}
	return scripted.New(turns...)
}

func TestRecordThenReplayInParallel(t *testing.T) {
	const n = 12
	var cassette bytes.Buffer
	rec := scripted.Record(childScript(n), &cassette)
	want := runChildren(t, rec, n)
	require.NoError(t, rec.Close())
	assert.Equal(t, 2*n, strings.Count(cassette.String(), "\n"))

	player, err := scripted.Replay(bytes.NewReader(cassette.Bytes()))
	require.NoError(t, err)
	assert.Equal(t, 2*n, player.Len())
	for round := range 3 { // replays are repeatable
		assert.Equal(t, want, runChildren(t, player, n), "round %d", round)
	}
}

func TestReplayIsNotPositional(t *testing.T) {
	var cassette bytes.Buffer
	rec := scripted.Record(scripted.New(
		scripted.When(scripted.LastUserContains("a"), scripted.Text("for a")),
		scripted.When(scripted.LastUserContains("b"), scripted.Text("for b")),
	), &cassette)
	for _, q := range []string{"a", "b"} {
		_, err := rec.Generate(ctx, conv(model.UserMessage(q)))
		require.NoError(t, err)
	}
	player, err := scripted.Replay(&cassette)
	require.NoError(t, err)
	for _, q := range []string{"b", "a", "b"} {
		resp, err := player.Generate(ctx, conv(model.UserMessage(q)))
		require.NoError(t, err)
		assert.Equal(t, "for "+q, resp.Message.Content)
	}
}

func TestReplaySameRequestServesInOrderThenRepeatsLast(t *testing.T) {
	var cassette bytes.Buffer
	rec := scripted.Record(scripted.New(scripted.Text("one"), scripted.Text("two")), &cassette)
	for range 2 {
		_, err := rec.Generate(ctx, conv(model.UserMessage("same")))
		require.NoError(t, err)
	}
	player, err := scripted.Replay(&cassette)
	require.NoError(t, err)
	for _, want := range []string{"one", "two", "two"} {
		resp, err := player.Generate(ctx, conv(model.UserMessage("same")))
		require.NoError(t, err)
		assert.Equal(t, want, resp.Message.Content)
	}
}

func TestUnrecordedRequest(t *testing.T) {
	var cassette bytes.Buffer
	rec := scripted.Record(scripted.New(scripted.Text("hi")), &cassette)
	_, err := rec.Generate(ctx, conv(model.SystemMessage("sys"), model.UserMessage("hello")))
	require.NoError(t, err)
	player, err := scripted.Replay(&cassette)
	require.NoError(t, err)

	req := conv(model.SystemMessage("sys"), model.UserMessage("hello, changed"))
	_, err = player.Generate(ctx, req)
	require.ErrorIs(t, err, scripted.ErrUnrecorded)
	var ue *scripted.UnrecordedRequestError
	require.ErrorAs(t, err, &ue)
	hash, herr := scripted.RequestHash(req)
	require.NoError(t, herr)
	assert.Equal(t, hash, ue.Hash)
	assert.Len(t, hash, 64)
	assert.Equal(t, "scripted: cassette has no response for request sha256:"+hash+
		` (2 messages; system "sys"; last user "hello, changed"); if the prompt, tools or conversation changed on purpose, re-record the cassette`, err.Error())
}

func TestRequestHashIsCanonical(t *testing.T) {
	temp := 0.25
	a := &model.Request{
		Messages:    []model.Message{model.UserMessage("x <y> & z")},
		Tools:       []model.ToolSpec{{Name: "t", Parameters: json.RawMessage(`{"type": "object", "properties": {"b": {}, "a": {}}}`)}},
		Temperature: &temp,
	}
	b := a.Clone()
	b.Tools[0].Parameters = json.RawMessage(`{"properties":{"a":{},"b":{}},"type":"object"}`)
	b.Messages = append([]model.Message{}, b.Messages...) // empty vs nil slices do not matter
	ha, err := scripted.RequestHash(a)
	require.NoError(t, err)
	hb, err := scripted.RequestHash(b)
	require.NoError(t, err)
	assert.Equal(t, ha, hb)

	c := a.Clone()
	c.Messages[0].Content = "different"
	hc, err := scripted.RequestHash(c)
	require.NoError(t, err)
	assert.NotEqual(t, ha, hc)

	_, err = scripted.RequestHash(&model.Request{Tools: []model.ToolSpec{{Name: "t", Parameters: json.RawMessage(`{`)}}})
	require.Error(t, err)
}

func TestRecordedErrors(t *testing.T) {
	var cassette bytes.Buffer
	rec := scripted.Record(scripted.New(
		scripted.When(scripted.LastUserContains("limit"), scripted.Fail(&model.RateLimitError{RetryAfter: 3 * time.Second, Err: errors.New("slow down")})),
		scripted.When(scripted.LastUserContains("plain"), scripted.Fail(errors.New("plain failure"))),
		scripted.When(scripted.LastUserContains("cancel"), scripted.Fail(fmt.Errorf("call: %w", context.Canceled))),
	), &cassette)
	for _, q := range []string{"limit", "plain", "cancel"} {
		_, err := rec.Generate(ctx, conv(model.UserMessage(q)))
		require.Error(t, err)
	}
	assert.Equal(t, 2, strings.Count(cassette.String(), "\n"), "context errors are not recorded")
	player, err := scripted.Replay(&cassette)
	require.NoError(t, err)

	_, err = player.Generate(ctx, conv(model.UserMessage("limit")))
	require.ErrorIs(t, err, model.ErrRateLimited)
	assert.Equal(t, "model: rate limited (retry after 3s): slow down", err.Error())
	var rl *model.RateLimitError
	require.ErrorAs(t, err, &rl, "a replayed rate limit is a *model.RateLimitError too")
	assert.Equal(t, 3*time.Second, rl.RetryAfter)
	_, err = player.Generate(ctx, conv(model.UserMessage("plain")))
	var re *scripted.RecordedError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, "plain failure", re.Message)
	assert.NoError(t, re.Unwrap())
	_, err = player.Generate(ctx, conv(model.UserMessage("cancel")))
	require.ErrorIs(t, err, scripted.ErrUnrecorded)
}

func TestRecorderAndReplayFiles(t *testing.T) {
	path := filepath.Join(t.TempDir(), "testdata", "run.jsonl")
	rec, err := scripted.NewRecorder(childScript(2), path)
	require.NoError(t, err)
	want := runChildren(t, rec, 2)
	require.NoError(t, rec.Close())
	require.NoError(t, rec.Close(), "Close is idempotent")

	player, err := scripted.ReplayFile(path)
	require.NoError(t, err)
	assert.Equal(t, want, runChildren(t, player, 2))

	_, err = player.Generate(ctx, conv(model.UserMessage("new")))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "cassette "+path+" has no response")

	_, err = scripted.ReplayFile(filepath.Join(t.TempDir(), "missing.jsonl"))
	require.ErrorIs(t, err, os.ErrNotExist)
	_, err = scripted.NewRecorder(childScript(1), filepath.Join(path, "under-a-file", "x.jsonl"))
	require.Error(t, err)
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestRecorderWriteError(t *testing.T) {
	rec := scripted.Record(scripted.New(scripted.Repeat(scripted.Text("x"))), failingWriter{})
	_, err := rec.Generate(ctx, conv(model.UserMessage("a")))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "write cassette: disk full")
	require.Error(t, rec.Close())
	_, err = rec.Generate(ctx, nil)
	require.Error(t, err)
}

func TestReplayCancelled(t *testing.T) {
	player, err := scripted.Replay(strings.NewReader(""))
	require.NoError(t, err)
	c, cancel := context.WithCancel(ctx)
	cancel()
	_, err = player.Generate(c, conv())
	require.ErrorIs(t, err, context.Canceled)
	_, err = player.Generate(ctx, nil)
	require.Error(t, err)
}

func TestLoadCassetteErrors(t *testing.T) {
	good := `{"request":{"messages":[{"role":"user","content":"hi"}]},"response":{"message":{"role":"assistant","content":"yo"},"usage":{"input_tokens":1,"output_tokens":1,"total_tokens":2}}}`
	tests := []struct {
		name, data, wantErr string
	}{
		{"not JSON", "{", "line 1: unexpected EOF"},
		{"blank lines are fine, then junk", "\n" + good + "\n\n  \nnope\n", "line 5: invalid character"},
		{"unknown field", `{"request":{},"response":{},"extra":1}`, `unknown field "extra"`},
		{"unknown request field", `{"request":{"prompt":"x"},"response":{}}`, `request: json: unknown field "prompt"`},
		{"missing request", `{"response":{}}`, `missing "request"`},
		{"null request", `{"request":null,"response":{}}`, `missing "request"`},
		{"neither response nor error", `{"request":{}}`, `exactly one of "response" and "error"`},
		{"both response and error", `{"request":{},"response":{},"error":"x"}`, `exactly one of "response" and "error"`},
		{"error kind without error", `{"request":{},"response":{},"error_kind":"auth"}`, `"error_kind" without "error"`},
		{"unknown error kind", `{"request":{},"error":"x","error_kind":"weird"}`, `unknown error_kind "weird"`},
		{"trailing data", `{"request":{},"response":{}} {}`, "data after the JSON value"},
		{"hash mismatch", `{"hash":"abc","request":{},"response":{}}`, "stored hash abc does not match"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := scripted.Replay(strings.NewReader(tt.data))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.wantErr)
			assert.Contains(t, err.Error(), "scripted: cassette")
		})
	}
	p, err := scripted.Replay(strings.NewReader(good + "\n" + good)) // no final newline, no hash
	require.NoError(t, err)
	assert.Equal(t, 2, p.Len())
	resp, err := p.Generate(ctx, conv(model.UserMessage("hi")))
	require.NoError(t, err)
	assert.Equal(t, "yo", resp.Message.Content)
}

// A request's cache key routes it and changes from run to run: a replay
// finds the answer recorded under another key.
func TestTheCacheKeyIsNotPartOfARecordedRequest(t *testing.T) {
	var buf bytes.Buffer
	rec := scripted.Record(scripted.New(scripted.Text("recorded")), &buf)
	req := conv(model.UserMessage("hi"))
	req.CacheKey = "evaluation-of-the-first-run"
	_, err := rec.Generate(ctx, req)
	require.NoError(t, err)

	player, err := scripted.Replay(&buf)
	require.NoError(t, err)
	replayed := conv(model.UserMessage("hi"))
	replayed.CacheKey = "evaluation-of-the-second-run"
	resp, err := player.Generate(ctx, replayed)
	require.NoError(t, err)
	assert.Equal(t, "recorded", resp.Message.Content)
}
