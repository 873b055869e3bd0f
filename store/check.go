package store

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
)

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
	if q.Parent != "" && h.Parent != q.Parent || q.Roots && h.Parent != "" || !strings.HasPrefix(h.ID, q.IDPrefix) {
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
// deep, the deepest first. It finds them all before it deletes any: a
// store whose forks loop back (a damaged one) is an error, and nothing
// is deleted.
func DeleteTree(ctx context.Context, st Store, id string) error {
	if _, err := st.Header(ctx, id); err != nil {
		return err
	}
	// Every session comes after its parent: deleting from the end
	// deletes the forks first.
	tree := []string{id}
	seen := map[string]bool{id: true}
	for i := 0; i < len(tree); i++ {
		children, err := st.List(ctx, Query{Parent: tree[i]})
		if err != nil {
			return err
		}
		for _, c := range children {
			if seen[c.ID] {
				return fmt.Errorf("store: the sessions forked from %s loop back to %s: the store is damaged; nothing was deleted", id, c.ID)
			}
			seen[c.ID] = true
			tree = append(tree, c.ID)
		}
	}
	for _, s := range slices.Backward(tree) {
		if err := st.Delete(ctx, s); err != nil {
			return err
		}
	}
	return nil
}
