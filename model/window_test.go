package model_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/offshoot-dev/offshoot/model"
)

func TestDefaultContextWindow(t *testing.T) {
	tests := []struct {
		id             string
		window, output int
	}{
		{"gpt-4o-mini", 128_000, 16_384},
		{"gpt-4.1-2025-04-14", 1_047_576, 32_768},
		{"GPT-5", 400_000, 128_000},
		{"openai/gpt-4o", 128_000, 16_384},
		{"o3-mini", 200_000, 100_000},
		{"gpt-4", 8_192, 4_096},
		{"claude-sonnet-4-5", 200_000, 64_000},
		{"claude-3-5-haiku", 200_000, 8_192},
		{"meta-llama/llama-3.1-8b-instruct", 128_000, 8_192},
		{"qwen2.5-coder", 128_000, 8_192},
		{"some-local-model", 128_000, 16_384},
		{"", 128_000, 16_384},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			w, o := model.DefaultContextWindow(tt.id)
			assert.Equal(t, tt.window, w)
			assert.Equal(t, tt.output, o)
			assert.Less(t, o, w)
		})
	}
}
