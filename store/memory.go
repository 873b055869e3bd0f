package store

import (
	"context"
	"fmt"
	"iter"
	"maps"
	"slices"
	"sync"
	"time"
)

// Memory is a Store in memory, for tests and for programs that want the
// store's behaviour without its durability. Its zero value is not usable:
// make one with NewMemory.
type Memory struct {
	mu       sync.Mutex
	sessions map[string]*memSession
	now      func() time.Time
}

type memSession struct {
	header      Header
	batches     []Batch
	checkpoints []Checkpoint // by seq, ascending
}

// NewMemory returns an empty in-memory store.
func NewMemory() *Memory { return &Memory{sessions: map[string]*memSession{}, now: time.Now} }

var _ Store = (*Memory)(nil)

// Create implements Store.
func (m *Memory) Create(ctx context.Context, h Header) error {
	if err := CheckHeader(h); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.sessions[h.ID]; ok {
		return fmt.Errorf("%w: %s", ErrExists, h.ID)
	}
	if h.Parent != "" {
		p, ok := m.sessions[h.Parent]
		if !ok {
			return fmt.Errorf("%w: %s, the parent of %s", ErrNotFound, h.Parent, h.ID)
		}
		if h.ForkSeq > p.header.Seq {
			return fmt.Errorf("store: %s forks %s at seq %d, past its last event (%d)", h.ID, h.Parent, h.ForkSeq, p.header.Seq)
		}
	}
	h.Tags = maps.Clone(h.Tags)
	h.Created = m.now()
	h.Updated, h.Seq = h.Created, h.ForkSeq
	m.sessions[h.ID] = &memSession{header: h}
	return nil
}

// Header implements Store.
func (m *Memory) Header(ctx context.Context, id string) (Header, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.sessions[id]
	if !ok {
		return Header{}, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	h := s.header
	h.Tags = maps.Clone(h.Tags)
	return h, nil
}

// Append implements Store.
func (m *Memory) Append(ctx context.Context, id string, b Batch) error {
	if err := CheckBatch(id, b); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	b = cloneBatch(b)
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.sessions[id]
	if !ok {
		return fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	if b.Seq != s.header.Seq+1 {
		return conflict(id, s.header.Seq, b.Seq)
	}
	s.batches = append(s.batches, b)
	s.header.Seq, s.header.Updated = b.Last(), m.now()
	return nil
}

// Batches implements Store.
func (m *Memory) Batches(ctx context.Context, id string, after, upTo uint64) iter.Seq2[Batch, error] {
	return func(yield func(Batch, error) bool) {
		m.mu.Lock()
		s, ok := m.sessions[id]
		var batches []Batch
		if ok {
			batches = s.batches // appends never change what is there
		}
		m.mu.Unlock()
		if !ok {
			yield(Batch{}, fmt.Errorf("%w: %s", ErrNotFound, id))
			return
		}
		i, _ := slices.BinarySearchFunc(batches, after+1, func(b Batch, seq uint64) int { return cmpSeq(b.Last(), seq) })
		for _, b := range batches[i:] {
			if upTo > 0 && b.Last() > upTo {
				return
			}
			if err := ctx.Err(); err != nil {
				yield(Batch{}, err)
				return
			}
			if b.Seq <= after {
				continue
			}
			if !yield(cloneBatch(b), nil) {
				return
			}
		}
	}
}

// PutCheckpoint implements Store.
func (m *Memory) PutCheckpoint(ctx context.Context, id string, c Checkpoint) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.sessions[id]
	if !ok {
		return fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	if !s.boundary(c.Seq) {
		return notABoundary(id, c.Seq)
	}
	c.State = slices.Clone(c.State)
	i, found := slices.BinarySearchFunc(s.checkpoints, c.Seq, func(c Checkpoint, seq uint64) int { return cmpSeq(c.Seq, seq) })
	if found {
		s.checkpoints[i] = c
	} else {
		s.checkpoints = slices.Insert(s.checkpoints, i, c)
	}
	s.checkpoints = s.checkpoints[i:] // the earlier ones go
	return nil
}

// boundary reports whether seq ends one of the session's batches, or is
// its fork seq.
func (s *memSession) boundary(seq uint64) bool {
	if seq == s.header.ForkSeq {
		return true
	}
	_, found := slices.BinarySearchFunc(s.batches, seq, func(b Batch, seq uint64) int { return cmpSeq(b.Last(), seq) })
	return found
}

// Checkpoint implements Store.
func (m *Memory) Checkpoint(ctx context.Context, id string, upTo uint64) (Checkpoint, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.sessions[id]
	if !ok {
		return Checkpoint{}, false, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	for i := len(s.checkpoints) - 1; i >= 0; i-- {
		if c := s.checkpoints[i]; upTo == 0 || c.Seq <= upTo {
			c.State = slices.Clone(c.State)
			return c, true, nil
		}
	}
	return Checkpoint{}, false, nil
}

// SetTags implements Store.
func (m *Memory) SetTags(ctx context.Context, id string, tags map[string]string) error {
	if err := CheckHeader(Header{ID: id, Tags: tags}); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.sessions[id]
	if !ok {
		return fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	s.header.Tags = maps.Clone(tags)
	return nil
}

// List implements Store.
func (m *Memory) List(ctx context.Context, q Query) ([]Header, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []Header
	for _, s := range m.sessions {
		if q.matches(s.header) {
			h := s.header
			h.Tags = maps.Clone(h.Tags)
			out = append(out, h)
		}
	}
	sortHeaders(out)
	if q.Limit > 0 && len(out) > q.Limit {
		out = out[:q.Limit]
	}
	return out, nil
}

// Delete implements Store.
func (m *Memory) Delete(ctx context.Context, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.sessions[id]; !ok {
		return fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	for _, s := range m.sessions {
		if s.header.Parent == id {
			return fmt.Errorf("%w (%s has %s)", ErrHasChildren, id, s.header.ID)
		}
	}
	delete(m.sessions, id)
	return nil
}

// Close implements Store; a Memory holds nothing to release.
func (m *Memory) Close() error { return nil }
