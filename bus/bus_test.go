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

// recorder is a Target that records what it applies, or rejects with err.
type recorder struct {
	mu   sync.Mutex
	got  []bus.Envelope
	err  error
	hook func()
}

func (r *recorder) Apply(_ context.Context, envs []bus.Envelope, stamp func([]bus.Envelope)) error {
	if r.hook != nil {
		r.hook()
	}
	if r.err != nil {
		return r.err
	}
	stamp(envs)
	r.mu.Lock()
	r.got = append(r.got, envs...)
	r.mu.Unlock()
	return nil
}

func TestPublishDeliversToSessionFirstThenObserversInSubscriptionOrder(t *testing.T) {
	b := bus.New()
	var order []string
	target := &recorder{hook: func() { order = append(order, "session") }}
	detach, err := b.Attach("s1", target)
	require.NoError(t, err)
	defer detach()

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
	assert.Equal(t, []string{"session", "typed-1:7", "all-2", "typed-3"}, order)
	require.Len(t, target.got, 1)
	assert.Equal(t, ping{N: 7}, target.got[0].Payload)
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
	assert.Contains(t, err.Error(), `handler "panics" failed on envelope 1: panic: kaput`)
}

func TestRejectedBatchIsNotObserved(t *testing.T) {
	b := bus.New()
	rejected := errors.New("reducer said no")
	detach, err := b.Attach("s", &recorder{err: rejected})
	require.NoError(t, err)
	defer detach()
	var seen atomic.Int32
	b.SubscribeAll("obs", func(context.Context, bus.Envelope) error { seen.Add(1); return nil })

	res := b.Publish(context.Background(), bus.Envelope{SessionID: "s", Payload: ping{}}, bus.Envelope{SessionID: "s", Payload: pong{}})
	assert.ErrorIs(t, res.Rejected, rejected)
	assert.ErrorIs(t, res.Err(), rejected)
	assert.Zero(t, seen.Load())
}

func TestPanickingTargetIsRejectedNotPropagated(t *testing.T) {
	b := bus.New()
	detach, err := b.Attach("s", &recorder{hook: func() { panic("bad target") }})
	require.NoError(t, err)
	defer detach()
	res := b.Publish(context.Background(), bus.Envelope{SessionID: "s", Payload: ping{}})
	require.Error(t, res.Rejected)
	assert.Contains(t, res.Rejected.Error(), "bad target")
}

func TestBatchMustAddressOneSession(t *testing.T) {
	res := bus.New().Publish(context.Background(), bus.Envelope{SessionID: "a"}, bus.Envelope{SessionID: "b"})
	require.Error(t, res.Rejected)
	assert.Contains(t, res.Rejected.Error(), `envelope 1 addresses "b", the first "a"`)
	assert.Equal(t, bus.Result{}, bus.New().Publish(context.Background()))
}

func TestAttach(t *testing.T) {
	b := bus.New()
	r := &recorder{}
	detach, err := b.Attach("s", r)
	require.NoError(t, err)
	_, err = b.Attach("s", &recorder{})
	assert.ErrorContains(t, err, `id "s" is already attached`)
	_, err = b.Attach("", &recorder{})
	assert.Error(t, err)
	require.NoError(t, b.Publish(context.Background(), bus.Envelope{SessionID: "s", Payload: ping{}}).Err())
	detach()
	detach()
	res := b.Publish(context.Background(), bus.Envelope{SessionID: "s", Payload: ping{}})
	assert.ErrorContains(t, res.Rejected, `no session "s" is attached`, "an address nobody holds is refused, not dropped")
	assert.Len(t, r.got, 1)
}

// A target stamps the envelopes when it has ordered itself: Seq and Time
// are the ones it gave, and observers see them.
func TestTheTargetStampsWhenItCommits(t *testing.T) {
	tick := 0
	b := bus.New(bus.WithClock(func() time.Time { tick++; return time.Unix(int64(tick), 0) }))
	var atApply []uint64
	detach, err := b.Attach("s", targetFunc(func(envs []bus.Envelope, stamp func([]bus.Envelope)) error {
		atApply = append(atApply, envs[0].Seq)
		stamp(envs)
		atApply = append(atApply, envs[0].Seq, envs[1].Seq)
		return nil
	}))
	require.NoError(t, err)
	defer detach()
	var seen []uint64
	b.SubscribeAll("seen", func(_ context.Context, env bus.Envelope) error { seen = append(seen, env.Seq); return nil })
	envs := []bus.Envelope{{SessionID: "s", Payload: ping{}}, {SessionID: "s", Payload: pong{}}}
	require.NoError(t, b.Publish(context.Background(), envs...).Err())
	assert.Equal(t, []uint64{0, 1, 2}, atApply, "not numbered before the target stamps")
	assert.Equal(t, []uint64{1, 2}, seen)
	assert.Equal(t, uint64(2), envs[1].Seq, "assigned in place")
}

type targetFunc func(envs []bus.Envelope, stamp func([]bus.Envelope)) error

func (f targetFunc) Apply(_ context.Context, envs []bus.Envelope, stamp func([]bus.Envelope)) error {
	return f(envs, stamp)
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

func TestSeqIncreasesAndTimeComesFromTheClock(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	b := bus.New(bus.WithClock(func() time.Time { return at }))
	var seqs []uint64
	b.SubscribeAll("seq", func(_ context.Context, env bus.Envelope) error {
		seqs = append(seqs, env.Seq)
		assert.Equal(t, at, env.Time)
		return nil
	})
	for range 3 {
		b.Publish(context.Background(), bus.Envelope{Payload: ping{}})
	}
	envs := []bus.Envelope{{Payload: ping{}}, {Payload: pong{}}}
	b.Publish(context.Background(), envs...)
	assert.Equal(t, []uint64{1, 2, 3, 4, 5}, seqs)
	assert.Equal(t, uint64(5), envs[1].Seq, "seq is assigned in place")
	assert.Equal(t, at, b.Now())
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

func TestNotifyReachesObserversOnly(t *testing.T) {
	b := bus.New()
	r := &recorder{}
	detach, err := b.Attach("s", r)
	require.NoError(t, err)
	defer detach()
	var seen []bus.Envelope
	b.SubscribeAll("all", func(_ context.Context, env bus.Envelope) error { seen = append(seen, env); return nil })
	res := b.Notify(context.Background(), bus.Envelope{SessionID: "s", Payload: ping{1}})
	require.NoError(t, res.Err())
	assert.Equal(t, 1, res.Delivered)
	require.Len(t, seen, 1)
	assert.Positive(t, seen[0].Seq)
	assert.Empty(t, r.got, "the session is not told")
	allocs := testing.AllocsPerRun(100, func() { b.Notify(context.Background(), bus.Envelope{Payload: ping{2}}) })
	assert.LessOrEqual(t, allocs, 1.0, "boxing the payload at most")
}
