package remote

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/offshoot-dev/offshoot/internal/randid"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/subagent"
)

// Options configure an Executor.
type Options struct {
	// Pool names the workers that run the children (letters, digits, '-'
	// and '_'; DefaultPool when empty): the jobs go to offshoot.jobs.<Pool>.
	Pool string
	// Setup is what the program registers for its children, as its
	// workers do (see Setup): its fingerprint goes with every job, and its
	// AckWait and MaxDeliver make the pool when it does not exist yet.
	// Model and the worker settings are not used here.
	Setup Setup
	// TraceContext, when set, gives the context whose span a job's trace
	// headers carry, from the delegating tool call (its session and call
	// id): telemetry.Observer.CallContext, so that the child's spans on
	// its worker continue the trace under the call that delegated it.
	// Without it, the headers carry the span of the context the child
	// runs with, if any.
	TraceContext func(ctx context.Context, sessionID, callID string) context.Context
}

// Executor runs a subagent.Engine's children on the workers of a pool
// (Serve) over NATS JetStream: give it to subagent.Options.Executor.
// Everything above the engine — dispatch_subagent, the Task tool,
// background tasks, hooks, limits, usage, cancellation — works as with
// children in process and gives the same results: what a child records on
// its worker is applied to its session here, batch by batch as it goes
// (so the parent's bus observers see the child's events), and its result
// exactly once.
//
// A child's start state goes to the JetStream object store under its
// sha256, once for all the siblings forked from one parent state. A job
// that no worker finishes in Setup.MaxDeliver deliveries fails, saying so.
// Cancelling a child's context cancels it on its worker.
type Executor struct {
	js    jetstream.JetStream
	nc    *nats.Conn
	in    *infra
	setup Setup
	pool  string
	// traceContext is Options.TraceContext.
	traceContext func(ctx context.Context, sessionID, callID string) context.Context
	id           string
	fp           string
	index        index // what the setup registers, hashed
	cons         jetstream.ConsumeContext
	subs         []*nats.Subscription // the pool's advisories, the deltas
	// gone is closed when the connection closes for good (the server was
	// away longer than the client reconnects, or the program closed it):
	// no reply can arrive after that. status is the connection's closing,
	// watched until watched is closed by Close.
	gone    chan struct{}
	status  chan nats.Status
	watched chan struct{}
	// missingWait is how long a result that counts batches not arrived
	// yet waits for them (the worker sends a lost one again for up to a
	// minute) before the child fails.
	missingWait time.Duration
	dispatched  atomic.Uint64 // jobs dispatched, for their tokens
	rejected    atomic.Uint64 // messages that failed their authentication
	// observe, when set (by tests), is told of each message rejected
	// ("rejected") and each notice not confirmed when it came ("notice").
	observe func(event string)

	mu      sync.Mutex
	closed  bool
	waiting map[string]*waiter // by job token
	bySeq   map[uint64]string  // job's stream seq → its token
	stored  map[string]object  // objects known to be in the store, by name
	cache   []cached           // recent snapshots' object names
	flights map[cached]*flight // snapshots being stored
}

// object is a snapshot known to be in the store: when it was put there.
type object struct {
	put time.Time
}

// flight is a snapshot being stored: siblings that fork from the state
// meanwhile wait for it rather than store it again.
type flight struct {
	done chan struct{}
	name string
	err  error
}

// NewExecutor returns an executor for the pool, creating the streams, the
// pool and the snapshot bucket if they do not exist. Close it when done.
func NewExecutor(ctx context.Context, js jetstream.JetStream, opts Options) (*Executor, error) {
	if js == nil {
		return nil, errors.New("remote: NewExecutor needs a JetStream handle (jetstream.New)")
	}
	if opts.Pool == "" {
		opts.Pool = DefaultPool
	}
	setup := opts.Setup.withDefaults()
	setup.name()
	in, err := ensure(ctx, js, opts.Pool, setup.AckWait, setup.MaxDeliver, setup.JobMaxAge)
	if err != nil {
		return nil, err
	}
	x := &Executor{js: js, nc: js.Conn(), in: in, setup: setup, pool: opts.Pool, traceContext: opts.TraceContext, id: token(randid.New())[:12], fp: setup.fingerprint(), index: setup.index(), missingWait: 2 * time.Minute,
		waiting: map[string]*waiter{}, bySeq: map[uint64]string{}, stored: map[string]object{}, flights: map[cached]*flight{}}
	cons, err := js.OrderedConsumer(ctx, repliesStream, jetstream.OrderedConsumerConfig{
		FilterSubjects: []string{x.replyPrefix() + ">"}, DeliverPolicy: jetstream.DeliverNewPolicy})
	if err != nil {
		return nil, fmt.Errorf("remote: following the progress stream: %w", err)
	}
	if x.cons, err = cons.Consume(x.onReply); err != nil {
		return nil, fmt.Errorf("remote: following the progress stream: %w", err)
	}
	for _, kind := range []string{noticeMaxDeliveries, noticeTerminated} {
		sub, err := x.nc.Subscribe(advisorySubject(kind, opts.Pool), x.onAdvisory)
		if err != nil {
			x.unsubscribe()
			return nil, fmt.Errorf("remote: following the pool's advisories: %w", err)
		}
		x.subs = append(x.subs, sub)
	}
	sub, err := x.nc.Subscribe(deltaSubject(x.id, "*"), x.onDelta)
	if err != nil {
		x.unsubscribe()
		return nil, fmt.Errorf("remote: following the workers' deltas: %w", err)
	}
	x.subs = append(x.subs, sub)
	x.gone, x.watched = make(chan struct{}), make(chan struct{})
	x.status = x.nc.StatusChanged(nats.CLOSED)
	go x.watch()
	return x, nil
}

// watch closes gone when the connection closes, until Close.
func (x *Executor) watch() {
	defer close(x.watched)
	if x.nc.IsClosed() { // before the listener was there
		close(x.gone)
		return
	}
	if st, ok := <-x.status; ok && st == nats.CLOSED {
		close(x.gone)
	}
}

// errClosed is a child's failure when its executor was closed before it
// was dispatched.
var errClosed = errors.New("the remote executor is closed; dispatch with a new one")

// errGone is a child's failure when the executor's connection closed.
var errGone = errors.New("the connection to the NATS server closed, so no worker's reply can arrive; connect again and make a new executor")

// Close stops following the workers' replies. It leaves the snapshots
// in the store: an object is named by its content's hash and shared by
// every executor that forks from that state, so another executor's
// queued jobs may name one this executor put; the store's TTL removes
// them. Children still running fail, and so do those dispatched after
// it. Closing again does nothing.
func (x *Executor) Close() error {
	x.mu.Lock()
	closed := x.closed
	x.closed = true
	x.mu.Unlock()
	if closed {
		return nil
	}
	x.nc.RemoveStatusListener(x.status)
	<-x.watched
	x.unsubscribe()
	x.mu.Lock()
	x.stored = map[string]object{}
	for _, w := range x.waiting {
		w.push(reply{closed: true})
	}
	x.mu.Unlock()
	return nil
}

// unsubscribe stops following the replies, advisories and deltas.
func (x *Executor) unsubscribe() {
	x.cons.Stop()
	for _, s := range x.subs {
		_ = s.Unsubscribe()
	}
}

func (x *Executor) replyPrefix() string { return "offshoot.progress." + x.id + "." }

// onReply routes a worker's progress or result to the job waiting for it;
// a reply no job waits for (a duplicate, a late one) is dropped, and so
// is one without the MAC of the job's secret (rejected).
func (x *Executor) onReply(m jetstream.Msg) {
	tok := m.Subject()[len(x.replyPrefix()):]
	x.mu.Lock()
	w := x.waiting[tok]
	x.mu.Unlock()
	if w == nil {
		return
	}
	kind := m.Headers().Get(kindHeader)
	if kind != macBatch && kind != macResult || !authentic(m.Headers(), w.job.Secret, kind, w.job.key(), m.Data()) {
		what := "a progress message"
		if m.Headers().Get(macHeader) == "" {
			what += " without a MAC (a worker of an earlier release sends none, and cannot run this program's jobs)"
		}
		x.reject(w.job, w, what)
		return
	}
	w.push(reply{result: kind == macResult, data: m.Data()})
}

// Rejected returns how many messages about this executor's jobs it
// dropped because they did not carry the MAC of the job's worker: sent
// by someone else on the server, or by a worker of an earlier release.
// Each job with such messages is logged once (Setup.Logger).
func (x *Executor) Rejected() uint64 { return x.rejected.Load() }

// reject counts a message about j that failed its authentication, and
// logs the first one of the job.
func (x *Executor) reject(j *job, w *waiter, what string) {
	x.rejected.Add(1)
	if w.warned.CompareAndSwap(false, true) {
		x.setup.Logger.Warn("remote: dropped a message about a subagent's job that does not come from its worker; later ones of the job are dropped silently (see Executor.Rejected)",
			"agent", j.ID, "job", j.key(), "message", what)
	}
	x.tell("rejected")
}

// tell tells the test observer of event.
func (x *Executor) tell(event string) {
	if x.observe != nil {
		x.observe(event)
	}
}

// reply is what reaches a waiting job.
type reply struct {
	result bool
	data   []byte
	notice *notice       // the server says it gave up on the job
	delta  *runner.Delta // a piece of the child's answer, to publish
	closed bool          // the executor closed
}

// waiter is a job waiting for its worker: replies queue up here, without
// bound on the consumer's side, and the job takes them in order.
type waiter struct {
	job    *job
	child  *session.Session // whose deltas the job's are
	warned atomic.Bool      // a rejected message about the job was logged
	mu     sync.Mutex
	queue  []reply
	signal chan struct{}
}

func newWaiter() *waiter { return &waiter{signal: make(chan struct{}, 1)} }

func (w *waiter) push(r reply) {
	w.mu.Lock()
	w.queue = append(w.queue, r)
	w.mu.Unlock()
	select {
	case w.signal <- struct{}{}:
	default:
	}
}

func (w *waiter) take() []reply {
	w.mu.Lock()
	defer w.mu.Unlock()
	q := w.queue
	w.queue = nil
	return q
}

// cached is the object name of a snapshot recently stored.
type cached struct {
	session   string
	revision  uint64
	seq       uint64
	createdAt time.Time
	name      string
}

const cachedSnapshots = 32

// storeSnapshot stores the state a child starts from under its hash,
// unless it is stored already, and returns its name.
func (x *Executor) storeSnapshot(ctx context.Context, s *session.Session, snap session.Snapshot) (string, error) {
	key := cached{session: snap.SessionID(), revision: snap.Revision(), seq: snap.Seq(), createdAt: snap.CreatedAt()}
	x.mu.Lock()
	for _, c := range x.cache {
		if c.session == key.session && c.revision == key.revision && c.seq == key.seq && c.createdAt.Equal(key.createdAt) && x.kept(c.name) {
			x.mu.Unlock()
			return c.name, nil
		}
	}
	if f := x.flights[key]; f != nil {
		x.mu.Unlock()
		select {
		case <-f.done:
			return f.name, f.err
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
	f := &flight{done: make(chan struct{})}
	x.flights[key] = f
	x.mu.Unlock()
	defer func() {
		x.mu.Lock()
		delete(x.flights, key)
		x.mu.Unlock()
		close(f.done)
	}()
	f.name, f.err = x.store(ctx, s, snap, key)
	return f.name, f.err
}

// kept reports whether the object of the name was put in the store by
// this executor or found there, and will stay there a while yet: for at
// least half the bucket's TTL from when it was put, so that a job that
// names it finds it on its worker though it waits in the queue. Past
// that, the object is put again (the store drops it at its TTL, whatever
// the executor remembers). x.mu is held.
func (x *Executor) kept(name string) bool {
	o, ok := x.stored[name]
	return ok && x.lasts(o.put)
}

// lasts reports whether an object put in the store at put stays there
// for at least half the bucket's TTL from now.
func (x *Executor) lasts(put time.Time) bool {
	ttl := x.in.objectsTTL
	return ttl <= 0 || time.Since(put) < ttl/2
}

// store marshals snap and stores it under its hash unless it is there.
func (x *Executor) store(ctx context.Context, s *session.Session, snap session.Snapshot, key cached) (string, error) {
	data, err := session.MarshalSnapshot(snap, s.Registry())
	if err != nil {
		return "", err
	}
	name := hashOf(data)
	x.mu.Lock()
	known := x.kept(name)
	x.mu.Unlock()
	var o object
	if !known {
		if info, err := x.in.objects.GetInfo(ctx, name); err == nil && x.lasts(info.ModTime) {
			o.put = info.ModTime
		} else {
			o.put = time.Now()
			if _, err := x.in.objects.PutBytes(ctx, name, data); err != nil {
				return "", fmt.Errorf("storing the parent's state: %w", err)
			}
		}
	}
	x.mu.Lock()
	if known {
		o = x.stored[name]
	}
	x.stored[name] = o
	key.name = name
	x.cache = append(x.cache, key)
	if len(x.cache) > cachedSnapshots {
		x.cache = x.cache[1:]
	}
	x.mu.Unlock()
	return name, nil
}

// jobToken is the subject token of a job: the agent's id (cut to leave
// room), and the number of the executor's dispatch, which alone makes it
// unique — engines that share the executor may number their agents
// alike, and a child continued by a stop hook is dispatched again.
func (x *Executor) jobToken(job *subagent.Job) string {
	tok := token(job.ID)
	if len(tok) > 48 {
		tok = tok[:48]
	}
	return tok + "_" + strconv.FormatUint(x.dispatched.Add(1), 36)
}
