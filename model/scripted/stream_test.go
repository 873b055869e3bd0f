package scripted_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/scripted"
)

func texts(ds []model.Delta) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.Text)
	}
	return out
}

func collect(into *[]model.Delta) func(model.Delta) error {
	return func(d model.Delta) error {
		*into = append(*into, d)
		return nil
	}
}

func TestStreamText(t *testing.T) {
	tests := []struct {
		name     string
		text     string
		chunking scripted.Chunking
		want     []string
	}{
		{"words by default", "Hello brave  new\nworld.", scripted.Chunking{}, []string{"Hello", " brave", "  new", "\nworld."}},
		{"leading and trailing space", " a b ", scripted.Chunking{}, []string{" a", " b", " "}},
		{"by size", "abcdefg", scripted.Chunking{Size: 3}, []string{"abc", "def", "g"}},
		{"never inside a character", "héllo", scripted.Chunking{Size: 2}, []string{"h", "é", "ll", "o"}},
		{"a character longer than the size", "日本", scripted.Chunking{Size: 1}, []string{"日", "本"}},
		{"empty text, no delta", "", scripted.Chunking{}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := scripted.New(scripted.Repeat(scripted.Text(tt.text)))
			m.SetChunking(tt.chunking)
			var got []model.Delta
			resp, err := m.Stream(context.Background(), &model.Request{Messages: []model.Message{model.UserMessage("hi")}}, collect(&got))
			require.NoError(t, err)
			assert.Equal(t, tt.want, texts(got))
			assert.Equal(t, tt.text, strings.Join(texts(got), ""))
			for _, d := range got {
				assert.True(t, utf8.ValidString(d.Text), "%q", d.Text)
			}
			again, err := m.Generate(context.Background(), &model.Request{Messages: []model.Message{model.UserMessage("hi")}})
			require.NoError(t, err)
			assert.Equal(t, again, resp, "streamed or not, the same answer")
		})
	}
}

func TestStreamToolCalls(t *testing.T) {
	m := scripted.New(scripted.Reply(&model.Response{
		Message: model.AssistantMessage("Let me look.",
			model.ToolCall{ID: "c1", Name: "read_file", Arguments: `{"path": "a b.md"}`},
			model.ToolCall{ID: "c2", Name: "pwd"}),
		FinishReason: model.FinishToolCalls,
	}))
	var got []model.Delta
	resp, err := m.Stream(context.Background(), &model.Request{}, collect(&got))
	require.NoError(t, err)
	assert.Equal(t, []model.Delta{
		{Text: "Let"}, {Text: " me"}, {Text: " look."},
		{ToolCall: &model.ToolCallDelta{Index: 0, ID: "c1", Name: "read_file", Arguments: `{"path":`}},
		{ToolCall: &model.ToolCallDelta{Index: 0, Arguments: ` "a`}},
		{ToolCall: &model.ToolCallDelta{Index: 0, Arguments: ` b.md"}`}},
		{ToolCall: &model.ToolCallDelta{Index: 1, ID: "c2", Name: "pwd"}},
	}, got)
	assert.Len(t, resp.Message.ToolCalls, 2)
	calls := m.Calls()
	require.Len(t, calls, 1)
	assert.Equal(t, resp, calls[0].Response)
	assert.Equal(t, "in order", calls[0].Route)
}

func TestStreamCancelDuringDelay(t *testing.T) {
	m := scripted.New(scripted.Text("one two three"))
	m.SetChunking(scripted.Chunking{Delay: time.Hour})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	var resp *model.Response
	var err error
	go func() {
		defer close(done)
		resp, err = m.Stream(ctx, &model.Request{}, func(model.Delta) error {
			cancel()
			return nil
		})
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Stream did not return when its context was cancelled during a pause")
	}
	require.ErrorIs(t, err, context.Canceled)
	require.NotNil(t, resp)
	assert.Equal(t, "one", resp.Message.Content)
	assert.Empty(t, resp.FinishReason)
	calls := m.Calls()
	require.Len(t, calls, 1)
	assert.ErrorIs(t, calls[0].Err, context.Canceled)
	assert.Equal(t, "one", calls[0].Response.Message.Content)
}

func TestStreamCallbackErrorAndFailures(t *testing.T) {
	stop := errors.New("stop")
	m := scripted.New(scripted.Text("a b"), scripted.Fail(model.ErrAuth))
	var got []model.Delta
	resp, err := m.Stream(context.Background(), &model.Request{}, func(d model.Delta) error {
		got = append(got, d)
		return stop
	})
	require.ErrorIs(t, err, stop)
	assert.Len(t, got, 1)
	assert.Equal(t, "a", resp.Message.Content)

	resp, err = m.Stream(context.Background(), &model.Request{}, nil)
	require.ErrorIs(t, err, model.ErrAuth)
	assert.Nil(t, resp)

	_, err = m.Stream(context.Background(), &model.Request{}, nil)
	require.ErrorIs(t, err, scripted.ErrUnexpectedRequest)
	_, err = m.Stream(context.Background(), nil, nil)
	require.ErrorContains(t, err, "needs a request")
	assert.Len(t, m.Calls(), 3)
}

func TestStreamRecordAndReplay(t *testing.T) {
	inner := scripted.New(
		scripted.ToolCall("ls", `{"dir": "/"}`),
		scripted.Text("There are two files."),
		scripted.Text("not recorded"),
	)
	var cassette bytes.Buffer
	rec := scripted.Record(inner, &cassette)
	req := &model.Request{Messages: []model.Message{model.UserMessage("What is there?")}}
	var live []model.Delta
	first, err := rec.Stream(context.Background(), req, collect(&live))
	require.NoError(t, err)
	req2 := &model.Request{Messages: append(append([]model.Message(nil), req.Messages...), first.Message,
		model.ToolMessage(first.Message.ToolCalls[0].ID, "ls", "a, b"))}
	second, err := rec.Stream(context.Background(), req2, collect(&live))
	require.NoError(t, err)
	stop := errors.New("stop")
	_, err = rec.Stream(context.Background(), &model.Request{Messages: []model.Message{model.UserMessage("other")}},
		func(model.Delta) error { return stop })
	require.ErrorIs(t, err, stop)
	assert.Equal(t, 2, strings.Count(cassette.String(), "\n"), "a call stopped by the callback is not recorded")

	player, err := scripted.Replay(&cassette)
	require.NoError(t, err)
	got, err := player.Generate(context.Background(), req)
	require.NoError(t, err)
	assert.Equal(t, first, got, "the final response was recorded")
	var replayed []model.Delta
	got, err = player.Stream(context.Background(), req2, collect(&replayed))
	require.NoError(t, err)
	assert.Equal(t, second, got)
	assert.Equal(t, []string{"There", " are", " two", " files."}, texts(replayed))
}

// A scripted model streams through model.Stream like any streamer.
func TestStreamThroughModelStream(t *testing.T) {
	m := scripted.New(scripted.Text("x y"))
	var got []model.Delta
	_, err := model.Stream(context.Background(), m, &model.Request{}, collect(&got))
	require.NoError(t, err)
	assert.Equal(t, []string{"x", " y"}, texts(got))
}
