package workercmd

import (
	"context"
	"io"
)

// ExitOnEOF is the environment variable that makes a worker stop when its
// standard input closes (any value but empty). offshoot demo sets it on
// systems without a parent-death signal and holds the other end of its
// workers' input for its life: when the demo ends, however it ends, the
// system closes that end and its workers stop.
const ExitOnEOF = "OFFSHOOT_WORKER_EXIT_ON_EOF"

// untilEOF returns a context that ends with ctx or when in reaches its
// end (or fails), and a function that stops the watching. in is read and
// what it holds thrown away.
func untilEOF(ctx context.Context, in io.Reader) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	go func() {
		_, _ = io.Copy(io.Discard, in)
		cancel()
	}()
	return ctx, cancel
}
