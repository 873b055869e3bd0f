// Package bus is offshoot's in-process event bus.
//
// A Bus delivers every published Envelope synchronously, on the publisher's
// goroutine: first to the session the envelope is addressed to (its reduce
// phase), then to observers — typed subscribers of the payload's exact Go
// type and catch-all subscribers — in subscription order. A handler's error or
// panic is captured in the Result and never stops delivery.
//
// Publishing costs O(the addressed session + the observers): sessions are
// found by id in a map, so a bus carrying a thousand forked children publishes
// as fast as one carrying a single session.
package bus

import (
	"context"
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"
	"time"
)

// Envelope is one event on the bus. Seq is the envelope's id: bus-wide and
// increasing. Seq and Time are assigned when the envelope is applied (for an
// envelope addressed to a session, when the session commits it), so a
// session's envelopes are numbered in the order it applied them.
type Envelope struct {
	// Seq is assigned by the bus; increasing across the bus.
	Seq uint64
	// SessionID addresses the envelope to one session ("" for none).
	SessionID string
	// ParentSessionID is the parent of the addressed session, if any.
	ParentSessionID string
	// Time is assigned from the bus's clock together with Seq.
	Time time.Time
	// Payload is the event itself, matched to typed subscribers by its exact
	// dynamic Go type.
	Payload any
}

// Target is what receives the envelopes addressed to one id before any
// observer sees them: a session is a Target, attached by the session package;
// programs do not need to write their own.
type Target interface {
	// Apply applies envs, which all address the target, atomically, or
	// rejects them all with an error; observers see them only when it
	// returns nil. Apply calls stamp(envs) once, after it has ordered itself
	// against its other writers and before it applies them: stamp gives each
	// envelope its Seq and Time, so that the target's order and the bus's
	// numbering agree.
	Apply(ctx context.Context, envs []Envelope, stamp func([]Envelope)) error
}

// Bus is an in-process event bus. The zero value is not usable: create one
// with New. A Bus is safe for concurrent use by many goroutines.
type Bus struct {
	clock   func() time.Time
	seq     atomic.Uint64
	stampFn func([]Envelope) // b.stamp, bound once

	targetsMu sync.RWMutex
	targets   map[string]*attached

	subsMu  sync.Mutex // serializes writers of subs
	subs    atomic.Pointer[subscriptions]
	nextSub uint64
}

// attached is one Attach: compared by pointer, since a Target need not be
// comparable.
type attached struct{ t Target }

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
	b := &Bus{clock: time.Now, targets: make(map[string]*attached)}
	for _, o := range opts {
		o(b)
	}
	b.stampFn = b.stamp
	b.subs.Store(&subscriptions{typed: map[reflect.Type][]*subscription{}})
	return b
}

// Now returns the time on the bus's clock.
func (b *Bus) Now() time.Time { return b.clock() }

// Attach makes target receive the envelopes addressed to id. It fails when
// another target is attached under id. The returned detach func is
// idempotent. Attaching and detaching cost O(1) amortized. Sessions attach
// themselves when they are created and detach when they are closed.
func (b *Bus) Attach(id string, target Target) (detach func(), err error) {
	if id == "" || target == nil {
		return nil, fmt.Errorf("bus: attach needs a session id and a target")
	}
	b.targetsMu.Lock()
	defer b.targetsMu.Unlock()
	if _, ok := b.targets[id]; ok {
		return nil, fmt.Errorf("bus: a session with id %q is already attached; session ids must be unique on a bus", id)
	}
	a := &attached{target}
	b.targets[id] = a
	var once sync.Once
	return func() {
		once.Do(func() {
			b.targetsMu.Lock()
			if b.targets[id] == a {
				delete(b.targets, id)
			}
			b.targetsMu.Unlock()
		})
	}, nil
}

// Publish publishes envs as one unit. Envelopes addressed to a session (a
// SessionID) must all address the same one: the session applies all of them
// or none (Result.Rejected says why), and only then do observers see each
// envelope in order. Unaddressed envelopes go to observers only. Publish
// assigns Seq and Time in place in envs and never panics.
func (b *Bus) Publish(ctx context.Context, envs ...Envelope) Result {
	if len(envs) == 0 {
		return Result{}
	}
	id := envs[0].SessionID
	for i := range envs {
		if envs[i].SessionID != id {
			return Result{Rejected: fmt.Errorf("bus: one publish addresses one session; envelope %d addresses %q, the first %q: publish them separately", i, envs[i].SessionID, id)}
		}
	}
	if id == "" {
		b.stamp(envs)
	} else {
		b.targetsMu.RLock()
		a := b.targets[id]
		b.targetsMu.RUnlock()
		if a == nil {
			return Result{Rejected: fmt.Errorf("bus: no session %q is attached to this bus (closed, or on another bus)", id)}
		}
		if err := b.apply(ctx, a.t, envs); err != nil {
			return Result{Rejected: err}
		}
		if envs[0].Seq == 0 { // a target that did not stamp
			b.stamp(envs)
		}
	}
	var res Result
	subs := b.subs.Load()
	for i := range envs {
		subs.deliver(ctx, envs[i], &res)
	}
	return res
}

// Notify delivers env to observers only — never to a session, whatever
// its SessionID says — after giving it the next Seq and the bus's time:
// for events that are told, not recorded, such as the pieces of a streamed
// answer. It costs no allocation of its own. It never panics.
func (b *Bus) Notify(ctx context.Context, env Envelope) Result {
	env.Seq = b.seq.Add(1)
	env.Time = b.clock()
	var res Result
	b.subs.Load().deliver(ctx, env, &res)
	return res
}

// stamp gives each envelope the next Seq and the bus's time.
func (b *Bus) stamp(envs []Envelope) {
	last := b.seq.Add(uint64(len(envs)))
	now := b.clock()
	for i := range envs {
		envs[i].Seq = last - uint64(len(envs)-1-i)
		envs[i].Time = now
	}
}

// apply runs t's reduce phase, turning a panic into an error.
func (b *Bus) apply(ctx context.Context, t Target, envs []Envelope) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("bus: session target panicked: %v", p)
		}
	}()
	return t.Apply(ctx, envs, b.stampFn)
}
