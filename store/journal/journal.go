// Package journal keeps sessions in a store as they commit, and opens them
// again: a Journal is the session.Journal that appends every batch a
// session commits to a store.Store before the commit takes effect, and
// writes checkpoints that bound what opening a session replays. The
// store (package store and its backends) knows nothing of sessions.
package journal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"time"

	"github.com/offshoot-dev/offshoot/bus"
	"github.com/offshoot-dev/offshoot/serde"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/store"
)

// Journal writes sessions to a store as they commit: give it to a session
// with session.WithJournal (Open does), and every batch the session — or a
// fork of it — commits is appended to the store before its Dispatch
// returns; an append that fails (a conflict with another writer, a full
// disk) fails the dispatch, and the session stays as it was. A session's
// header is stored at its first commit: a fork's names its parent and the
// seq it forked at, and the fork stores only its own batches.
//
// Every CheckpointEvery batches of a session, the journal writes a
// checkpoint of it (its whole state, as snapshot JSON) on a goroutine of
// its own, once the batch is appended, so that a checkpoint never holds a
// writer up; each has a deadline (CheckpointTimeout), and Close waits for
// those scheduled no longer than that. A Journal is safe for concurrent
// use.
type Journal struct {
	st      store.Store
	every   int
	timeout time.Duration
	// stop ends the checkpoints in flight (Close, at the deadline).
	base context.Context
	stop context.CancelFunc

	mu      sync.Mutex
	batches map[string]int // sessions whose header is stored, and their batches since the last checkpoint (at most maxRemembered)
	next    map[string]checkpoint
	wake    chan struct{} // nil until the writer starts
	closed  bool
	wg      sync.WaitGroup
	err     error // the last checkpoint that failed
}

// checkpoint is a checkpoint to write.
type checkpoint struct {
	id   string
	snap session.Snapshot
	reg  *serde.Registry
}

// Options configure a Journal.
type Options struct {
	// CheckpointEvery is how many batches of a session go between two
	// checkpoints (100 when 0, none when negative): opening a session
	// replays at most about that many.
	CheckpointEvery int
	// CheckpointTimeout bounds how long a checkpoint may take (30
	// seconds when 0): one that takes longer is abandoned — the log
	// loses nothing; opening replays more — and Close returns within it.
	CheckpointTimeout time.Duration
}

// New returns a journal that writes to st.
func New(st store.Store, opts Options) *Journal {
	every := opts.CheckpointEvery
	if every == 0 {
		every = 100
	}
	timeout := opts.CheckpointTimeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	base, stop := context.WithCancel(context.Background())
	return &Journal{st: st, every: every, timeout: timeout, base: base, stop: stop, batches: map[string]int{}}
}

var _ session.Journal = (*Journal)(nil)

// Commit implements session.Journal: it stores the session's header if it
// is not stored yet, then appends the batch — the store's I/O and nothing
// else; a checkpoint it schedules is written after it returns.
func (j *Journal) Commit(ctx context.Context, c session.Commit) error {
	batch := c.Batch
	id := c.State.SessionID()
	b, err := encodeBatch(id, c.Registry, batch)
	if err != nil {
		return err
	}
	j.mu.Lock()
	n, known := j.batches[id]
	j.mu.Unlock()
	created := false
	if !known {
		if created, err = j.ensureHeader(ctx, c.State, batch[0].Seq-1); err != nil {
			return err
		}
	}
	if err := j.st.Append(ctx, id, b); err != nil {
		if created {
			// A header is stored with its session's first batch or not
			// at all: a session without a log (a damaged file refused
			// the batch) would be listed, and resumed, as empty.
			if derr := j.st.Delete(context.WithoutCancel(ctx), id); derr != nil {
				return fmt.Errorf("%w; its header, stored just before, could not be removed either: %v", err, derr)
			}
		}
		return err
	}
	n++
	if j.every > 0 && n >= j.every {
		// The state the batch leads to ends at a stored batch: checkpoint it.
		j.schedule(checkpoint{id: id, snap: c.State, reg: c.Registry})
		n = 0
	}
	j.mu.Lock()
	j.remember(id, n)
	j.mu.Unlock()
	return nil
}

// maxRemembered bounds how many sessions a journal keeps a count for: a
// service that forks a child per request does not grow it forever. A
// session forgotten looks its header up again at its next commit, and
// counts towards its next checkpoint from there.
const maxRemembered = 4096

// remember records that session id's header is stored and that n batches
// went since its last checkpoint, forgetting another session when the
// journal remembers too many. j.mu is held.
func (j *Journal) remember(id string, n int) {
	if _, ok := j.batches[id]; !ok && len(j.batches) >= maxRemembered {
		for other := range j.batches {
			delete(j.batches, other)
			break
		}
	}
	j.batches[id] = n
}

// ensureHeader stores the header of sn's session when the store has none:
// a root session from seq 0, a fork at the seq it starts from. It reports
// whether it stored it.
func (j *Journal) ensureHeader(ctx context.Context, sn session.Snapshot, forkSeq uint64) (bool, error) {
	id := sn.SessionID()
	if _, err := j.st.Header(ctx, id); err == nil {
		return false, nil
	} else if !errors.Is(err, store.ErrNotFound) {
		return false, err
	}
	h := store.Header{ID: id, Parent: sn.ParentID(), ForkSeq: forkSeq, Tags: sn.Tags()}
	if h.Parent == "" && forkSeq > 0 {
		return false, fmt.Errorf("store: session %s has events up to seq %d that were never stored; attach the journal when the session is new, or open the session from the store", id, forkSeq)
	}
	if h.Parent != "" {
		if _, err := j.st.Header(ctx, h.Parent); errors.Is(err, store.ErrNotFound) {
			if forkSeq > 0 {
				return false, fmt.Errorf("store: %s forks session %s at seq %d, which was never stored; journal the parent from its start", id, h.Parent, forkSeq)
			}
			// A parent that never committed anything: its header alone.
			if err := j.st.Create(ctx, store.Header{ID: h.Parent}); err != nil && !errors.Is(err, store.ErrExists) {
				return false, err
			}
		}
	}
	switch err := j.st.Create(ctx, h); {
	case errors.Is(err, store.ErrExists):
		return false, nil // another writer stored it
	case err != nil:
		return false, err
	}
	return true, nil
}

// schedule hands c to the checkpoint writer, starting it if needed. A
// checkpoint of the same session not written yet is replaced: the writer
// writes the latest it is given, and never holds a committer up.
func (j *Journal) schedule(c checkpoint) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.closed {
		return
	}
	if j.wake == nil {
		j.wake, j.next = make(chan struct{}, 1), map[string]checkpoint{}
		j.wg.Add(1)
		go j.writeCheckpoints()
	}
	j.next[c.id] = c
	select {
	case j.wake <- struct{}{}:
	default: // the writer is awake already
	}
}

// writeCheckpoints writes the checkpoints scheduled, until Close.
func (j *Journal) writeCheckpoints() {
	defer j.wg.Done()
	for range j.wake {
		j.mu.Lock()
		next := j.next
		j.next = map[string]checkpoint{}
		j.mu.Unlock()
		for _, c := range next {
			j.write(c)
		}
	}
}

func (j *Journal) write(c checkpoint) {
	state, err := session.MarshalSnapshot(c.snap, c.reg)
	if err == nil {
		ctx, cancel := context.WithTimeout(j.base, j.timeout)
		err = j.st.PutCheckpoint(ctx, c.id, store.Checkpoint{Seq: c.snap.Seq(), State: state})
		cancel()
	}
	if err != nil {
		j.mu.Lock()
		j.err = fmt.Errorf("store: checkpoint of session %s at seq %d: %w", c.id, c.snap.Seq(), err)
		j.mu.Unlock()
	}
}

// Close writes the checkpoints scheduled, for at most CheckpointTimeout
// — those not written by then are abandoned — and stops the journal's
// goroutine. Sessions that keep committing after Close still append;
// they are checkpointed no more. It returns the last checkpoint that
// failed, if any (a failed checkpoint loses nothing: the log is whole).
func (j *Journal) Close() error {
	j.mu.Lock()
	if !j.closed && j.wake != nil {
		close(j.wake) // the writer writes what is scheduled, then stops
	}
	j.closed = true
	j.mu.Unlock()
	deadline := time.AfterFunc(j.timeout, j.stop)
	j.wg.Wait()
	deadline.Stop()
	j.stop()
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.err
}

// encodeBatch encodes a committed batch of session id: each event as its
// type's name in reg and its JSON.
func encodeBatch(id string, reg *serde.Registry, batch []bus.Envelope) (store.Batch, error) {
	b := store.Batch{Seq: batch[0].Seq, Time: batch[0].Time, Events: make([]store.Event, len(batch))}
	for i, env := range batch {
		name, err := reg.Ensure(reflect.TypeOf(env.Payload))
		if err != nil {
			return store.Batch{}, fmt.Errorf("store: event %d of seq %d of session %s: %w", i, env.Seq, id, err)
		}
		data, err := json.Marshal(env.Payload)
		if err != nil {
			return store.Batch{}, fmt.Errorf("store: event %d (%s) of seq %d of session %s cannot be stored: %w", i, name, env.Seq, id, err)
		}
		b.Events[i] = store.Event{Type: name, Data: data}
	}
	return b, nil
}
