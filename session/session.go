package session

import (
	"errors"
	"fmt"
	"maps"
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	"github.com/benbjohnson/immutable"
	"github.com/offshoot-dev/offshoot/internal/randid"

	"github.com/offshoot-dev/offshoot/bus"
	"github.com/offshoot-dev/offshoot/serde"
)

// SchemaVersion is the version of the snapshot schema this package writes
// and reads.
const SchemaVersion = "1"

// ErrClosed is returned by every write to a session after Close.
var ErrClosed = errors.New("session: the session is closed; fork or create a new one")

// Session holds an agent's whole state: an immutable value — the reducer
// table and a persistent slice per type — that every write replaces whole.
// Reads load the current value (one atomic load, never blocked); writes are
// ordered per session. Create one with New, derive children with Fork, and
// Close them when done.
type Session struct {
	id        string
	parentID  string
	parent    *Session
	createdAt time.Time
	tags      map[string]string // never mutated after New
	bus       *bus.Bus
	reg       *serde.Registry
	newID     func() string
	journal   Journal // nil for none

	state  atomic.Pointer[state]
	mu     chan struct{} // the write lock (lock, unlock): held by a write while it computes and commits
	closed atomic.Bool

	children children
	childKey int // this session's key in its parent's children
}

// Option configures New and Fork.
type Option func(*config)

type config struct {
	bus      *bus.Bus
	reg      *serde.Registry
	newID    func() string
	id       string
	tags     map[string]string
	tagsSet  bool
	snapshot *Snapshot
	parent   *Session
	// journal is WithJournal's; journalSet says that it was given.
	journal    Journal
	journalSet bool
}

// WithBus puts the session on b (New: a new bus by default; Fork: the
// parent's bus by default).
func WithBus(b *bus.Bus) Option { return func(c *config) { c.bus = b } }

// WithRegistry sets the serde registry in which the session records the
// types it sees (serde.DefaultRegistry by default; forks inherit it). A fork
// given a registry of its own gets the names of every type it inherits, so
// it can encode and decode its own snapshots.
func WithRegistry(reg *serde.Registry) Option { return func(c *config) { c.reg = reg } }

// WithIDGenerator sets how session ids are made (random UUIDs by default;
// forks inherit it). Inject a counter for deterministic tests.
func WithIDGenerator(gen func() string) Option { return func(c *config) { c.newID = gen } }

// WithID gives the session a fixed id instead of a generated one.
func WithID(id string) Option { return func(c *config) { c.id = id } }

// WithTags attaches string tags to the session (copied). A fork inherits
// its parent's tags unless it is given its own.
func WithTags(tags map[string]string) Option {
	return func(c *config) { c.tags, c.tagsSet = maps.Clone(tags), true }
}

// WithSnapshot starts the session from snap: New rolls the new session back
// to it, and Fork forks from it instead of from the parent's current state.
func WithSnapshot(snap Snapshot) Option { return func(c *config) { c.snapshot = &snap } }

// Fresh makes Fork start the child empty: the parent's reducer table, none
// of its state.
func Fresh() Option { return WithSnapshot(Snapshot{}) }

// withParent makes the new session a child of parent: Fork's option.
func withParent(parent *Session) Option { return func(c *config) { c.parent = parent } }

// New creates a root session (Fork creates children). Observers tell
// sessions apart by id, so give sessions that share a bus distinct ids
// (generated ids are).
func New(opts ...Option) (*Session, error) {
	var c config
	for _, o := range opts {
		o(&c)
	}
	p := c.parent
	if p != nil {
		if p.closed.Load() {
			return nil, fmt.Errorf("session: cannot fork closed session %q: %w", p.id, ErrClosed)
		}
		if c.bus == nil {
			c.bus = p.bus
		}
		if c.newID == nil {
			c.newID = p.newID
		}
		if !c.tagsSet {
			c.tags = p.tags
		}
		if !c.journalSet {
			c.journal = p.journal
		}
	}
	if c.bus == nil {
		c.bus = bus.New()
	}
	if c.newID == nil {
		c.newID = randid.New
	}
	if c.id == "" {
		c.id = c.newID()
	}
	if err := checkID(c.id); err != nil {
		return nil, fmt.Errorf("session: invalid session id: %w", err)
	}
	s := &Session{
		id:        c.id,
		createdAt: c.bus.Now().UTC(),
		tags:      c.tags,
		bus:       c.bus,
		reg:       c.reg,
		newID:     c.newID,
		journal:   c.journal,
		mu:        make(chan struct{}, 1),
	}
	st := emptyState
	if p != nil {
		if p.id == s.id {
			return nil, fmt.Errorf("session: session %q cannot be its own parent", s.id)
		}
		s.parent, s.parentID = p, p.id
		cur := p.state.Load()
		src := cur
		if c.snapshot != nil {
			src = c.snapshot.state()
		}
		st = (&state{table: cur.table, layout: cur.layout, vecs: cur.vecs}).adopt(src)
		st.revision, st.seq = 0, src.seq
		if s.reg == nil {
			s.reg = p.reg
		} else if s.reg != p.reg {
			inheritNames(s.reg, p.reg, st)
		}
	} else if c.snapshot != nil {
		st = emptyState.adopt(c.snapshot.state())
		st.revision = 0
	}
	if s.reg == nil {
		s.reg = serde.DefaultRegistry
	}
	s.state.Store(st)
	if p == nil && c.snapshot != nil {
		s.registerTypes(st.layout.types...)
	}
	if p != nil {
		s.childKey = p.children.add(s.id)
	}
	return s, nil
}

// Fork returns a new child session: a new id, this session as parent, the
// same bus, registry and tags unless options say otherwise, this session's
// reducer table, rolled back to a snapshot of this session (now, or
// WithSnapshot's). It is O(1) in the number of items. From then on the two
// never see each other's dispatches. It fails when the child would have
// its parent's id.
func (s *Session) Fork(opts ...Option) (*Session, error) {
	return New(append([]Option{withParent(s)}, opts...)...)
}

// ID returns the session's id.
func (s *Session) ID() string { return s.id }

// ParentID returns the parent's id, "" for a root session.
func (s *Session) ParentID() string { return s.parentID }

// CreatedAt returns when the session was created, in UTC, on the bus clock.
func (s *Session) CreatedAt() time.Time { return s.createdAt }

// Tags returns a copy of the session's tags.
func (s *Session) Tags() map[string]string { return maps.Clone(s.tags) }

// Bus returns the bus the session publishes on.
func (s *Session) Bus() *bus.Bus { return s.bus }

// Registry returns the serde registry the session records its types in.
func (s *Session) Registry() *serde.Registry { return s.reg }

// NewID returns a new id from the session's id generator (WithIDGenerator):
// for naming things that live in the session, such as the runner's
// evaluations, deterministically in tests.
func (s *Session) NewID() string { return s.newID() }

// Revision counts the state changes applied to the session; each applied
// dispatch bumps it by one, so revisions give the applied order.
func (s *Session) Revision() uint64 { return s.state.Load().revision }

// ChildIDs returns the ids of the session's live (not closed) children in
// creation order.
func (s *Session) ChildIDs() []string {
	return childIDs(s.children.m.Load())
}

// Closed reports whether Close has been called.
func (s *Session) Closed() bool { return s.closed.Load() }

// Close removes the session from its parent's live children; later writes
// return ErrClosed. It is idempotent, takes no lock
// and waits for nothing, so a reducer or an observer may call it. After
// Close nothing in offshoot keeps the session alive, so a discarded child is
// garbage-collected. Its own children stay usable.
func (s *Session) Close() error {
	if !s.closed.CompareAndSwap(false, true) {
		return nil
	}
	if p := s.parent; p != nil {
		p.children.remove(s.childKey)
	}
	return nil
}

// registerTypes records types in the session's serde registry. A name
// collision is not fatal here: MarshalSnapshot reports it.
func (s *Session) registerTypes(ts ...reflect.Type) {
	for _, t := range ts {
		_, _ = s.reg.Ensure(t)
	}
}

// inheritNames gives reg the names parent has for the types of st (its
// reducers' and its slices'), so that a fork with a registry of its own can
// encode and decode what it inherited. A name reg already gave explicitly is
// kept.
func inheritNames(reg, parent *serde.Registry, st *state) {
	name := func(t reflect.Type) {
		if n := parent.Name(t); n != serde.DefaultName(t) {
			if reg.RegisterType(t, n) == nil {
				return
			}
		}
		_, _ = reg.Ensure(t)
	}
	for et, list := range st.table.byEvent {
		name(et)
		for _, e := range list {
			name(e.slice)
		}
	}
	for _, t := range st.layout.types {
		name(t)
	}
}

// children is a session's set of live children in creation order: an
// immutable sorted map replaced whole by each change, so reading it (or
// keeping it in a snapshot) takes no lock, and adding or removing a child is
// O(log n). The mutex orders writers; it is held only for the update.
type children struct {
	mu   sync.Mutex
	next int
	m    atomic.Pointer[immutable.SortedMap[int, string]]
}

// add records a child and returns its key.
func (c *children) add(id string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.next++
	m := c.m.Load()
	if m == nil {
		m = immutable.NewSortedMap[int, string](nil)
	}
	c.m.Store(m.Set(c.next, id))
	return c.next
}

func (c *children) remove(key int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if m := c.m.Load(); m != nil {
		c.m.Store(m.Delete(key))
	}
}

// childIDs returns the ids in m, in creation order.
func childIDs(m *immutable.SortedMap[int, string]) []string {
	if m == nil {
		return []string{}
	}
	out := make([]string, 0, m.Len())
	for it := m.Iterator(); !it.Done(); {
		_, id, _ := it.Next()
		out = append(out, id)
	}
	return out
}
