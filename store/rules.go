package store

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Errors a Store returns, matched with errors.Is. A backend wraps them
// with words of its own (fmt.Errorf("%w: …", ErrConflict)); callers and
// storetest match the error, never the words.
var (
	// ErrNotFound: the store holds no session of that id.
	ErrNotFound = errors.New("store: no such session")
	// ErrExists: a session of that id is stored already.
	ErrExists = errors.New("store: the session exists already")
	// ErrConflict: the batch does not follow the stored log (another
	// writer appended first, or the writer's view is stale); nothing of
	// it was written. Reload or fork, and go on from there.
	ErrConflict = errors.New("store: the batch does not follow the stored log")
	// ErrInvalid: what Create, SetTags or Append was given cannot be
	// stored (no id, an id or tags over the limits, a session its own
	// parent, a batch without events…); the error says which, and nothing
	// was stored. CheckHeader and CheckBatch return such errors.
	ErrInvalid = errors.New("store: the session's header cannot be stored")
	// ErrHasChildren: Delete of a session others were forked from.
	ErrHasChildren = errors.New("store: sessions were forked from this one; delete them first (DeleteTree)")
)

// The largest id (a session's, its parent's) and tags (as JSON) a store
// keeps: Create and SetTags refuse larger ones (ErrInvalid), and a stored
// one larger is damage a store reports rather than reads, so that a
// hostile file cannot make a reader hold it whole.
const (
	MaxIDBytes   = 4096
	MaxTagsBytes = 64 << 10
)

// invalid is an error that says what is wrong and matches ErrInvalid.
type invalid struct{ error }

func (e invalid) Is(target error) bool { return target == ErrInvalid }
func (e invalid) Unwrap() error        { return e.error }

// CheckHeader says what is wrong with a header to store — no id, an id or
// parent over MaxIDBytes, tags over MaxTagsBytes, a session its own
// parent, a fork seq without a parent — or returns nil: the checks every
// store makes before Create (and, with only ID and Tags set, SetTags).
// Its errors match ErrInvalid.
func CheckHeader(h Header) error {
	if err := headerProblem(h); err != nil {
		return invalid{err}
	}
	return nil
}

func headerProblem(h Header) error {
	switch id := h.ID; {
	case id == "":
		return errors.New("store: a session needs an id")
	case len(id) > MaxIDBytes:
		return fmt.Errorf("store: the id of a session takes %d bytes, more than the %d an id may", len(id), MaxIDBytes)
	case len(h.Parent) > MaxIDBytes:
		return fmt.Errorf("store: the id of the parent of session %s takes %d bytes, more than the %d an id may", id, len(h.Parent), MaxIDBytes)
	case h.Parent == id:
		return fmt.Errorf("store: session %s cannot be its own parent", id)
	case h.Parent == "" && h.ForkSeq != 0:
		return fmt.Errorf("store: session %s has a fork seq (%d) but no parent", id, h.ForkSeq)
	}
	if len(h.Tags) > 0 {
		b, err := json.Marshal(h.Tags)
		if err != nil {
			return fmt.Errorf("store: the tags of session %s: %w", h.ID, err)
		}
		if len(b) > MaxTagsBytes {
			return fmt.Errorf("store: the tags of session %s take %d bytes as JSON, more than the %d a session's tags may", h.ID, len(b), MaxTagsBytes)
		}
	}
	return nil
}

// CheckBatch says what is wrong with a batch of session id to append — seq
// 0, no events, an event without a type name — or returns nil: the checks
// every store makes before Append. Its errors match ErrInvalid.
func CheckBatch(id string, b Batch) error {
	var err error
	switch {
	case b.Seq == 0:
		err = fmt.Errorf("store: a batch of session %s has seq 0; seqs start at 1", id)
	case len(b.Events) == 0:
		err = fmt.Errorf("store: a batch of session %s (seq %d) has no events", id, b.Seq)
	}
	for i := range b.Events {
		if err == nil && b.Events[i].Type == "" {
			err = fmt.Errorf("store: event %d of the batch at seq %d of session %s has no type name", i, b.Seq, id)
		}
	}
	if err != nil {
		return invalid{err}
	}
	return nil
}

// conflict is the error of a batch at seq that does not follow the
// session's log, which ends at last.
func conflict(id string, last, seq uint64) error {
	return fmt.Errorf("%w: session %s ends at seq %d, and the batch starts at %d", ErrConflict, id, last, seq)
}

// notABoundary is the error of a checkpoint at a seq no batch ends at.
func notABoundary(id string, seq uint64) error {
	return fmt.Errorf("store: no batch of session %s ends at seq %d; a checkpoint goes where one does", id, seq)
}
