package session

import (
	"context"
	"fmt"
	"iter"

	"github.com/offshoot-dev/offshoot/bus"
)

// A Journal keeps what a session commits somewhere that outlives it — a
// store's log (package store). A session given one (WithJournal) hands it
// every batch it commits — a Dispatch's events, an Install's seed —
// before the commit takes effect: Commit runs under the session's lock,
// with the envelopes' Seq, Time and Payload set, and an error fails the
// write and leaves the session's state as it was, so memory never runs
// ahead of the journal. Forks inherit their parent's journal.
//
// Commit must not write to s (it would wait for s's lock). Writes that
// are not events — Seed, Clear, Reset — are refused on a journaled
// session: a journal could not replay them.
type Journal interface {
	Commit(ctx context.Context, s *Session, batch []bus.Envelope) error
}

// WithJournal gives the session a journal (New: none by default; Fork: the
// parent's, unless this option gives another or nil).
func WithJournal(j Journal) Option {
	return func(c *config) { c.journal, c.journalSet = j, true }
}

// errJournaled is the error of a write a journal could not replay.
func errJournaled(what string) error {
	return fmt.Errorf("session: %s writes no events, so a journaled session cannot take it (its journal could not replay it); dispatch events instead", what)
}

// commit hands batch to the session's journal, if it has one.
func (s *Session) commit(ctx context.Context, batch []bus.Envelope) error {
	if s.journal == nil || len(batch) == 0 {
		return nil
	}
	if err := s.journal.Commit(ctx, s, batch); err != nil {
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
		_, err := s.write(func(cur *state) (*state, error) {
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
