package remote

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/offshoot-dev/offshoot/serde"
	"github.com/offshoot-dev/offshoot/session"
)

// maxInline is the largest batch sent in a message; a bigger one goes to
// the object store and the message names it. maxMessage bounds the
// batches one progress message carries.
const (
	maxInline  = 256 << 10
	maxMessage = 512 << 10
)

// maxQueued bounds the bytes of the batches a publisher holds that are
// not sent yet: past it, a commit waits for the sender (see Commit).
const maxQueued = 64 << 20

// publisher is the journal of a child's session on a worker: each batch
// the child commits (once on is set, after the worker's own setup) is
// numbered and queued, and a sender sends what is queued as one progress
// message whenever it is free — so a long child's batches go out as they
// commit, and a short child's all go with its result (flush). Nothing
// waits for the server while the child runs: a commit encodes its batch
// and queues it, and the sender stores a batch too big for a message in
// the object store before it sends the message naming it, so a slow
// store holds neither the child's session nor its next commits. flush
// waits, until its context ends, and sends again what did not arrive; a
// batch that could not be stored or sent fails the job's result (err).
type publisher struct {
	js              jetstream.JetStream
	objects         jetstream.ObjectStore
	reg             *serde.Registry
	subject, token  string
	key             string // the job's key (job.key), in message ids
	secret          []byte // the job's secret, for the MACs
	attempt, worker string
	pid, delivery   int
	on              atomic.Bool

	// uploads is the context of the sender's uploads: flush cancels it
	// when its own context ends.
	uploads      context.Context
	cancelUpload context.CancelFunc

	// limit is maxQueued, or a test's bound.
	limit int
	// room is signalled when the sender has sent batches.
	room chan struct{}

	mu      sync.Mutex
	n       int
	pending []batch
	queued  int // the bytes of pending and of the batches being sent
	sent    []sent
	err     error
	wake    chan struct{}
	stop    chan struct{}
	stopped chan struct{}
}

type sent struct {
	msg *nats.Msg
	id  string
	ack jetstream.PubAckFuture
}

// start starts the sender.
func (p *publisher) start() {
	p.wake, p.stop, p.stopped = make(chan struct{}, 1), make(chan struct{}), make(chan struct{})
	p.uploads, p.cancelUpload = context.WithCancel(context.Background())
	p.room = make(chan struct{}, 1)
	if p.limit == 0 {
		p.limit = maxQueued
	}
	go p.send()
	p.on.Store(true)
}

// Commit queues a batch: plain values, and no I/O while the session's
// writers wait. It never fails the child's write: a batch that cannot be
// encoded fails the job's result instead. The queue is bounded (maxQueued
// bytes): when the sender falls that far behind, Commit waits for it to
// send, until ctx ends (the session bounds it: 30 s at most), and a batch
// that found no room fails the job's result too.
func (p *publisher) Commit(ctx context.Context, c session.Commit) error {
	if !p.on.Load() {
		return nil
	}
	events, err := encodeEvents(p.reg, c.Batch)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.err != nil {
		return nil
	}
	p.n++
	if err != nil {
		p.err = fmt.Errorf("batch %d of the child: %w", p.n, err)
		return nil
	}
	b := batch{N: p.n, Events: events}
	if size := eventsSize(events); size > maxInline {
		raw, err := json.Marshal(events)
		if err != nil {
			p.err = fmt.Errorf("batch %d of the child: %w", p.n, err)
			return nil
		}
		b.Events, b.Object, b.raw = nil, hashOf(raw), raw // the sender stores it
	}
	for p.queued > 0 && p.queued+b.size() > p.limit {
		p.mu.Unlock()
		select {
		case <-p.room:
		case <-ctx.Done():
		}
		p.mu.Lock()
		if p.err != nil {
			return nil
		}
		if err := ctx.Err(); err != nil {
			p.err = fmt.Errorf("batch %d of the child: the worker was still sending the %d bytes before it: %w", b.N, p.queued, err)
			return nil
		}
	}
	p.queued += b.size()
	p.pending = append(p.pending, b)
	select {
	case p.wake <- struct{}{}:
	default:
	}
	return nil
}

// size is the bytes the batch holds until it is sent.
func (b batch) size() int { return eventsSize(b.Events) + len(b.raw) }

func eventsSize(events []typed) int {
	n := 0
	for _, e := range events {
		n += len(e.Type) + len(e.Data) + 16
	}
	return n
}

// send sends the queued batches, in order, until stopped.
func (p *publisher) send() {
	defer close(p.stopped)
	for {
		select {
		case <-p.stop:
			return
		case <-p.wake:
		}
		for p.sendNext() {
		}
	}
}

// sendNext sends the first queued batches as one progress message, those
// too big for a message stored first, and reports whether it sent any.
// It holds p.mu only to take them off the queue and to note the message:
// the child commits while it stores and sends.
func (p *publisher) sendNext() bool {
	p.mu.Lock()
	if p.err != nil || len(p.pending) == 0 {
		p.mu.Unlock()
		return false
	}
	take := firstMessage(p.pending)
	batches := p.pending[:take:take]
	p.pending = p.pending[take:]
	p.mu.Unlock()
	size := 0
	for _, b := range batches {
		size += b.size()
	}
	defer p.drained(size)
	if err := p.store(p.uploads, batches); err != nil {
		p.fail(err)
		return false
	}
	data, err := json.Marshal(progress{Token: p.token, Attempt: p.attempt, Delivery: p.delivery, Worker: p.worker, PID: p.pid, Batches: batches})
	if err != nil {
		p.fail(err)
		return false
	}
	s := sent{msg: &nats.Msg{Subject: p.subject, Data: data, Header: replyHeader(p.secret, macBatch, p.key, data)},
		id: p.key + "." + p.attempt + "." + strconv.Itoa(batches[0].N)}
	s.ack, _ = p.js.PublishMsgAsync(s.msg, jetstream.WithMsgID(s.id))
	p.mu.Lock()
	p.sent = append(p.sent, s)
	p.mu.Unlock()
	return true
}

// firstMessage returns how many of the batches, from the first, one
// progress message carries: at least one, and within maxMessage.
func firstMessage(batches []batch) int {
	take, size := 0, 0
	for take < len(batches) && (take == 0 || size+eventsSize(batches[take].Events) <= maxMessage) {
		size += eventsSize(batches[take].Events)
		take++
	}
	return take
}

// store puts each of the batches too big for a message in the object
// store, under its name (batch.Object), unless it is there already.
func (p *publisher) store(ctx context.Context, batches []batch) error {
	for i := range batches {
		b := &batches[i]
		if b.raw == nil {
			continue
		}
		if _, err := p.objects.PutBytes(ctx, b.Object, b.raw); err != nil {
			return fmt.Errorf("storing batch %d of the child (%d bytes): %w", b.N, len(b.raw), err)
		}
		b.raw = nil
	}
	return nil
}

// drained takes size bytes off the queue and tells a commit waiting for room.
func (p *publisher) drained(size int) {
	p.mu.Lock()
	p.queued -= size
	p.mu.Unlock()
	select {
	case p.room <- struct{}{}:
	default:
	}
}

// fail notes the publisher's first error, for the job's result.
func (p *publisher) fail(err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.err == nil {
		p.err = err
	}
}

// flush stops the sender, waits until the server has every progress
// message sent, sending again those it did not acknowledge, and returns
// how many batches there are and those not sent yet, for the result. It
// returns once ctx ends: an upload under way is cancelled then, and err
// says what was not stored.
func (p *publisher) flush(ctx context.Context) (int, []batch) {
	p.on.Store(false)
	if p.stop == nil {
		return 0, nil
	}
	stopUploads := context.AfterFunc(ctx, p.cancelUpload)
	defer stopUploads()
	defer p.cancelUpload()
	close(p.stop)
	<-p.stopped
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, s := range p.sent {
		ok := false
		if s.ack != nil {
			select {
			case <-s.ack.Ok():
				ok = true
			case <-s.ack.Err():
			case <-ctx.Done():
			}
		}
		if !ok {
			if err := publishRetry(ctx, p.js, s.msg, s.id); err != nil && p.err == nil {
				p.err = err // the result says so; the parent waits a while for what it counts
			}
		}
	}
	tail := p.pending
	p.pending, p.queued = nil, 0 // the sender is gone: what is left goes with the result
	if p.err == nil {
		if err := p.store(ctx, tail); err != nil {
			p.err = err
		}
	}
	if p.err != nil {
		// The result is a failure; it carries what was stored, in order.
		for i, b := range tail {
			if b.raw != nil {
				tail = tail[:i]
				break
			}
		}
	}
	size := 0
	for _, b := range tail {
		size += eventsSize(b.Events)
	}
	if size <= maxMessage {
		return p.n, tail
	}
	// Too much for the result's message: send it as progress first.
	for len(tail) > 0 {
		take := firstMessage(tail)
		data, err := json.Marshal(progress{Token: p.token, Attempt: p.attempt, Delivery: p.delivery, Worker: p.worker, PID: p.pid, Batches: tail[:take]})
		if err == nil {
			m := &nats.Msg{Subject: p.subject, Data: data, Header: replyHeader(p.secret, macBatch, p.key, data)}
			err = publishRetry(ctx, p.js, m, p.key+"."+p.attempt+"."+strconv.Itoa(tail[0].N))
		}
		if err != nil && p.err == nil {
			p.err = err
		}
		tail = tail[take:]
	}
	return p.n, nil
}
