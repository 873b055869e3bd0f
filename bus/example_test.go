package bus_test

import (
	"context"
	"fmt"
	"time"

	"github.com/offshoot-dev/offshoot/bus"
)

func ExampleSubscribe() {
	clock := func() time.Time { return time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC) }
	b := bus.New(bus.WithClock(clock))

	type Progress struct{ Step string }
	stop, err := bus.Subscribe(b, "printer", func(_ context.Context, env bus.Envelope, p Progress) error {
		fmt.Printf("%s %s\n", env.Time.Format(time.Kitchen), p.Step)
		return nil
	})
	if err != nil {
		panic(err)
	}
	b.SubscribeAll("failing", func(context.Context, bus.Envelope) error { return fmt.Errorf("disk full") })

	res := b.Publish(context.Background(), bus.Envelope{Payload: Progress{"planning"}})
	fmt.Println(res.Delivered, res.Err())
	stop()
	res = b.Publish(context.Background(), bus.Envelope{Payload: Progress{"unseen"}})
	fmt.Println(res.Delivered)
	// Output:
	// 10:00AM planning
	// 2 bus: handler "failing" failed on a bus_test.Progress: disk full
	// 1
}
