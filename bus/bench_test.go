package bus_test

import (
	"context"
	"testing"

	"github.com/offshoot-dev/offshoot/bus"
)

// BenchmarkPublish publishes one event to two observers, a typed one and a
// catch-all one: what every committed event and every streamed piece
// costs the bus, however many sessions share it.
func BenchmarkPublish(b *testing.B) {
	bb := bus.New()
	must(bus.Subscribe(bb, "typed", func(context.Context, bus.Envelope, ping) error { return nil }))
	bb.SubscribeAll("all", func(context.Context, bus.Envelope) error { return nil })
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		bb.Publish(ctx, bus.Envelope{SessionID: "s", Seq: 1, Payload: ping{}})
	}
}
