package store

import (
	"context"
	"fmt"
)

// Fork stores a new session, newID, that starts from stored session id as
// it was at seq at — "time travel": one header, nothing copied; open it
// to go on from there, the original untouched. at must end one of the
// log's batches (or be 0, or id's own fork seq).
func Fork(ctx context.Context, st Store, id string, at uint64, newID string) error {
	h, err := st.Header(ctx, id)
	if err != nil {
		return err
	}
	if at > h.Seq {
		return fmt.Errorf("store: session %s ends at seq %d; it cannot be forked at %d", id, h.Seq, at)
	}
	if at > h.ForkSeq && at < h.Seq {
		next, err := firstAfter(ctx, st, id, at)
		if err != nil {
			return err
		}
		if next != at+1 {
			return fmt.Errorf("store: seq %d of session %s is inside a batch (the next one starts at %d); fork where a batch ends", at, id, next)
		}
	}
	if at < h.ForkSeq {
		return fmt.Errorf("store: session %s starts at seq %d, where it was forked from %s; fork %s at %d instead", id, h.ForkSeq, h.Parent, h.Parent, at)
	}
	return st.Create(ctx, Header{ID: newID, Parent: id, ForkSeq: at, Tags: h.Tags})
}

// firstAfter returns the seq of the first of id's batches that begins
// after seq at.
func firstAfter(ctx context.Context, st Store, id string, at uint64) (uint64, error) {
	for b, err := range st.Batches(ctx, id, at, 0) {
		if err != nil {
			return 0, err
		}
		return b.Seq, nil
	}
	return 0, fmt.Errorf("store: session %s has no batch after seq %d", id, at)
}
