package session

import (
	"errors"
	"fmt"
	"maps"
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/offshoot-dev/offshoot/bus"
	"github.com/offshoot-dev/offshoot/serde"
)

// SchemaVersion is the version of the snapshot schema this package writes
// and reads.
const SchemaVersion = "1"

var (
	// ErrClosed is returned by every write to a session after Close.
	ErrClosed = errors.New("session: the session is closed; fork or create a new one")
	// ErrReentrant is returned when a reducer dispatches (or otherwise
	// writes) to the session it is reducing, instead of a deadlock.
	// Reducers must be pure: return the new slice instead. (A reducer that
	// writes to another session that is busy reducing may get it too: the
	// check knows that the caller is a reducer, not whose.)
	ErrReentrant = errors.New("session: a reducer wrote to the session it is reducing; reducers must be pure and return the new slice instead")
)

// Session holds an agent's whole state: an immutable map from slice type to
// persistent slice, changed only by reducers applied to dispatched events.
// Reads are lock-free (one atomic load); writes are serialized per session.
// Create one with New, derive children with Fork, and Close them when done.
type Session struct {
	id        string
	parentID  string
	parent    *Session
	createdAt time.Time
	tags      map[string]string // never mutated after New
	bus       *bus.Bus
	reg       *serde.Registry
	newID     func() string
	detach    func()
	self      *childRef // this session's entry in its parent's children

	state atomic.Pointer[state]

	mu        sync.Mutex // serializes changes to table, children, closed and the state
	installMu sync.Mutex
	reducing  atomic.Bool
	table     *table
	children  children
	closed    atomic.Bool
}

// Option configures New and Fork.
type Option func(*config)

type config struct {
	bus      *bus.Bus
	reg      *serde.Registry
	newID    func() string
	id       string
	tags     map[string]string
	snapshot *Snapshot
	parent   *Session
}

// WithBus puts the session on b (New: a new bus by default; Fork: the
// parent's bus by default).
func WithBus(b *bus.Bus) Option { return func(c *config) { c.bus = b } }

// WithRegistry sets the serde registry in which the session records the
// types it sees (serde.DefaultRegistry by default; forks inherit it).
func WithRegistry(reg *serde.Registry) Option { return func(c *config) { c.reg = reg } }

// WithIDGenerator sets how session ids are made (random UUIDs by default;
// forks inherit it). Inject a counter for deterministic tests.
func WithIDGenerator(gen func() string) Option { return func(c *config) { c.newID = gen } }

// WithID gives the session a fixed id instead of a generated one.
func WithID(id string) Option { return func(c *config) { c.id = id } }

// WithTags attaches string tags to the session (copied).
func WithTags(tags map[string]string) Option {
	return func(c *config) { c.tags = maps.Clone(tags) }
}

// WithSnapshot starts the session from snap: New rolls the new session back
// to it, and Fork forks from it instead of from the parent's current state.
func WithSnapshot(snap Snapshot) Option { return func(c *config) { c.snapshot = &snap } }

// Fresh makes Fork start the child empty: the parent's reducer table, none
// of its state.
func Fresh() Option { return WithSnapshot(Snapshot{}) }

// WithParent makes the new session a child of parent, as Fork does.
func WithParent(parent *Session) Option { return func(c *config) { c.parent = parent } }

// New creates a root session (or, with WithParent, a child). It fails when
// the session would be its own parent or its id is already on the bus.
func New(opts ...Option) (*Session, error) {
	var c config
	for _, o := range opts {
		o(&c)
	}
	if c.parent != nil {
		if c.bus == nil {
			c.bus = c.parent.bus
		}
		if c.reg == nil {
			c.reg = c.parent.reg
		}
		if c.newID == nil {
			c.newID = c.parent.newID
		}
	}
	if c.bus == nil {
		c.bus = bus.New()
	}
	if c.reg == nil {
		c.reg = serde.DefaultRegistry
	}
	if c.newID == nil {
		c.newID = uuid.NewString
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
		table:     emptyTable,
	}
	s.state.Store(emptyState)
	if c.parent != nil {
		if c.parent.id == s.id {
			return nil, fmt.Errorf("session: session %q cannot be its own parent", s.id)
		}
		s.parent, s.parentID = c.parent, c.parent.id
		c.parent.mu.Lock()
		s.table = c.parent.table
		if c.parent.closed.Load() {
			c.parent.mu.Unlock()
			return nil, fmt.Errorf("session: cannot fork closed session %q: %w", c.parent.id, ErrClosed)
		}
		if c.snapshot == nil {
			snap := c.parent.Snapshot()
			c.snapshot = &snap
		}
		c.parent.mu.Unlock()
	}
	if c.snapshot != nil {
		s.adopt(*c.snapshot)
	}
	detach, err := c.bus.Attach(s.id, (*target)(s))
	if err != nil {
		return nil, fmt.Errorf("session: %w", err)
	}
	s.detach = detach
	if c.parent != nil {
		c.parent.mu.Lock()
		if c.parent.closed.Load() {
			c.parent.mu.Unlock()
			detach()
			return nil, fmt.Errorf("session: cannot fork closed session %q: %w", c.parent.id, ErrClosed)
		}
		s.self = c.parent.children.add(s.id)
		c.parent.mu.Unlock()
	}
	return s, nil
}

// Fork returns a new child session: a new id, this session as parent, the
// same bus and registry unless options say otherwise, a copy of the reducer
// table, rolled back to a snapshot of this session (now, or WithSnapshot's).
// It is O(1) in the number of items. From then on the two never see each
// other's dispatches.
func (s *Session) Fork(opts ...Option) (*Session, error) {
	return New(append([]Option{WithParent(s)}, opts...)...)
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

// Revision counts the state changes applied to the session; each applied
// dispatch bumps it by one, so revisions give the applied order.
func (s *Session) Revision() uint64 { return s.state.Load().revision }

// ChildIDs returns the ids of the session's live (not closed) children in
// creation order.
func (s *Session) ChildIDs() []string { return s.children.view().ids() }

// Closed reports whether Close has been called.
func (s *Session) Closed() bool { return s.closed.Load() }

// Close detaches the session from its bus and from its parent's live
// children; later writes return ErrClosed. It is idempotent. After Close
// nothing in offshoot keeps the session alive, so a discarded child is
// garbage-collected. Its own children stay usable.
func (s *Session) Close() error {
	if !s.closed.CompareAndSwap(false, true) {
		return nil
	}
	s.detach()
	if p := s.parent; p != nil {
		p.mu.Lock()
		p.children.remove(s.self)
		p.mu.Unlock()
	}
	return nil
}

// registerTypes records the types in the session's serde registry. A name
// collision is not fatal here: MarshalSnapshot reports it.
func (s *Session) registerTypes(ts ...reflect.Type) {
	for _, t := range ts {
		_, _ = s.reg.Ensure(t)
	}
}
