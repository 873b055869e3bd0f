package progress

import (
	"context"
	"io"
	"testing"

	"github.com/offshoot-dev/offshoot/bus"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/runner"
)

// BenchmarkDelta measures what showing one streamed piece of text costs,
// from the bus to the writer: the price of watching a run.
func BenchmarkDelta(b *testing.B) {
	for _, tc := range []struct {
		name  string
		watch func(*bus.Bus, io.Writer) func()
	}{
		{"tree", func(bb *bus.Bus, w io.Writer) func() { return Tree(bb, w, Options{}) }},
		{"json", JSON},
	} {
		b.Run(tc.name, func(b *testing.B) {
			bb := bus.New()
			stop := tc.watch(bb, io.Discard)
			defer stop()
			env := bus.Envelope{Payload: runner.Delta{SessionID: "s1", Evaluation: "e1", Turn: 1, Delta: model.Delta{Text: " word"}}}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				bb.Publish(ctx, env)
			}
		})
	}
}
