// Package bus is offshoot's in-process event bus.
//
// A Bus delivers every published Envelope synchronously, on the publisher's
// goroutine: first to the session the envelope is addressed to (its reduce
// phase), then to observers — typed subscribers of the payload's exact Go type
// and catch-all subscribers — in subscription order. A handler's error or
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

// Envelope is one event on the bus. Seq is the envelope's id: bus-wide,
// increasing, assigned by Publish. Time comes from the bus's clock.
type Envelope struct {
	// Seq is assigned by the bus; strictly increasing across the bus.
	Seq uint64
	// SessionID addresses the envelope to one session ("" for none).
	SessionID string
	// ParentSessionID is the parent of the addressed session, if any.
	ParentSessionID string
	// Time is assigned by the bus's clock at publish.
	Time time.Time
	// Payload is the event itself, matched to typed subscribers by its exact
	// dynamic Go type.
	Payload any
}

// Target is what a session attaches to the bus to receive the envelopes
// addressed to it. Reduce applies a batch of envelopes atomically and reports
// why it rejected them; when it returns an error, observers are not told
// about the batch, because it did not happen.
type Target interface {
	Reduce(ctx context.Context, envs []Envelope) error
}

// Bus is an in-process event bus. The zero value is not usable: create one
// with New. A Bus is safe for concurrent use by many goroutines.
type Bus struct {
	clock func() time.Time
	seq   atomic.Uint64

	targetsMu sync.RWMutex
	targets   map[string]Target

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
	b := &Bus{clock: time.Now, targets: make(map[string]Target)}
	for _, o := range opts {
		o(b)
	}
	b.subs.Store(&subscriptions{typed: map[reflect.Type][]*subscription{}})
	return b
}

// Now returns the time on the bus's clock.
func (b *Bus) Now() time.Time { return b.clock() }

// Attach makes target receive the envelopes addressed to id. It fails when
// another target is attached under id. The returned detach func is
// idempotent. Attaching and detaching cost O(1) amortized.
func (b *Bus) Attach(id string, target Target) (detach func(), err error) {
	if id == "" || target == nil {
		return nil, fmt.Errorf("bus: attach needs a session id and a target")
	}
	b.targetsMu.Lock()
	defer b.targetsMu.Unlock()
	if _, ok := b.targets[id]; ok {
		return nil, fmt.Errorf("bus: a session with id %q is already attached; session ids must be unique on a bus", id)
	}
	b.targets[id] = target
	var once sync.Once
	return func() {
		once.Do(func() {
			b.targetsMu.Lock()
			if b.targets[id] == target {
				delete(b.targets, id)
			}
			b.targetsMu.Unlock()
		})
	}, nil
}

// Attached reports whether a target is attached under id.
func (b *Bus) Attached(id string) bool {
	b.targetsMu.RLock()
	_, ok := b.targets[id]
	b.targetsMu.RUnlock()
	return ok
}

func (b *Bus) target(id string) Target {
	if id == "" {
		return nil
	}
	b.targetsMu.RLock()
	t := b.targets[id]
	b.targetsMu.RUnlock()
	return t
}

// Publish stamps env with the next Seq and the bus's time, delivers it to
// the session it is addressed to, then to the observers. It never panics.
func (b *Bus) Publish(ctx context.Context, env Envelope) Result {
	envs := [1]Envelope{env}
	return b.PublishBatch(ctx, envs[:])
}

// PublishBatch publishes several envelopes addressed to one session as one
// atomic unit: the session reduces all of them or none (Result.Rejected says
// why), and only then do observers see each envelope in order. Seq and Time
// are assigned in place in envs. Envelopes addressed to different sessions
// must be published separately.
func (b *Bus) PublishBatch(ctx context.Context, envs []Envelope) Result {
	if len(envs) == 0 {
		return Result{}
	}
	id := envs[0].SessionID
	for i := range envs {
		if envs[i].SessionID != id {
			return Result{Rejected: fmt.Errorf("bus: a batch must address one session; envelope %d addresses %q, the first %q", i, envs[i].SessionID, id)}
		}
	}
	return b.Deliver(ctx, b.target(id), envs)
}

// Deliver is PublishBatch for a caller that already holds the addressed
// target — a session dispatching to itself — so no lookup by id is needed.
// A nil target delivers to observers only.
func (b *Bus) Deliver(ctx context.Context, t Target, envs []Envelope) Result {
	for i := range envs {
		envs[i].Seq = b.seq.Add(1)
		envs[i].Time = b.clock()
	}
	if t != nil {
		if err := reduceSafely(ctx, t, envs); err != nil {
			return Result{Rejected: err}
		}
	}
	var res Result
	subs := b.subs.Load()
	for i := range envs {
		subs.deliver(ctx, envs[i], &res)
	}
	return res
}

func reduceSafely(ctx context.Context, t Target, envs []Envelope) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("bus: session target panicked: %v", p)
		}
	}()
	return t.Reduce(ctx, envs)
}
