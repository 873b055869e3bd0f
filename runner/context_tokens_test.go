package runner

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestEstimator(t *testing.T) {
	long := strings.Repeat("the quick brown fox jumps over the lazy dog. ", 2000) // 90 KB
	tests := []struct {
		model     string
		tokenizer bool
		text      string
		want      int
		within    float64
	}{
		{"gpt-4o", true, "hello world", 2, 0},
		{"openai/gpt-4.1-mini", true, "hello world", 2, 0},
		{"gpt-4", true, "hello world", 2, 0},
		{"gpt-4o", true, long, 20000, 0.02},
		{"llama-3.1", false, strings.Repeat("x", 350), 101, 0},
	}
	for _, tt := range tests {
		t.Run(tt.model, func(t *testing.T) {
			e := newEstimator(tt.model)
			assert.Equal(t, tt.tokenizer, e.codec != nil)
			got := e.text(tt.text)
			if tt.within == 0 {
				assert.Equal(t, tt.want, got)
			} else {
				assert.InEpsilon(t, tt.want, got, tt.within)
			}
		})
	}
	e := newEstimator("local")
	e.calibrate(5000, 1000)
	assert.Equal(t, 201, e.text(strings.Repeat("x", 1000)), "calibrated at 5 bytes a token")
	e.calibrate(0, 10)
	assert.Equal(t, 5.0, e.bytesPerToken, "no bytes: unchanged")
}
