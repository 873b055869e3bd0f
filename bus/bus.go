// Package bus is offshoot's in-process event bus: it tells observers
// what happened.
//
// A Bus delivers every published Envelope synchronously, on the publisher's
// goroutine, to observers — typed subscribers of the payload's exact Go
// type and catch-all subscribers — in subscription order. A handler's error
// or panic is captured in the Result and never stops delivery.
//
// Sessions publish the events they committed, after the commit: the bus
// does not apply events to sessions, it only fans them out. Programs
// publish events that are told, not recorded, such as the pieces of a
// streamed answer. Publishing costs O(the observers), however many sessions
// share the bus.
package bus

import (
	"context"
	"reflect"
	"sync"
	"sync/atomic"
	"time"
)

// Envelope is one event on the bus.
type Envelope struct {
	// Seq is the event's place in its session's log: a session numbers the
	// events it commits from 1, in commit order, so (SessionID, Seq)
	// identifies a recorded event. It is 0 for an event that is told to
	// observers and recorded nowhere.
	Seq uint64
	// SessionID is the session the event belongs to ("" for none).
	SessionID string
	// ParentSessionID is the parent of that session, if any.
	ParentSessionID string
	// Time is when the event was committed (or published, when it is
	// told only), on the clock of the session's bus.
	Time time.Time
	// Payload is the event itself, matched to typed subscribers by its exact
	// dynamic Go type.
	Payload any
}

// Bus is an in-process event bus. The zero value is not usable: create one
// with New. A Bus is safe for concurrent use by many goroutines.
type Bus struct {
	clock func() time.Time

	subsMu  sync.Mutex // serializes writers of subs
	subs    atomic.Pointer[subscriptions]
	nextSub uint64
}

// Option configures a Bus.
type Option func(*Bus)

// WithClock sets the clock that stamps envelopes (time.Now by default).
// Inject a fake clock for deterministic tests.
func WithClock(clock func() time.Time) Option {
	return func(b *Bus) {
		if clock != nil {
			b.clock = clock
		}
	}
}

// New returns an empty bus.
func New(opts ...Option) *Bus {
	b := &Bus{clock: time.Now}
	for _, o := range opts {
		o(b)
	}
	b.subs.Store(&subscriptions{typed: map[reflect.Type][]*subscription{}})
	return b
}

// Now returns the time on the bus's clock: sessions on the bus stamp the
// events they commit with it.
func (b *Bus) Now() time.Time { return b.clock() }

// Publish delivers envs to the observers, in order; an envelope without a
// Time gets the bus's time. It costs no allocation of its own and never
// panics.
func (b *Bus) Publish(ctx context.Context, envs ...Envelope) Result {
	var res Result
	if len(envs) == 0 {
		return res
	}
	subs := b.subs.Load()
	if len(subs.all) == 0 && len(subs.typed) == 0 {
		return res // no one to tell
	}
	var now time.Time
	for i := range envs {
		env := envs[i]
		if env.Time.IsZero() {
			if now.IsZero() {
				now = b.clock()
			}
			env.Time = now
		}
		subs.deliver(ctx, env, &res)
	}
	return res
}
