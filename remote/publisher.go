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

	"github.com/offshoot-dev/offshoot/bus"
	"github.com/offshoot-dev/offshoot/serde"
	"github.com/offshoot-dev/offshoot/session"
)

// maxInline is the largest batch sent in a progress message; a bigger one
// goes to the object store and the message names it.
const maxInline = 512 << 10

// publisher is the journal of a child's session on a worker: each batch
// the child commits (once on is set, after the worker's own setup) is
// published on the job's reply subject, numbered, as it commits — without
// waiting for the server; flush waits, and publishes again what did not
// arrive.
type publisher struct {
	js              jetstream.JetStream
	objects         jetstream.ObjectStore
	reg             *serde.Registry
	subject, token  string
	attempt, worker string
	pid             int
	on              atomic.Bool

	mu   sync.Mutex
	n    int
	sent []sent
	err  error
}

type sent struct {
	msg *nats.Msg
	id  string
	ack jetstream.PubAckFuture
}

// Commit publishes a batch. It never fails the child's write: a batch
// that could not be sent is sent again by flush, and one that cannot be
// encoded fails the job there.
func (p *publisher) Commit(ctx context.Context, _ *session.Session, batch []bus.Envelope) error {
	if !p.on.Load() {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.err != nil {
		return nil
	}
	p.n++
	pr := progress{Token: p.token, Attempt: p.attempt, Worker: p.worker, PID: p.pid, N: p.n}
	events, err := encodeEvents(p.reg, batch)
	if err != nil {
		p.err = fmt.Errorf("batch %d of the child: %w", p.n, err)
		return nil
	}
	pr.Events = events
	data, err := json.Marshal(pr)
	if err != nil {
		p.err = fmt.Errorf("batch %d of the child: %w", p.n, err)
		return nil
	}
	if len(data) > maxInline {
		raw, _ := json.Marshal(events)
		name := hashOf(raw)
		if _, err := p.objects.PutBytes(context.WithoutCancel(ctx), name, raw); err != nil {
			p.err = fmt.Errorf("storing batch %d of the child (%d bytes): %w", p.n, len(raw), err)
			return nil
		}
		pr.Events, pr.Object = nil, name
		data, _ = json.Marshal(pr)
	}
	s := sent{msg: &nats.Msg{Subject: p.subject, Data: data, Header: nats.Header{kindHeader: []string{"batch"}}},
		id: p.token + "." + p.attempt + "." + strconv.Itoa(p.n)}
	s.ack, _ = p.js.PublishMsgAsync(s.msg, jetstream.WithMsgID(s.id))
	p.sent = append(p.sent, s)
	return nil
}

// flush waits until the server has every batch, sending again those it
// did not acknowledge, and returns how many there are — or fails the
// job's result when a batch could not be encoded.
func (p *publisher) flush(ctx context.Context) int {
	p.on.Store(false)
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
			_ = publishRetry(ctx, p.js, s.msg.Subject, s.msg.Data, s.id, "batch")
		}
	}
	return p.n
}
