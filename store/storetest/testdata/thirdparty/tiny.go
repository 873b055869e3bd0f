// Package thirdparty is a store.Store written as a stranger would write
// one: in a module of its own, from package store alone — its types, its
// errors, its limits and its checks — and tested with storetest.Run.
package thirdparty

import (
	"context"
	"fmt"
	"iter"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/offshoot-dev/offshoot/store"
)

// Tiny keeps sessions in a map under one lock, the simplest way there is.
type Tiny struct {
	mu       sync.Mutex
	sessions map[string]*session
}

type session struct {
	header     store.Header
	batches    []store.Batch
	checkpoint *store.Checkpoint // the latest
}

// New returns an empty store.
func New() *Tiny { return &Tiny{sessions: map[string]*session{}} }

var _ store.Store = (*Tiny)(nil)

func notFound(id string) error { return fmt.Errorf("tiny: %w: %q", store.ErrNotFound, id) }

// Create implements store.Store.
func (t *Tiny) Create(ctx context.Context, h store.Header) error {
	if err := store.CheckHeader(h); err != nil {
		return err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, ok := t.sessions[h.ID]; ok {
		return fmt.Errorf("tiny: %w: %q", store.ErrExists, h.ID)
	}
	if h.Parent != "" {
		p, ok := t.sessions[h.Parent]
		if !ok {
			return notFound(h.Parent)
		}
		if h.ForkSeq > p.header.Seq {
			return fmt.Errorf("tiny: %q forks %q past its end", h.ID, h.Parent)
		}
	}
	h.Tags = maps.Clone(h.Tags)
	h.Created = time.Now()
	h.Updated, h.Seq = h.Created, h.ForkSeq
	t.sessions[h.ID] = &session{header: h}
	return nil
}

// Header implements store.Store.
func (t *Tiny) Header(ctx context.Context, id string) (store.Header, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s, ok := t.sessions[id]
	if !ok {
		return store.Header{}, notFound(id)
	}
	h := s.header
	h.Tags = maps.Clone(h.Tags)
	return h, nil
}

func clone(b store.Batch) store.Batch {
	b.Events = slices.Clone(b.Events)
	for i := range b.Events {
		b.Events[i].Data = slices.Clone(b.Events[i].Data)
	}
	return b
}

// Append implements store.Store.
func (t *Tiny) Append(ctx context.Context, id string, b store.Batch) error {
	if err := store.CheckBatch(id, b); err != nil {
		return err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	s, ok := t.sessions[id]
	if !ok {
		return notFound(id)
	}
	if b.Seq != s.header.Seq+1 {
		return fmt.Errorf("tiny: %w: %q is at %d", store.ErrConflict, id, s.header.Seq)
	}
	s.batches = append(s.batches, clone(b))
	s.header.Seq, s.header.Updated = b.Last(), time.Now()
	return nil
}

// Batches implements store.Store.
func (t *Tiny) Batches(ctx context.Context, id string, after, upTo uint64) iter.Seq2[store.Batch, error] {
	return func(yield func(store.Batch, error) bool) {
		t.mu.Lock()
		s, ok := t.sessions[id]
		var batches []store.Batch
		if ok {
			batches = slices.Clone(s.batches)
		}
		t.mu.Unlock()
		if !ok {
			yield(store.Batch{}, notFound(id))
			return
		}
		for _, b := range batches {
			if b.Seq <= after {
				continue
			}
			if upTo > 0 && b.Last() > upTo {
				return
			}
			if !yield(clone(b), nil) {
				return
			}
		}
	}
}

// PutCheckpoint implements store.Store.
func (t *Tiny) PutCheckpoint(ctx context.Context, id string, c store.Checkpoint) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	s, ok := t.sessions[id]
	if !ok {
		return notFound(id)
	}
	ends := c.Seq == s.header.ForkSeq || slices.ContainsFunc(s.batches, func(b store.Batch) bool { return b.Last() == c.Seq })
	if !ends {
		return fmt.Errorf("tiny: no batch of %q ends at %d", id, c.Seq)
	}
	if s.checkpoint == nil || c.Seq >= s.checkpoint.Seq {
		c.State = slices.Clone(c.State)
		s.checkpoint = &c
	}
	return nil
}

// Checkpoint implements store.Store.
func (t *Tiny) Checkpoint(ctx context.Context, id string, upTo uint64) (store.Checkpoint, bool, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s, ok := t.sessions[id]
	if !ok {
		return store.Checkpoint{}, false, notFound(id)
	}
	if c := s.checkpoint; c != nil && (upTo == 0 || c.Seq <= upTo) {
		out := *c
		out.State = slices.Clone(c.State)
		return out, true, nil
	}
	return store.Checkpoint{}, false, nil
}

// SetTags implements store.Store.
func (t *Tiny) SetTags(ctx context.Context, id string, tags map[string]string) error {
	if err := store.CheckHeader(store.Header{ID: id, Tags: tags}); err != nil {
		return err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	s, ok := t.sessions[id]
	if !ok {
		return notFound(id)
	}
	s.header.Tags = maps.Clone(tags)
	return nil
}

// List implements store.Store.
func (t *Tiny) List(ctx context.Context, q store.Query) ([]store.Header, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []store.Header
	for _, s := range t.sessions {
		h := s.header
		switch {
		case q.Parent != "" && h.Parent != q.Parent,
			q.Roots && h.Parent != "",
			!strings.HasPrefix(h.ID, q.IDPrefix),
			!q.UpdatedBefore.IsZero() && !h.Updated.Before(q.UpdatedBefore):
			continue
		}
		keep := true
		for k, v := range q.Tags {
			if got, ok := h.Tags[k]; !ok || got != v {
				keep = false
			}
		}
		if keep {
			h.Tags = maps.Clone(h.Tags)
			out = append(out, h)
		}
	}
	slices.SortFunc(out, func(a, b store.Header) int {
		if c := b.Updated.Compare(a.Updated); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	if q.Limit > 0 && len(out) > q.Limit {
		out = out[:q.Limit]
	}
	return out, nil
}

// Delete implements store.Store.
func (t *Tiny) Delete(ctx context.Context, id string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, ok := t.sessions[id]; !ok {
		return notFound(id)
	}
	for _, s := range t.sessions {
		if s.header.Parent == id {
			return fmt.Errorf("tiny: %w: %q", store.ErrHasChildren, id)
		}
	}
	delete(t.sessions, id)
	return nil
}

// Close implements store.Store.
func (t *Tiny) Close() error { return nil }
