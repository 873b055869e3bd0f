package postgres

import (
	"errors"
	"fmt"

	"github.com/offshoot-dev/offshoot/store"
)

// The checks and errors below are store.Memory's, word for word: a
// backend refuses what the reference refuses, and says so the same way.

// checkHeader says what is wrong with a header Create was given.
func checkHeader(h store.Header) error {
	switch {
	case h.ID == "":
		return errors.New("store: a session needs an id")
	case h.Parent == h.ID:
		return fmt.Errorf("store: session %s cannot be its own parent", h.ID)
	case h.Parent == "" && h.ForkSeq != 0:
		return fmt.Errorf("store: session %s has a fork seq (%d) but no parent", h.ID, h.ForkSeq)
	}
	return nil
}

// checkBatch says what is wrong with a batch Append was given.
func checkBatch(id string, b store.Batch) error {
	switch {
	case b.Seq == 0:
		return fmt.Errorf("store: a batch of session %s has seq 0; seqs start at 1", id)
	case len(b.Events) == 0:
		return fmt.Errorf("store: a batch of session %s (seq %d) has no events", id, b.Seq)
	}
	for i, e := range b.Events {
		if e.Type == "" {
			return fmt.Errorf("store: event %d of the batch at seq %d of session %s has no type name", i, b.Seq, id)
		}
	}
	return nil
}

func conflict(id string, last, seq uint64) error {
	return fmt.Errorf("%w: session %s ends at seq %d, and the batch starts at %d", store.ErrConflict, id, last, seq)
}

func notABoundary(id string, seq uint64) error {
	return fmt.Errorf("store: no batch of session %s ends at seq %d; a checkpoint goes where one does", id, seq)
}
