package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/offshoot-dev/offshoot/bus"
	"github.com/offshoot-dev/offshoot/internal/randid"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
)

// Serve runs children for the pool's executors (DefaultPool when pool is
// empty) until ctx is cancelled:
// it takes jobs from the pool's work queue, Setup.Concurrency at a time,
// checks that they come from a program of its own fingerprint and
// snapshot schema (a job from another is a failed result naming both,
// never a run on the wrong code), restores each child's state from the
// snapshot store, runs the child, streams what the child records back to
// the executor as it goes, publishes the result and only then
// acknowledges the job. While a child runs the worker tells the server it
// is alive; a worker that dies leaves its jobs to be given to another.
// When ctx is cancelled, the children running are stopped and their jobs
// given back, and Serve returns nil; when it can take no more jobs (its
// connection closed, its pool's consumer deleted), it does the same and
// returns an error saying why.
func Serve(ctx context.Context, js jetstream.JetStream, pool string, setup Setup) error {
	if js == nil {
		return errors.New("remote: Serve needs a JetStream handle (jetstream.New)")
	}
	if setup.Model == nil {
		return errors.New("remote: Serve needs Setup.Model, to find the models children run on")
	}
	if pool == "" {
		pool = DefaultPool
	}
	setup = setup.withDefaults()
	setup.name()
	in, err := ensure(ctx, js, pool, setup.AckWait, setup.MaxDeliver, setup.JobMaxAge)
	if err != nil {
		return err
	}
	host, _ := os.Hostname()
	w := &worker{js: js, nc: js.Conn(), in: in, setup: setup, fingerprint: setup.fingerprint(),
		id: randid.New()[:8], name: fmt.Sprintf("%s/%d", host, os.Getpid()), pid: os.Getpid(), running: map[string]running{}, cancelled: map[string][]nats.Header{},
		cache: newSnapshotCache(setup.MaxSnapshotBytes), stats: setup.Stats}
	if w.stats == nil {
		w.stats = new(Stats)
	}
	sub, err := w.nc.Subscribe(cancelSubject("*.*"), w.onCancel)
	if err != nil {
		return fmt.Errorf("remote: subscribing to cancellations: %w", err)
	}
	defer func() { _ = sub.Unsubscribe() }()
	var wg sync.WaitGroup
	life, lose, stopWatching := w.watch(ctx)
	defer stopWatching()
	defer wg.Wait()
	defer lose(nil)
	slots := make(chan struct{}, setup.Concurrency)
	lost := func(err error) error {
		if ctx.Err() != nil {
			return nil // asked to stop
		}
		if w.nc.IsClosed() {
			err = w.closedCause()
		} else if cause := context.Cause(life); cause != nil && !errors.Is(cause, context.Canceled) {
			err = cause
		}
		return fmt.Errorf("remote: the worker can take no more jobs of pool %q: %w", pool, err)
	}
	for {
		n, err := w.take(life, slots)
		if err != nil {
			return lost(err)
		}
		fctx, stop := context.WithTimeout(life, fetchWait)
		batch, err := in.pool.Fetch(n, jetstream.FetchContext(fctx))
		if err == nil {
			for msg := range batch.Messages() {
				n--
				wg.Go(func() {
					defer func() { <-slots }()
					w.handle(life, msg)
				})
			}
			err = batch.Error()
		}
		stop()
		if hooks.fetched != nil {
			hooks.fetched()
		}
		for range n {
			<-slots
		}
		if life.Err() != nil {
			return lost(err)
		}
		if err == nil || errors.Is(err, context.DeadlineExceeded) {
			continue
		}
		if gone(life, in.pool, err) {
			return lost(err)
		}
		setup.Logger.Warn("remote: fetching a job", "pool", pool, "error", err)
		select { // not in a tight loop while the server is away
		case <-life.Done():
			return lost(err)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// hooks are set by tests only, to hold the worker at points no message
// shows.
var hooks struct {
	taken      func(key string) // a job decoded, not yet started
	cancelSeen func(key string) // a cancel handled
	fetched    func()           // a request for jobs ended
}

// worker is one Serve.
type worker struct {
	js          jetstream.JetStream
	nc          *nats.Conn
	in          *infra
	setup       Setup
	fingerprint string
	id, name    string
	pid         int

	// drain is where finished children's records and results are sent
	// (see watch).
	drain context.Context

	mu      sync.Mutex
	running map[string]running // by job key
	// cancelled are the headers of cancels of jobs that did not run here
	// when they came, by job key, the latest ones, oldest first in
	// cancelOrder.
	cancelled   map[string][]nats.Header
	cancelOrder []string
	// stats counts the cancels ignored for want of the job's MAC;
	// warnedCancel says the first was logged.
	stats        *Stats
	warnedCancel atomic.Bool
	cache        *snapshotCache
}

// handle runs one delivery of a job to completion: a result published and
// the job acknowledged, or — when the worker is stopping — the job given
// back.
func (w *worker) handle(ctx context.Context, msg jetstream.Msg) {
	defer func() {
		if p := recover(); p != nil {
			w.setup.Logger.Error("remote: a job panicked the worker", "panic", p)
			_ = msg.TermWithReason(fmt.Sprintf("panic: %v", p))
		}
	}()
	defer w.alive(msg)()
	j, err := decodeJob(msg.Data())
	if err != nil {
		if j != nil && safeToken(j.Token) && validReply(j.Reply, "offshoot.progress.") {
			w.finish(w.drain, msg, j, "", 0, &result{Error: &wireError{Kind: kindWorker, Message: "the worker refused the job: " + err.Error()}})
			return
		}
		w.setup.Logger.Warn("remote: dropped a job that is not one", "error", err)
		_ = msg.TermWithReason(clip(err.Error()))
		return
	}
	if hooks.taken != nil {
		hooks.taken(j.key())
	}
	delivery := 1
	if meta, err := msg.Metadata(); err == nil {
		delivery = int(meta.NumDelivered)
	}
	attempt := fmt.Sprintf("%s-%d", w.id, delivery)
	if j.Schema != session.SchemaVersion || j.Fingerprint != w.fingerprint {
		what := w.setup.unmet(j.Needs)
		if what == "" {
			what = "what the child needs matches, the programs differ elsewhere (their prompts, agents, tools or event types)"
		}
		w.finish(w.drain, msg, j, attempt, 0, &result{Error: &wireError{Kind: kindMismatch, Message: fmt.Sprintf(
			"%s: the job comes from a program of snapshot schema %s and fingerprint %s, and this worker runs snapshot schema %s and fingerprint %s; run workers built from the same code as the program that dispatches",
			what, j.Schema, j.Fingerprint, session.SchemaVersion, w.fingerprint)}})
		return
	}

	jctx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	defer cancel(nil)
	if !w.hold(j.key(), j.Secret, cancel) {
		w.finish(w.drain, msg, j, attempt, 0, &result{Error: &wireError{Kind: kindCanceled, Message: errCancelled.Error()}})
		return
	}
	defer w.release(j.key())
	stopServe := context.AfterFunc(ctx, func() { cancel(context.Canceled) })
	defer stopServe()
	if !j.Deadline.IsZero() {
		var stop context.CancelFunc
		jctx, stop = context.WithDeadline(jctx, j.Deadline)
		defer stop()
	}

	pub := &publisher{js: w.js, subject: j.Reply, token: j.Token, key: j.key(), secret: j.Secret, attempt: attempt, delivery: delivery, worker: w.name, pid: w.pid, reg: w.setup.Registry, objects: w.in.objects}
	res := w.run(extract(jctx, msg.Headers()), j, pub)
	if ctx.Err() != nil {
		pub.flush(ctx) // stops the sender
		_ = msg.Nak()  // the worker is stopping: another one takes the job
		return
	}
	n, tail := pub.flush(w.drain)
	if pub.err != nil {
		res = &result{Error: &wireError{Kind: kindWorker, Message: "the worker could not send what the child recorded: " + pub.err.Error()}}
	}
	res.Tail = tail
	w.finish(w.drain, msg, j, attempt, n, res)
}

// alive tells the server that the worker holds the job, every third of
// the ack wait, from when it takes the job until the returned function is
// called: a job is given to another worker only when its worker is gone.
func (w *worker) alive(msg jetstream.Msg) (stop func()) {
	done := make(chan struct{})
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		t := time.NewTicker(w.setup.AckWait / 3)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				_ = msg.InProgress()
			}
		}
	}()
	return func() {
		close(done)
		<-exited
	}
}

// finish publishes the result, then acknowledges the job.
func (w *worker) finish(ctx context.Context, msg jetstream.Msg, j *job, attempt string, batches int, res *result) {
	res.Token, res.Attempt, res.Worker, res.PID, res.Batches = j.Token, attempt, w.name, w.pid, batches
	if meta, err := msg.Metadata(); err == nil {
		res.Delivery = int(meta.NumDelivered)
	}
	data, err := json.Marshal(res)
	if err != nil {
		data, _ = json.Marshal(&result{Token: j.Token, Attempt: attempt, Worker: w.name, PID: w.pid, Batches: batches,
			Error: &wireError{Kind: kindWorker, Message: "the worker could not encode the child's result: " + err.Error()}})
	}
	m := &nats.Msg{Subject: j.Reply, Data: data, Header: replyHeader(j.Secret, macResult, j.key(), data)}
	if err := publishRetry(ctx, w.js, m, j.key()+"."+attempt+".r"); err != nil {
		w.setup.Logger.Warn("remote: could not publish a result; the job will be given again", "job", j.ID, "error", err)
		return
	}
	if res.Error != nil && (res.Error.Kind == kindMismatch || res.Error.Kind == kindWorker) {
		_ = msg.Term()
		return
	}
	_ = msg.Ack()
}

// publishRetry publishes m with msgID (the stream drops a duplicate),
// retrying while the server is away, for up to a minute.
func publishRetry(ctx context.Context, js jetstream.JetStream, m *nats.Msg, msgID string) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	var err error
	for {
		pctx, stop := context.WithTimeout(ctx, 5*time.Second)
		_, err = js.PublishMsg(pctx, m, jetstream.WithMsgID(msgID))
		stop()
		if err == nil || ctx.Err() != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// kindHeader says what a message on a progress subject is: "batch" or
// "result".
const kindHeader = "Offshoot-Kind"

// replyHeader is the headers of a message of kind (macBatch, macResult)
// on a job's progress subject: its kind, and its MAC when the job has a
// secret (a job of another wire version may have none: its refusal goes
// unsigned, and a parent of this version drops it).
func replyHeader(secret []byte, kind, key string, data []byte) nats.Header {
	h := nats.Header{kindHeader: []string{kind}}
	if len(secret) == secretBytes {
		sign(h, secret, kind, key, data)
	}
	return h
}

// run restores the job's child and runs its evaluation.
func (w *worker) run(ctx context.Context, j *job, pub *publisher) *result {
	fail := func(format string, args ...any) *result {
		return &result{Error: &wireError{Kind: kindWorker, Message: fmt.Sprintf(format, args...)}}
	}
	req, s, err := w.restore(ctx, j, pub)
	if err != nil && ctx.Err() != nil { // cancelled while it was being restored
		return outcome(ctx, nil, context.Cause(ctx))
	}
	if err != nil {
		return fail("the worker could not start the subagent: %v", err)
	}
	defer func() { _ = s.Close() }()
	if j.Deltas != "" {
		stop, err := forwardDeltas(w.nc, s, j)
		if err != nil {
			return fail("the worker could not stream the child's answers: %v", err)
		}
		defer stop()
	}
	pub.start()
	resp, err := runner.Evaluate(jobContext(ctx, j), req)
	return outcome(ctx, resp, err)
}

// outcome is the result of an evaluation.
func outcome(ctx context.Context, resp *runner.Response, err error) *result {
	res := &result{}
	if resp != nil {
		wr := &wireResponse{Evaluation: resp.Evaluation, Text: resp.Text, Usage: resp.Usage, ChildUsage: resp.ChildUsage,
			Turns: resp.Turns, ToolCalls: resp.ToolCalls, ToolsUsed: resp.ToolsUsed, Duration: resp.Duration}
		res.Response = wr
	}
	if err != nil {
		we := &wireError{Message: err.Error()}
		var ee *runner.EvaluationError
		if errors.As(err, &ee) {
			we.Phase, we.Message = string(ee.Phase), ee.Err.Error()
		}
		switch {
		case errors.Is(err, runner.ErrMaxTurns):
			we.Kind = kindMaxTurns
		case errors.Is(err, runner.ErrBudgetExceeded):
			we.Kind = kindBudget
		case errors.Is(err, context.DeadlineExceeded):
			we.Kind = kindDeadline
		case errors.Is(err, context.Canceled) || ctx.Err() != nil:
			we.Kind = kindCanceled
		}
		res.Error = we
	}
	return res
}

// restore makes the child's session from the job's snapshot, as the
// dispatching engine made it, and the request to evaluate on it.
func (w *worker) restore(ctx context.Context, j *job, pub *publisher) (runner.Request, *session.Session, error) {
	var req runner.Request
	var snap session.Snapshot
	if j.Snapshot != "" {
		var err error
		if snap, err = w.snapshot(ctx, j.Snapshot); err != nil {
			return req, nil, err
		}
	}
	b := w.setup.Bus
	if b == nil {
		b = bus.New()
	}
	s, err := session.New(session.WithID(j.Session), session.WithSnapshot(snap), session.WithRegistry(w.setup.Registry),
		session.WithBus(b), session.WithJournal(pub))
	if err != nil {
		return req, nil, err
	}
	req, err = w.request(ctx, j, s)
	if err != nil {
		_ = s.Close()
		return req, nil, err
	}
	return req, s, nil
}

// snapshot returns the snapshot of the given name: from the cache, or
// read from the object store, bounded, checked against its hash and
// decoded.
func (w *worker) snapshot(ctx context.Context, name string) (session.Snapshot, error) {
	if snap, ok := w.cache.get(name); ok {
		return snap, nil
	}
	data, err := w.fetch(ctx, name)
	if err != nil {
		return session.Snapshot{}, err
	}
	snap, err := session.UnmarshalSnapshot(data, w.setup.Registry)
	if err != nil {
		return session.Snapshot{}, fmt.Errorf("restoring the parent's state: %w", err)
	}
	w.cache.put(name, snap, int64(len(data)))
	return snap, nil
}

// fetch reads a snapshot from the object store, bounded by
// Setup.MaxSnapshotBytes, and checks its hash.
func (w *worker) fetch(ctx context.Context, name string) ([]byte, error) {
	data, err := readObject(ctx, w.in.objects, name, w.setup.MaxSnapshotBytes)
	if err != nil {
		return nil, fmt.Errorf("the parent's state (at most Setup.MaxSnapshotBytes on the worker): %w", err)
	}
	return data, nil
}

// readObject reads the object named by the sha256 of its bytes from the
// store: at most max bytes, and no more than its entry says it holds (an
// entry another client rewrote cannot make the reader take more), checked
// against its name.
func readObject(ctx context.Context, objects jetstream.ObjectStore, name string, max int64) ([]byte, error) {
	if !isHash(name) {
		return nil, fmt.Errorf("the object name %q is not a sha256", clip(name))
	}
	info, err := objects.GetInfo(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("the object %s is not in the snapshot store: %w", name, err)
	}
	if info.Size > uint64(max) {
		return nil, fmt.Errorf("the object %s is %d bytes, over the limit of %d", name, info.Size, max)
	}
	r, err := objects.Get(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("reading the object %s: %w", name, err)
	}
	defer func() { _ = r.Close() }()
	data, err := io.ReadAll(io.LimitReader(r, int64(info.Size)+1))
	if err != nil {
		return nil, fmt.Errorf("reading the object %s: %w", name, err)
	}
	if uint64(len(data)) > info.Size {
		return nil, fmt.Errorf("the object %s holds more than the %d bytes its entry in the store says", name, info.Size)
	}
	if hashOf(data) != name {
		return nil, fmt.Errorf("the object %s does not have the hash it is stored under", name)
	}
	return data, nil
}
