package scripted_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/scripted"
)

// described is a model that says what it calls.
type described struct {
	model.Func
	d model.Description
}

func (m described) Describe() model.Description { return m.d }

func TestDescribe(t *testing.T) {
	server := described{
		Func: func(context.Context, *model.Request) (*model.Response, error) {
			return &model.Response{Message: model.AssistantMessage("hi"), FinishReason: model.FinishStop,
				Model: "gpt-4.1-2025-04-14", ID: "chatcmpl-7"}, nil
		},
		d: model.Description{ID: "gpt-4.1", Provider: "openai", ServerAddress: "localhost", ServerPort: 8000},
	}
	var cassette bytes.Buffer
	rec := scripted.Record(server, &cassette)

	tests := []struct {
		name string
		m    model.Model
		want model.Description
	}{
		{"a script is named scripted", scripted.New(scripted.Text("hi")), model.Description{ID: "scripted", Provider: "scripted"}},
		{"a named script", scripted.New(scripted.Text("hi")).Named("fake-1"), model.Description{ID: "fake-1", Provider: "scripted"}},
		{"a recorder says what its model calls", rec, server.d},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, model.Describe(tt.m))
		})
	}

	t.Run("a named script answers as that model", func(t *testing.T) {
		resp, err := scripted.New(scripted.Text("hi")).Named("fake-1").Generate(ctx, conv(model.UserMessage("q")))
		require.NoError(t, err)
		assert.Equal(t, "fake-1", resp.Model)
	})
	t.Run("a cassette keeps which model answered", func(t *testing.T) {
		_, err := rec.Generate(ctx, conv(model.UserMessage("q")))
		require.NoError(t, err)
		player, err := scripted.Replay(bytes.NewReader(cassette.Bytes()))
		require.NoError(t, err)
		resp, err := player.Generate(ctx, conv(model.UserMessage("q")))
		require.NoError(t, err)
		assert.Equal(t, "gpt-4.1-2025-04-14", resp.Model)
		assert.Equal(t, "chatcmpl-7", resp.ID)
	})
}
