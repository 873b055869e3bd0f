package openai_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/openai"
)

func TestDescribe(t *testing.T) {
	tests := []struct {
		baseURL string
		want    model.Description
	}{
		{"", model.Description{ID: "gpt-4.1", Provider: "openai", ServerAddress: "api.openai.com", ServerPort: 443}},
		{"http://localhost:8000/v1", model.Description{ID: "gpt-4.1", Provider: "openai", ServerAddress: "localhost", ServerPort: 8000}},
		{"http://llm.internal/v1?api-version=1", model.Description{ID: "gpt-4.1", Provider: "openai", ServerAddress: "llm.internal", ServerPort: 80}},
		{"https://user:secret@[::1]:9443/v1", model.Description{ID: "gpt-4.1", Provider: "openai", ServerAddress: "::1", ServerPort: 9443}},
	}
	for _, tt := range tests {
		t.Run(tt.baseURL, func(t *testing.T) {
			m, err := openai.New(openai.Config{BaseURL: tt.baseURL, Model: "gpt-4.1"})
			require.NoError(t, err)
			assert.Equal(t, tt.want, model.Describe(m))
		})
	}
}

func TestResponseSaysWhichModelAnswered(t *testing.T) {
	t.Run("whole", func(t *testing.T) {
		ws := newWireServer(t, reply{status: 200, body: finalReply})
		m := newTestModel(t, ws, newFakeClock())
		resp, err := m.Generate(context.Background(), userRequest("Weather?"))
		require.NoError(t, err)
		assert.Equal(t, "gpt-test-2025-01-01", resp.Model)
		assert.Equal(t, "chatcmpl-abc124", resp.ID)
	})
	t.Run("streamed", func(t *testing.T) {
		srv := newSSEServer(t, events(textChunk("Sunny."), chunk(`{}`, "stop"), usageChunk, "[DONE]"))
		m, _ := newStreamModel(t, srv)
		resp, err := m.Stream(context.Background(), userRequest("Weather?"), nil)
		require.NoError(t, err)
		assert.Equal(t, "gpt-test-2025-01-01", resp.Model)
		assert.Equal(t, "chatcmpl-1", resp.ID)
	})
}

func TestFactoryDescribesTheWindow(t *testing.T) {
	m, err := openai.Factory(openai.Config{})("main", model.ModelConfig{ModelID: "local", BaseURL: "http://localhost:8000/v1", ContextWindow: 32000, MaxOutputTokens: 2048})
	require.NoError(t, err)
	d := model.Describe(m)
	assert.Equal(t, 32000, d.ContextWindow)
	assert.Equal(t, 2048, d.MaxOutputTokens)
}
