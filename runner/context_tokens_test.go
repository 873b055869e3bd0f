package runner

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/offshoot-dev/offshoot/model"
)

func TestEstimator(t *testing.T) {
	prose := strings.Repeat("The quick brown fox jumps over the lazy dog, and the dog sleeps on. ", 100)
	tests := []struct {
		model     string
		tokenizer bool
		ratio     float64 // bytes a token after measuring prose
	}{
		{"gpt-4o", true, 68.0 / 16},
		{"openai/gpt-4.1-mini", true, 68.0 / 16},
		{"gpt-4", true, 68.0 / 16},
		{"llama-3.1", false, defaultBytesPerToken},
	}
	for _, tt := range tests {
		t.Run(tt.model, func(t *testing.T) {
			e := newEstimator(tt.model)
			assert.Equal(t, tt.tokenizer, e.codec != nil)
			e.measure([]model.Message{model.UserMessage(prose)})
			assert.InEpsilon(t, tt.ratio, e.bytesPerToken, 0.1)
			assert.Equal(t, int(float64(len(prose))/e.bytesPerToken)+1, e.text(prose))
		})
	}
	e := newEstimator("local")
	e.calibrate(5000, 1000)
	assert.Equal(t, 201, e.text(strings.Repeat("x", 1000)), "calibrated at 5 bytes a token")
	e.calibrate(0, 10)
	assert.Equal(t, 5.0, e.bytesPerToken, "no bytes: unchanged")
	assert.Zero(t, e.text(""))
}
