package main

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// Without a key the example runs offline, and every turn after the first
// reads the conversation before it from the cache.
func TestRunsOffline(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var out bytes.Buffer
	require.NoError(t, run(ctx, &out, func(string) string { return "" }))
	got := out.String()
	assert.Contains(t, got, "offline")
	assert.Contains(t, got, "turn 1: ")
	assert.Contains(t, got, "(0 cached")
	assert.Contains(t, got, "answer: The three parts add up to 58.42")
	assert.NotContains(t, got, "turn 2: 0 input")
	assert.Regexp(t, `turn 4: \d+ input tokens \([1-9]\d* cached`, got)
}
