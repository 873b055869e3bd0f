package store

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
)

// checkHeader says what is wrong with a header Create was given.
func checkHeader(h Header) error {
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
func checkBatch(id string, b Batch) error {
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
	return fmt.Errorf("%w: session %s ends at seq %d, and the batch starts at %d", ErrConflict, id, last, seq)
}

func notABoundary(id string, seq uint64) error {
	return fmt.Errorf("store: no batch of session %s ends at seq %d; a checkpoint goes where one does", id, seq)
}

func cmpSeq(a, b uint64) int { return cmp.Compare(a, b) }

// cloneBatch copies b's events, so that neither side's later changes reach
// the other.
func cloneBatch(b Batch) Batch {
	events := make([]Event, len(b.Events))
	for i, e := range b.Events {
		events[i] = Event{Type: e.Type, Data: slices.Clone(e.Data)}
	}
	b.Events = events
	return b
}

// matches reports whether q selects h.
func (q Query) matches(h Header) bool {
	if q.Parent != "" && h.Parent != q.Parent {
		return false
	}
	if !q.UpdatedBefore.IsZero() && !h.Updated.Before(q.UpdatedBefore) {
		return false
	}
	for k, v := range q.Tags {
		if got, ok := h.Tags[k]; !ok || got != v {
			return false
		}
	}
	return true
}

// sortHeaders orders hs most recently updated first, then by id.
func sortHeaders(hs []Header) {
	slices.SortFunc(hs, func(a, b Header) int {
		if c := b.Updated.Compare(a.Updated); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
}

// DeleteTree deletes a session and every session forked from it, however
// deep, the deepest first.
func DeleteTree(ctx context.Context, st Store, id string) error {
	if _, err := st.Header(ctx, id); err != nil {
		return err
	}
	children, err := st.List(ctx, Query{Parent: id})
	if err != nil {
		return err
	}
	for _, c := range children {
		if err := DeleteTree(ctx, st, c.ID); err != nil {
			return err
		}
	}
	return st.Delete(ctx, id)
}
