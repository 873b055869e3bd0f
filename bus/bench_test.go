package bus_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/offshoot-dev/offshoot/bus"
)

// BenchmarkPublishAddressed publishes to one session on a bus that carries
// 1 or 1,000 sessions plus two observers: the cost must not depend on the
// number of sessions.
func BenchmarkPublishAddressed(b *testing.B) {
	for _, n := range []int{1, 1000} {
		b.Run(fmt.Sprintf("sessions=%d", n), func(b *testing.B) {
			bb := bus.New()
			for i := range n {
				detach, err := bb.Attach(fmt.Sprintf("s%d", i), &recorder{})
				if err != nil {
					b.Fatal(err)
				}
				defer detach()
			}
			must(bus.Subscribe(bb, "typed", func(context.Context, bus.Envelope, ping) error { return nil }))
			bb.SubscribeAll("all", func(context.Context, bus.Envelope) error { return nil })
			target := &nopTarget{}
			detach, _ := bb.Attach("target", target)
			defer detach()
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				bb.Publish(ctx, bus.Envelope{SessionID: "target", Payload: ping{}})
			}
		})
	}
}

type nopTarget struct{}

func (nopTarget) Apply(_ context.Context, envs []bus.Envelope, stamp func([]bus.Envelope)) error {
	stamp(envs)
	return nil
}
