// Package rules holds what every store of this module refuses, and how it
// says so: store.Memory, store/sqlite and store/postgres refuse the same
// things with the same words, and return the same errors.
package rules

import (
	"encoding/json"
	"errors"
	"fmt"
)

// The errors of package store (store re-exports them).
var (
	ErrNotFound    = errors.New("store: no such session")
	ErrExists      = errors.New("store: the session exists already")
	ErrConflict    = errors.New("store: the batch does not follow the stored log")
	ErrHasChildren = errors.New("store: sessions were forked from this one; delete them first (DeleteTree)")
	ErrInvalid     = errors.New("store: the session's header cannot be stored")
)

// invalid is an error of Header: its message says what is wrong, and it
// matches ErrInvalid.
type invalid struct{ error }

func (e invalid) Is(target error) bool { return target == ErrInvalid }
func (e invalid) Unwrap() error        { return e.error }

// The largest id (a session's, its parent's) and tags (as JSON) a store
// keeps: Create refuses larger ones, and a stored one larger is damage,
// so that a hostile file cannot make a reader hold it whole.
const (
	MaxIDBytes   = 4096
	MaxTagsBytes = 64 << 10
)

// Header says what is wrong with a header Create was given: its id, its
// parent's, its fork seq and its tags. Its errors match ErrInvalid.
func Header(id, parent string, forkSeq uint64, tags map[string]string) error {
	if err := header(id, parent, forkSeq, tags); err != nil {
		return invalid{err}
	}
	return nil
}

func header(id, parent string, forkSeq uint64, tags map[string]string) error {
	switch {
	case id == "":
		return errors.New("store: a session needs an id")
	case len(id) > MaxIDBytes:
		return fmt.Errorf("store: the id of a session takes %d bytes, more than the %d an id may", len(id), MaxIDBytes)
	case len(parent) > MaxIDBytes:
		return fmt.Errorf("store: the id of the parent of session %s takes %d bytes, more than the %d an id may", id, len(parent), MaxIDBytes)
	case parent == id:
		return fmt.Errorf("store: session %s cannot be its own parent", id)
	case parent == "" && forkSeq != 0:
		return fmt.Errorf("store: session %s has a fork seq (%d) but no parent", id, forkSeq)
	}
	if len(tags) > 0 {
		b, err := json.Marshal(tags)
		if err != nil {
			return fmt.Errorf("store: the tags of session %s: %w", id, err)
		}
		if len(b) > MaxTagsBytes {
			return fmt.Errorf("store: the tags of session %s take %d bytes as JSON, more than the %d a session's tags may", id, len(b), MaxTagsBytes)
		}
	}
	return nil
}

// Batch says what is wrong with a batch of session id that Append was
// given: its first seq, its events' count and their type names (typeOf).
func Batch(id string, seq uint64, events int, typeOf func(int) string) error {
	switch {
	case seq == 0:
		return fmt.Errorf("store: a batch of session %s has seq 0; seqs start at 1", id)
	case events == 0:
		return fmt.Errorf("store: a batch of session %s (seq %d) has no events", id, seq)
	}
	for i := range events {
		if typeOf(i) == "" {
			return fmt.Errorf("store: event %d of the batch at seq %d of session %s has no type name", i, seq, id)
		}
	}
	return nil
}

// Conflict is the error of a batch at seq that does not follow the
// session's log, which ends at last.
func Conflict(id string, last, seq uint64) error {
	return fmt.Errorf("%w: session %s ends at seq %d, and the batch starts at %d", ErrConflict, id, last, seq)
}

// NotABoundary is the error of a checkpoint at a seq no batch ends at.
func NotABoundary(id string, seq uint64) error {
	return fmt.Errorf("store: no batch of session %s ends at seq %d; a checkpoint goes where one does", id, seq)
}
