package workercmd

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"go.uber.org/goleak"
)

// A worker watching its input stops when the input closes — the demo that
// holds its other end ended — and not before.
func TestUntilEOF(t *testing.T) {
	defer goleak.VerifyNone(t)
	r, w := io.Pipe()
	ctx, stop := untilEOF(context.Background(), r)
	defer stop()
	_, err := w.Write([]byte("anything"))
	assert.NoError(t, err)
	assert.NoError(t, ctx.Err(), "the input is still open")
	assert.NoError(t, w.Close())
	select {
	case <-ctx.Done():
	case <-time.After(time.Minute): // a watchdog
		t.Fatal("the worker did not stop when its input closed")
	}
}
