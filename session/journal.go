package session

import (
	"context"
	"fmt"
	"iter"
	"slices"
	"time"

	"github.com/offshoot-dev/offshoot/bus"
	"github.com/offshoot-dev/offshoot/serde"
)

// A Journal keeps what a session commits somewhere that outlives it — a
// store's log (package store). A session given one (WithJournal) hands it
// every batch it commits — a Dispatch's events, an Install's seed —
// before the commit takes effect, as plain values (Commit): the batch,
// with the envelopes' Seq, Time and Payload set, and the state it leads
// to; never the session. An error fails the write and leaves the
// session's state as it was, so memory never runs ahead of the journal.
// Forks inherit their parent's journal.
//
// Commit runs while the session's writers wait — the session's lock,
// which no reader takes: reads (Get, Snapshot, Fork) never wait for a
// journal. So that a lost disk or network cannot hold the lock forever,
// Commit's context ends at most 30 seconds after it is called (sooner
// when the writer's does); a journal must return once its context is
// done, and a writer waiting behind it gives up when its own context
// ends. A journal does its slow work that need not precede the write —
// checkpoints — elsewhere, after Commit returns.
//
// Writes that are not events — Seed, Clear, Reset — are refused on a
// journaled session: a journal could not replay them.
type Journal interface {
	Commit(ctx context.Context, c Commit) error
}

// Commit is what a session hands its journal for one batch: plain values,
// none of which a journal needs to change or may hold the session by.
type Commit struct {
	// Batch is the batch being committed, in order: the events seq
	// Batch[0].Seq to Batch[len(Batch)-1].Seq, after the session's
	// Batch[0].Seq-1. It has at least one envelope.
	Batch []bus.Envelope
	// State is the session's state once the batch is committed: its
	// SessionID, ParentID and Tags name the session, its Seq is the
	// batch's last. A journal that keeps checkpoints keeps this
	// (MarshalSnapshot) once the batch is kept.
	State Snapshot
	// Registry is the session's serde registry: it names the events'
	// types, and the State's.
	Registry *serde.Registry
}

// commitTimeout bounds how long a session's commit may hold its lock
// waiting for the journal (Journal).
const commitTimeout = 30 * time.Second

// WithJournal gives the session a journal (New: none by default; Fork: the
// parent's, unless this option gives another or nil).
func WithJournal(j Journal) Option {
	return func(c *config) { c.journal, c.journalSet = j, true }
}

// errJournaled is the error of a write a journal could not replay.
func errJournaled(what string) error {
	return fmt.Errorf("session: %s writes no events, so a journaled session cannot take it (its journal could not replay it); dispatch events instead", what)
}

// commit hands batch, which leads to next, to the session's journal, if
// it has one, under a deadline (commitTimeout).
func (s *Session) commit(ctx context.Context, batch []bus.Envelope, next *state) error {
	if s.journal == nil || len(batch) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, commitTimeout)
	defer cancel()
	// The journal may keep the batch: it gets a copy, as Dispatch's
	// envelopes do not outlive it.
	c := Commit{Batch: slices.Clone(batch), State: s.snapshotOf(next), Registry: s.reg}
	if err := s.journal.Commit(ctx, c); err != nil {
		return &JournalError{Session: s.id, First: batch[0].Seq, Last: batch[len(batch)-1].Seq, Err: err}
	}
	return nil
}

// JournalError says that a session's journal refused a batch, so nothing
// of it was committed: what keeps the log failed (a damaged or full
// store, another writer), not the events. Match it with errors.As.
type JournalError struct {
	// Session is the session's id.
	Session string
	// First and Last are the seqs of the batch's first and last events.
	First, Last uint64
	// Err is the journal's error.
	Err error
}

// Error returns "session: the journal refused seq FIRST to LAST of
// session ID, so nothing was committed: CAUSE".
func (e *JournalError) Error() string {
	return fmt.Sprintf("session: the journal refused seq %d to %d of session %s, so nothing was committed: %v", e.First, e.Last, e.Session, e.Err)
}

// Unwrap returns the journal's error.
func (e *JournalError) Unwrap() error { return e.Err }

// Seq returns the seq of the last event the snapshot's state committed: 0
// for none. A fork continues from its parent's.
func (sn Snapshot) Seq() uint64 { return sn.state().seq }

// Restore rebuilds a session from a log kept elsewhere — a store's: from
// is its state at seq (the empty Snapshot{} and 0 to start from nothing),
// then each batch of log is applied in order, as it was committed — the
// same Seq and Time, through the reducers of sets — and nothing is
// published. The sets are installed first, with their Seed left out (the
// log holds what seeding wrote), and count as installed from then on. The
// session gets id and parentID (which names, not links: the parent need
// not be open), and opts (a journal, a bus, a registry that knows the
// log's types…). A batch that does not follow the one before it, or that
// a reducer refuses, is an error naming its seq.
func Restore(ctx context.Context, id, parentID string, from Snapshot, seq uint64, sets []Reducers, log iter.Seq2[[]bus.Envelope, error], opts ...Option) (*Session, error) {
	if parentID == id && id != "" {
		return nil, fmt.Errorf("session: session %q cannot be its own parent", id)
	}
	var c config
	for _, o := range opts {
		o(&c)
	}
	journal, journalSet := c.journal, c.journalSet
	s, err := New(append(opts, WithID(id), WithSnapshot(from), WithJournal(nil))...)
	if err != nil {
		return nil, err
	}
	s.parentID = parentID
	st := s.state.Load()
	st.seq = seq
	bare := make([]Reducers, len(sets))
	for i, set := range sets {
		set.Seed = nil
		bare[i] = set
	}
	if err := s.Install(ctx, bare...); err != nil {
		return nil, err
	}
	for batch, err := range log {
		if err != nil {
			return nil, err
		}
		if len(batch) == 0 {
			continue
		}
		_, err := s.write(ctx, func(cur *state) (*state, error) {
			if batch[0].Seq != cur.seq+1 {
				return nil, fmt.Errorf("session: restoring %s: a batch starts at seq %d, after seq %d", id, batch[0].Seq, cur.seq)
			}
			for i := range batch {
				batch[i].SessionID, batch[i].ParentSessionID = id, parentID
				if i > 0 && batch[i].Seq != batch[i-1].Seq+1 {
					return nil, fmt.Errorf("session: restoring %s: the batch at seq %d is not numbered in order", id, batch[0].Seq)
				}
			}
			next, err := cur.apply(batch)
			if err != nil {
				return nil, fmt.Errorf("session: restoring %s: the batch at seq %d: %w", id, batch[0].Seq, err)
			}
			return next, nil
		})
		if err != nil {
			_ = s.Close()
			return nil, err
		}
	}
	if journalSet {
		s.journal = journal
	}
	return s, nil
}
