package bus

import (
	"context"
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"
)

// handler observes envelopes published on a bus.
type handler func(ctx context.Context, env Envelope) error

type subscription struct {
	id     uint64
	name   string
	typ    reflect.Type // nil for catch-all
	fn     handler
	active atomic.Bool
}

// subscriptions is an immutable view of the bus's observers; writers replace
// it whole (copy on write), so Publish reads it without locking.
type subscriptions struct {
	typed map[reflect.Type][]*subscription
	all   []*subscription
}

// Subscribe registers fn for payloads whose dynamic type is exactly E (E and
// *E are different types). name identifies the handler in Result errors. The
// returned func unsubscribes; it is idempotent and safe to call during a
// publish — a handler unsubscribed mid-publish may get that one delivery,
// never a later one.
//
// E must be a concrete type: a payload's dynamic type is never an interface,
// so Subscribe of an interface type is an error (use SubscribeAll and a type
// switch to observe every payload that implements an interface).
func Subscribe[E any](b *Bus, name string, fn func(ctx context.Context, env Envelope, event E) error) (unsubscribe func(), err error) {
	t := reflect.TypeFor[E]()
	if t.Kind() == reflect.Interface {
		return nil, fmt.Errorf("bus: Subscribe[%s]: payloads are matched by their exact concrete type, and %s is an interface; subscribe to a concrete type, or use SubscribeAll with a type switch", t, t)
	}
	if fn == nil {
		return nil, fmt.Errorf("bus: Subscribe[%s] %q needs a handler", t, name)
	}
	return b.subscribe(name, t, func(ctx context.Context, env Envelope) error {
		return fn(ctx, env, env.Payload.(E))
	}), nil
}

// SubscribeAll registers a catch-all handler that observes every envelope.
func (b *Bus) SubscribeAll(name string, fn func(ctx context.Context, env Envelope) error) (unsubscribe func()) {
	return b.subscribe(name, nil, fn)
}

func (b *Bus) subscribe(name string, typ reflect.Type, fn handler) func() {
	b.subsMu.Lock()
	b.nextSub++
	s := &subscription{id: b.nextSub, name: name, typ: typ, fn: fn}
	s.active.Store(true)
	old := b.subs.Load()
	next := &subscriptions{typed: old.typed, all: old.all}
	if typ == nil {
		next.all = append(old.all[:len(old.all):len(old.all)], s)
	} else {
		next.typed = make(map[reflect.Type][]*subscription, len(old.typed)+1)
		for k, v := range old.typed {
			next.typed[k] = v
		}
		list := old.typed[typ]
		next.typed[typ] = append(list[:len(list):len(list)], s)
	}
	b.subs.Store(next)
	b.subsMu.Unlock()

	var once sync.Once
	return func() { once.Do(func() { b.unsubscribe(s) }) }
}

func (b *Bus) unsubscribe(s *subscription) {
	s.active.Store(false)
	b.subsMu.Lock()
	defer b.subsMu.Unlock()
	old := b.subs.Load()
	next := &subscriptions{typed: old.typed, all: old.all}
	if s.typ == nil {
		next.all = without(old.all, s)
	} else {
		next.typed = make(map[reflect.Type][]*subscription, len(old.typed))
		for k, v := range old.typed {
			next.typed[k] = v
		}
		if list := without(old.typed[s.typ], s); len(list) > 0 {
			next.typed[s.typ] = list
		} else {
			delete(next.typed, s.typ)
		}
	}
	b.subs.Store(next)
}

func without(list []*subscription, s *subscription) []*subscription {
	out := make([]*subscription, 0, len(list))
	for _, x := range list {
		if x != s {
			out = append(out, x)
		}
	}
	return out
}

// deliver calls the typed subscribers of the payload's type and the
// catch-all subscribers, merged in subscription order.
func (s *subscriptions) deliver(ctx context.Context, env Envelope, res *Result) {
	var typed []*subscription
	if env.Payload != nil && len(s.typed) > 0 {
		typed = s.typed[reflect.TypeOf(env.Payload)]
	}
	all := s.all
	for len(typed) > 0 || len(all) > 0 {
		var next *subscription
		if len(all) == 0 || (len(typed) > 0 && typed[0].id < all[0].id) {
			next, typed = typed[0], typed[1:]
		} else {
			next, all = all[0], all[1:]
		}
		if !next.active.Load() {
			continue
		}
		res.Delivered++
		if err := callSafely(ctx, next.fn, env); err != nil {
			res.Errors = append(res.Errors, &HandlerError{Name: next.name, Envelope: env, Err: err})
		}
	}
}

func callSafely(ctx context.Context, fn handler, env Envelope) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &PanicError{Value: p}
		}
	}()
	return fn(ctx, env)
}

// PanicError is the error a panicking handler's delivery becomes. Value is
// what the handler panicked with.
type PanicError struct {
	Value any
}

// Error returns "panic: VALUE".
func (e *PanicError) Error() string { return fmt.Sprintf("panic: %v", e.Value) }

// Unwrap returns the panic value when it is an error.
func (e *PanicError) Unwrap() error {
	if err, ok := e.Value.(error); ok {
		return err
	}
	return nil
}

// Observed reports whether a payload of type E published on b now would
// reach a subscriber — a typed subscriber of E or a catch-all one — so a
// publisher can skip building events nobody reads (the runner's streamed
// deltas, say).
func Observed[E any](b *Bus) bool {
	subs := b.subs.Load()
	return len(subs.all) > 0 || len(subs.typed[reflect.TypeFor[E]()]) > 0
}
