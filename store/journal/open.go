package journal

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"reflect"
	"slices"

	"github.com/offshoot-dev/offshoot/bus"
	"github.com/offshoot-dev/offshoot/serde"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/store"
)

// Open returns a live session whose state is the stored session id's:
// from its latest checkpoint (or its parent's, for a fork, up to the fork),
// then its log's batches after it, through the reducers of sets — every
// set the session's events were reduced by (a toolset's, the runner's…):
// an event whose reducers are missing is kept as a raw record instead.
// The session decodes the events with reg, which must know their type
// names (the sets' names are added to it), commits to j from then on, and
// gets opts (a bus, an id generator). Close it when done.
func (j *Journal) Open(ctx context.Context, id string, reg *serde.Registry, sets []session.Reducers, opts ...session.Option) (*session.Session, error) {
	h, err := j.st.Header(ctx, id)
	if err != nil {
		return nil, err
	}
	if reg == nil {
		reg = serde.DefaultRegistry
	}
	for _, set := range sets {
		if err := set.Name(reg); err != nil {
			return nil, err
		}
	}
	from, seq, segments, err := plan(ctx, j.st, id, 0)
	if err != nil {
		return nil, err
	}
	var snap session.Snapshot
	if from != nil {
		if snap, err = session.UnmarshalSnapshot(from.State, reg); err != nil {
			return nil, fmt.Errorf("store: the checkpoint at seq %d of session %s: %w", from.Seq, id, err)
		}
	}
	types := typeNames{reg: reg}
	log := func(yield func([]bus.Envelope, error) bool) {
		for r := range readAhead(ctx, j.st, segments) {
			if r.err != nil {
				yield(nil, r.err)
				return
			}
			envs, err := decodeBatch(&types, r.id, r.batch)
			if !yield(envs, err) || err != nil {
				return
			}
		}
	}
	s, err := session.Restore(ctx, id, h.Parent, snap, seq, sets, log,
		append(opts, session.WithRegistry(reg), session.WithTags(h.Tags), session.WithJournal(j))...)
	if err != nil {
		return nil, err
	}
	// A log that ended early without a gap — a fork inside one of its
	// parent's batches, which store.Fork never makes — is as damaged as
	// one with a gap.
	if got := s.Snapshot().Seq(); got != h.Seq {
		s.Close()
		return nil, fmt.Errorf("store: session %s is damaged: its log ends at seq %d, and its header says %d (forked from %s at seq %d)", id, got, h.Seq, h.Parent, h.ForkSeq)
	}
	j.mu.Lock()
	if _, ok := j.batches[id]; !ok {
		j.remember(id, 0)
	}
	j.mu.Unlock()
	return s, nil
}

// readAhead yields the batches of segments, read from st by a goroutine
// of its own up to readAheadBatches ahead of the caller: opening a long
// log reads and inflates rows while it decodes and applies those before
// them, on two cores at once. The goroutine has ended when the sequence
// has, however it ended.
func readAhead(ctx context.Context, st store.Store, segments []segment) iter.Seq[batchRead] {
	return func(yield func(batchRead) bool) {
		ctx, cancel := context.WithCancel(ctx)
		reads := make(chan batchRead, readAheadBatches)
		go func() {
			defer close(reads)
			for _, seg := range segments {
				for b, err := range st.Batches(ctx, seg.id, seg.after, seg.upTo) {
					select {
					case reads <- batchRead{seg.id, b, err}:
					case <-ctx.Done():
						return
					}
					if err != nil {
						return
					}
				}
			}
		}()
		defer func() {
			cancel()
			for range reads { // until the reader has gone
			}
		}()
		for r := range reads {
			if !yield(r) {
				return
			}
		}
	}
}

// readAheadBatches is how far readAhead reads ahead.
const readAheadBatches = 64

// batchRead is a batch of session id read from a store, or the error that
// ended the reading.
type batchRead struct {
	id    string
	batch store.Batch
	err   error
}

// segment is a part of a session's log: the batches of session id after
// seq after, up to upTo (0: all).
type segment struct {
	id          string
	after, upTo uint64
}

// plan returns where reading session id up to upTo starts — a checkpoint
// (nil for none) and its seq — and the segments of log to read after it:
// the session's own, after those of the sessions it was forked from. It
// walks up the chain of parents one header at a time, however long the
// chain, and refuses one that loops or forks a parent before its start
// (a damaged or hostile store: store.Fork never makes them).
func plan(ctx context.Context, st store.Store, id string, upTo uint64) (*store.Checkpoint, uint64, []segment, error) {
	var segs []segment // the latest first
	done := func(from *store.Checkpoint, seq uint64) (*store.Checkpoint, uint64, []segment, error) {
		slices.Reverse(segs)
		return from, seq, segs, nil
	}
	seen := map[string]bool{}
	var child store.Header // the session whose parent cur is; none at first
	for cur := id; ; {
		if seen[cur] {
			return nil, 0, nil, fmt.Errorf("store: session %s is damaged: the sessions it was forked from loop back to %s", id, cur)
		}
		seen[cur] = true
		h, err := st.Header(ctx, cur)
		if err != nil {
			if child.ID != "" {
				err = fmt.Errorf("store: reading %s, the parent of %s: %w", cur, child.ID, err)
			}
			return nil, 0, nil, err
		}
		if child.ID != "" && h.ForkSeq > upTo {
			return nil, 0, nil, fmt.Errorf("store: session %s is damaged: it was forked from %s at seq %d, before %s starts (at seq %d, where it was forked from %s)",
				child.ID, cur, upTo, cur, h.ForkSeq, h.Parent)
		}
		c, ok, err := st.Checkpoint(ctx, cur, upTo)
		if err != nil {
			return nil, 0, nil, err
		}
		if ok && c.Seq >= h.ForkSeq {
			segs = append(segs, segment{cur, c.Seq, upTo})
			return done(&c, c.Seq)
		}
		if h.Parent == "" || h.ForkSeq == 0 {
			segs = append(segs, segment{cur, 0, upTo})
			return done(nil, 0)
		}
		segs = append(segs, segment{cur, h.ForkSeq, upTo})
		child, cur, upTo = h, h.Parent, h.ForkSeq
	}
}

// typeNames finds the types of stored events by name: the name a
// registry gives, or — for data written before a program named a type —
// a registered type's serde.DefaultName.
type typeNames struct {
	reg       *serde.Registry
	byDefault map[string]reflect.Type // made at the first name the registry does not know
}

func (n *typeNames) lookup(name string) (reflect.Type, bool) {
	if t, ok := n.reg.Lookup(name); ok {
		return t, true
	}
	if n.byDefault == nil {
		n.byDefault = map[string]reflect.Type{}
		for _, known := range n.reg.Names() {
			if t, ok := n.reg.Lookup(known); ok {
				n.byDefault[serde.DefaultName(t)] = t
			}
		}
	}
	t, ok := n.byDefault[name]
	return t, ok
}

// decodeBatch decodes a stored batch's events.
func decodeBatch(types *typeNames, id string, b store.Batch) ([]bus.Envelope, error) {
	envs := make([]bus.Envelope, len(b.Events))
	for i, e := range b.Events {
		t, ok := types.lookup(e.Type)
		if !ok {
			return nil, fmt.Errorf("store: event %d of seq %d of session %s is a %q, a type this program does not know; register it (serde.Register, or the Names of its reducer set)", i, b.Seq, id, e.Type)
		}
		v := reflect.New(t)
		if err := json.Unmarshal(e.Data, v.Interface()); err != nil {
			return nil, fmt.Errorf("store: event %d (%s) of seq %d of session %s: %w", i, e.Type, b.Seq, id, err)
		}
		envs[i] = bus.Envelope{Seq: b.Seq + uint64(i), Time: b.Time, Payload: v.Elem().Interface()}
	}
	return envs, nil
}
