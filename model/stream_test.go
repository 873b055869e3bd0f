package model_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/model"
)

// streamingModel streams a fixed text in two pieces.
type streamingModel struct{ model.Func }

func (streamingModel) Stream(_ context.Context, _ *model.Request, fn func(model.Delta) error) (*model.Response, error) {
	for _, piece := range []string{"Hel", "lo"} {
		if err := fn(model.Delta{Text: piece}); err != nil {
			return &model.Response{Message: model.AssistantMessage("Hel")}, err
		}
	}
	return &model.Response{Message: model.AssistantMessage("Hello"), FinishReason: model.FinishStop}, nil
}

func TestStream(t *testing.T) {
	whole := &model.Response{
		Message: model.AssistantMessage("Looking.",
			model.ToolCall{ID: "a", Name: "ls", Arguments: `{}`},
			model.ToolCall{ID: "b", Name: "cat", Arguments: `{"path":"x"}`}),
		FinishReason: model.FinishToolCalls,
	}
	generating := model.Func(func(context.Context, *model.Request) (*model.Response, error) { return whole.Clone(), nil })
	tests := []struct {
		name string
		m    model.Model
		want []model.Delta
		resp *model.Response
	}{
		{
			name: "a model that cannot stream delivers its whole answer",
			m:    generating,
			want: []model.Delta{
				{Text: "Looking."},
				{ToolCall: &model.ToolCallDelta{Index: 0, ID: "a", Name: "ls", Arguments: `{}`}},
				{ToolCall: &model.ToolCallDelta{Index: 1, ID: "b", Name: "cat", Arguments: `{"path":"x"}`}},
			},
			resp: whole,
		},
		{
			name: "a streamer streams",
			m:    streamingModel{},
			want: []model.Delta{{Text: "Hel"}, {Text: "lo"}},
			resp: &model.Response{Message: model.AssistantMessage("Hello"), FinishReason: model.FinishStop},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []model.Delta
			resp, err := model.Stream(context.Background(), tt.m, &model.Request{}, func(d model.Delta) error {
				got = append(got, d)
				return nil
			})
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.resp, resp)

			resp, err = model.Stream(context.Background(), tt.m, &model.Request{}, nil)
			require.NoError(t, err, "a nil callback receives nothing")
			assert.Equal(t, tt.resp, resp)
		})
	}
}

func TestStreamCallbackErrorStops(t *testing.T) {
	stop := errors.New("enough")
	for _, m := range []model.Model{
		streamingModel{},
		model.Func(func(context.Context, *model.Request) (*model.Response, error) {
			return &model.Response{Message: model.AssistantMessage("Hel", model.ToolCall{ID: "x", Name: "t"})}, nil
		}),
	} {
		calls := 0
		resp, err := model.Stream(context.Background(), m, &model.Request{}, func(model.Delta) error {
			calls++
			return stop
		})
		require.ErrorIs(t, err, stop)
		assert.Equal(t, 1, calls, "no delta after the callback's error")
		require.NotNil(t, resp)
		assert.Equal(t, "Hel", resp.Message.Content)
	}
}

func TestStreamErrors(t *testing.T) {
	_, err := model.Stream(context.Background(), nil, &model.Request{}, nil)
	require.ErrorContains(t, err, "needs a model")

	boom := errors.New("boom")
	called := false
	_, err = model.Stream(context.Background(), model.Func(func(context.Context, *model.Request) (*model.Response, error) {
		return nil, boom
	}), &model.Request{}, func(model.Delta) error { called = true; return nil })
	require.ErrorIs(t, err, boom)
	assert.False(t, called)
}

func TestFillToolCallIDs(t *testing.T) {
	tests := []struct {
		name  string
		req   *model.Request
		calls []model.ToolCall
		want  []string
	}{
		{
			name:  "first model call",
			req:   &model.Request{Messages: []model.Message{model.SystemMessage("s"), model.UserMessage("u")}},
			calls: []model.ToolCall{{Name: "a"}, {Name: "b"}},
			want:  []string{"call_1_0", "call_1_1"},
		},
		{
			name: "third model call, ids kept where given",
			req: &model.Request{Messages: []model.Message{
				model.UserMessage("u"),
				model.AssistantMessage("", model.ToolCall{ID: "call_1_0"}), model.ToolMessage("call_1_0", "a", "r"),
				model.AssistantMessage("", model.ToolCall{ID: "call_2_0"}), model.ToolMessage("call_2_0", "a", "r"),
			}},
			calls: []model.ToolCall{{ID: "given"}, {}, {}},
			want:  []string{"given", "call_3_1", "call_3_2"},
		},
		{name: "nil request", calls: []model.ToolCall{{}}, want: []string{"call_1_0"}},
		{name: "no calls", req: &model.Request{}, calls: nil, want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			model.FillToolCallIDs(tt.req, tt.calls)
			var got []string
			for _, c := range tt.calls {
				got = append(got, c.ID)
			}
			assert.Equal(t, tt.want, got)
		})
	}
}
