package bus_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/offshoot-dev/offshoot/bus"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

type ping struct{ N int }
type pong struct{ S string }

func TestPublishDeliversToObserversInSubscriptionOrder(t *testing.T) {
	b := bus.New()
	var order []string
	must(bus.Subscribe(b, "typed-1", func(_ context.Context, _ bus.Envelope, p ping) error {
		order = append(order, fmt.Sprintf("typed-1:%d", p.N))
		return nil
	}))
	b.SubscribeAll("all-2", func(context.Context, bus.Envelope) error { order = append(order, "all-2"); return nil })
	must(bus.Subscribe(b, "typed-3", func(_ context.Context, _ bus.Envelope, p ping) error { order = append(order, "typed-3"); return nil }))
	must(bus.Subscribe(b, "other-type", func(_ context.Context, _ bus.Envelope, p pong) error { order = append(order, "pong"); return nil }))
	must(bus.Subscribe(b, "pointer-type", func(_ context.Context, _ bus.Envelope, p *ping) error { order = append(order, "*ping"); return nil }))

	res := b.Publish(context.Background(), bus.Envelope{SessionID: "s1", Payload: ping{N: 7}})
	require.NoError(t, res.Err())
	assert.Equal(t, 3, res.Delivered)
	assert.Equal(t, []string{"typed-1:7", "all-2", "typed-3"}, order)
}

func TestPublishWithNoSubscribers(t *testing.T) {
	res := bus.New().Publish(context.Background(), bus.Envelope{Payload: ping{}})
	assert.Equal(t, 0, res.Delivered)
	assert.NoError(t, res.Err())
	assert.Empty(t, res.Errors)
}

func TestHandlerErrorsAndPanicsAreCapturedAndDeliveryGoesOn(t *testing.T) {
	b := bus.New()
	boom := errors.New("boom")
	var after atomic.Int32
	must(bus.Subscribe(b, "fails", func(context.Context, bus.Envelope, ping) error { return boom }))
	must(bus.Subscribe(b, "panics", func(context.Context, bus.Envelope, ping) error { panic("kaput") }))
	must(bus.Subscribe(b, "panics-err", func(context.Context, bus.Envelope, ping) error { panic(boom) }))
	b.SubscribeAll("after", func(context.Context, bus.Envelope) error { after.Add(1); return nil })

	var res bus.Result
	require.NotPanics(t, func() { res = b.Publish(context.Background(), bus.Envelope{Payload: ping{}}) })
	assert.EqualValues(t, 1, after.Load())
	assert.Equal(t, 4, res.Delivered)
	require.Len(t, res.Errors, 3)
	assert.Equal(t, "fails", res.Errors[0].Name)
	assert.ErrorIs(t, res.Errors[0], boom)
	assert.Equal(t, "panics", res.Errors[1].Name)
	var pe *bus.PanicError
	require.ErrorAs(t, res.Errors[1], &pe)
	assert.Equal(t, "kaput", pe.Value)
	assert.ErrorIs(t, res.Errors[2], boom, "a panic with an error value unwraps to it")

	err := res.Err()
	require.Error(t, err)
	assert.ErrorIs(t, err, boom)
	assert.Contains(t, err.Error(), `handler "panics" failed on a bus_test.ping: panic: kaput`)
	res = b.Publish(context.Background(), bus.Envelope{SessionID: "s", Seq: 4, Payload: ping{}})
	assert.Contains(t, res.Err().Error(), `handler "fails" failed on a bus_test.ping (session s, seq 4): boom`)
}

func TestSubscribeRefusesInterfaceTypes(t *testing.T) {
	b := bus.New()
	_, err := bus.Subscribe(b, "any", func(context.Context, bus.Envelope, any) error { return nil })
	assert.ErrorContains(t, err, "is an interface")
	_, err = bus.Subscribe(b, "stringer", func(context.Context, bus.Envelope, fmt.Stringer) error { return nil })
	assert.ErrorContains(t, err, "use SubscribeAll with a type switch")
	_, err = bus.Subscribe[ping](b, "nil", nil)
	assert.ErrorContains(t, err, "needs a handler")
}

func must(_ func(), err error) {
	if err != nil {
		panic(err)
	}
}

// Sessions number and time the events they commit; the bus delivers them
// as they are, and gives a told event without a time the clock's.
func TestPublishKeepsSeqAndTimeAndStampsTheRest(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	committed := at.Add(-time.Hour)
	b := bus.New(bus.WithClock(func() time.Time { return at }))
	var seen []bus.Envelope
	b.SubscribeAll("seen", func(_ context.Context, env bus.Envelope) error { seen = append(seen, env); return nil })
	envs := []bus.Envelope{{SessionID: "s", Seq: 7, Time: committed, Payload: ping{}}, {Payload: pong{}}}
	b.Publish(context.Background(), envs...)
	require.Len(t, seen, 2)
	assert.Equal(t, uint64(7), seen[0].Seq)
	assert.Equal(t, committed, seen[0].Time)
	assert.Zero(t, seen[1].Seq, "a told event has no place in a log")
	assert.Equal(t, at, seen[1].Time)
	assert.True(t, envs[1].Time.IsZero(), "the caller's envelopes are not changed")
	assert.Equal(t, at, b.Now())
	assert.Equal(t, bus.Result{}, b.Publish(context.Background()))
}

func TestUnsubscribeIsIdempotentAndSafeDuringPublish(t *testing.T) {
	b := bus.New()
	var calls atomic.Int32
	var unsubscribe func()
	unsubscribe, err := bus.Subscribe(b, "self-removing", func(context.Context, bus.Envelope, ping) error {
		calls.Add(1)
		unsubscribe()
		unsubscribe()
		return nil
	})
	require.NoError(t, err)
	var later atomic.Int32
	var unsubLater func()
	b.SubscribeAll("removes-later", func(context.Context, bus.Envelope) error { unsubLater(); return nil })
	unsubLater = b.SubscribeAll("later", func(context.Context, bus.Envelope) error { later.Add(1); return nil })

	b.Publish(context.Background(), bus.Envelope{Payload: ping{}})
	b.Publish(context.Background(), bus.Envelope{Payload: ping{}})
	assert.EqualValues(t, 1, calls.Load(), "never a delivery after unsubscribe")
	assert.Zero(t, later.Load(), "a handler unsubscribed mid-publish before its turn is skipped")
	unsubscribe()
}

func TestConcurrentPublishSubscribeUnsubscribeLosesNoDelivery(t *testing.T) {
	b := bus.New()
	var stable atomic.Int64
	must(bus.Subscribe(b, "stable", func(context.Context, bus.Envelope, ping) error { stable.Add(1); return nil }))

	const publishers, each = 8, 2000
	var wg sync.WaitGroup
	stop := make(chan struct{})
	// Churn: subscribers come and go while publishers publish.
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				var un func()
				if (g+i)%2 == 0 {
					un, _ = bus.Subscribe(b, "churn", func(context.Context, bus.Envelope, ping) error { return nil })
				} else {
					un = b.SubscribeAll("churn-all", func(context.Context, bus.Envelope) error { return nil })
				}
				un()
			}
		}()
	}
	var pubs sync.WaitGroup
	for range publishers {
		pubs.Add(1)
		go func() {
			defer pubs.Done()
			for range each {
				res := b.Publish(context.Background(), bus.Envelope{Payload: ping{}})
				assert.NoError(t, res.Err())
			}
		}()
	}
	pubs.Wait()
	close(stop)
	wg.Wait()
	assert.EqualValues(t, publishers*each, stable.Load())
}

// Publishing a told event, such as a piece of a streamed answer, costs
// no allocation of the bus's own.
func TestPublishAllocatesNothingOfItsOwn(t *testing.T) {
	b := bus.New()
	b.SubscribeAll("all", func(context.Context, bus.Envelope) error { return nil })
	allocs := testing.AllocsPerRun(100, func() { b.Publish(context.Background(), bus.Envelope{Payload: ping{2}}) })
	assert.LessOrEqual(t, allocs, 1.0, "boxing the payload at most")
}
