// Package store keeps sessions durably: a session is a log of committed
// batches (one per Dispatch that committed) folded by reducers, and a
// store holds exactly that log, with checkpoints that bound how much of it
// a reader replays. A forked session stores its header and its own
// batches only; reading it reads its parent's log up to the fork.
//
// Store is the interface a backend implements — SQLite (store/sqlite), the
// embedded default; PostgreSQL (store/postgres), for processes that share
// sessions; an in-memory one (NewMemory) — and storetest.Run is the
// conformance suite every backend, a third party's included, passes. As
// with database/sql/driver, this package is all a backend needs: the
// interface, its errors (ErrConflict…), its limits (MaxIDBytes,
// MaxTagsBytes) and the checks every store makes (CheckHeader,
// CheckBatch); it imports no other package of this module. Package
// store/journal writes sessions to a store as they commit and opens them
// again; Fork starts a new session from a stored one at a past seq.
package store

import (
	"context"
	"encoding/json"
	"iter"
	"time"
)

// Header is what a store keeps of a session besides its log.
type Header struct {
	// ID is the session's id: at most MaxIDBytes (so is Parent).
	ID string `json:"id"`
	// Parent is the id of the session it was forked from ("" for none),
	// and ForkSeq the parent's seq at the fork: the session's log is the
	// parent's up to ForkSeq, then its own batches, from ForkSeq+1.
	Parent  string `json:"parent,omitempty"`
	ForkSeq uint64 `json:"fork_seq,omitempty"`
	// Tags are the program's labels of the session (a user, a project):
	// at most MaxTagsBytes as JSON. Create refuses a longer id or tags, and a
	// stored one is damage a store reports rather than reads.
	Tags map[string]string `json:"tags,omitempty"`
	// Created is when the header was stored; Updated when the last batch
	// was (Created while there is none). Both are the store's clock.
	Created time.Time `json:"created"`
	Updated time.Time `json:"updated"`
	// Seq is the seq of the last event the session's log holds: its last
	// batch's, else ForkSeq. Stores fill it in; Create ignores it.
	Seq uint64 `json:"seq"`
}

// Batch is one committed dispatch: its events, in order, numbered from Seq.
type Batch struct {
	// Seq is the seq of the first event; the batch holds the events Seq
	// to Seq+len(Events)-1.
	Seq uint64 `json:"seq"`
	// Time is when the session committed it.
	Time time.Time `json:"time"`
	// Events are the batch's events, each its type's registered name and
	// its JSON, as in snapshot JSON. A batch has at least one.
	Events []Event `json:"events"`
}

// Last is the seq of the batch's last event.
func (b Batch) Last() uint64 { return b.Seq + uint64(len(b.Events)) - 1 }

// Event is one event of a batch.
type Event struct {
	Type string          `json:"type"`
	Data json.RawMessage `json:"data"`
}

// Checkpoint is a session's whole state at a seq, as snapshot JSON
// (session.MarshalSnapshot): a reader starts from the latest one and
// replays only the batches after it.
type Checkpoint struct {
	Seq   uint64          `json:"seq"`
	State json.RawMessage `json:"state"`
}

// Query selects sessions for List. Zero fields select everything.
type Query struct {
	// Parent, when set, keeps the sessions forked from that one.
	Parent string
	// Tags keeps the sessions that carry every one of these tags.
	Tags map[string]string
	// UpdatedBefore, when not zero, keeps the sessions last updated
	// before it (for pruning).
	UpdatedBefore time.Time
	// IDPrefix, when set, keeps the sessions whose id starts with it
	// (to find a session by the start of its id).
	IDPrefix string
	// Roots keeps the sessions not forked from another.
	Roots bool
	// Limit bounds how many are returned (0: no bound).
	Limit int
}

// Store keeps sessions' headers, logs and checkpoints. Implementations are
// safe for concurrent use, and hold to what storetest.Run checks: a batch
// is stored whole or not at all; Append refuses a batch that does not
// follow the stored log (ErrConflict) and writes nothing of it; what
// Batches yields is what was appended, in order, byte for byte; a damaged
// row is an error naming the session and the seq, never a shorter history.
type Store interface {
	// Create stores a new session's header: ErrExists when the id is
	// taken, ErrNotFound when its Parent is not stored.
	Create(ctx context.Context, h Header) error
	// Header returns a session's header (ErrNotFound).
	Header(ctx context.Context, id string) (Header, error)
	// Append stores a batch at the end of a session's log: its Seq must
	// be the log's last seq plus one (ErrConflict otherwise, nothing
	// written). When Append returns nil the batch survives the
	// process being killed; whether it survives a power loss is the
	// backend's to say, and its setting's (store/sqlite: with
	// _synchronous=FULL; store/postgres: by default).
	Append(ctx context.Context, id string, b Batch) error
	// Batches yields the session's own batches whose events are after
	// after and up to upTo (0: no bound), in order. A batch that spans
	// upTo is not yielded. An error ends the sequence. A batch yielded is
	// the caller's: it stays as it is while the sequence goes on.
	Batches(ctx context.Context, id string, after, upTo uint64) iter.Seq2[Batch, error]
	// PutCheckpoint stores a checkpoint of the session (replacing one at
	// the same seq) and drops the session's checkpoints at earlier seqs:
	// a store keeps the latest, so a session's checkpoints take the size
	// of its state once, not once per checkpoint. Its Seq must be the
	// last seq of one of the session's batches, or its ForkSeq.
	PutCheckpoint(ctx context.Context, id string, c Checkpoint) error
	// Checkpoint returns the session's latest checkpoint at or below upTo
	// (0: no bound); ok is false when it has none.
	Checkpoint(ctx context.Context, id string, upTo uint64) (c Checkpoint, ok bool, err error)
	// SetTags replaces a session's tags (ErrNotFound), leaving the rest
	// of its header as it is: a program keeps labels that change as the
	// session goes on there (its turns so far). The tags are bounded as
	// Create bounds them.
	SetTags(ctx context.Context, id string, tags map[string]string) error
	// List returns the headers q selects, most recently updated first.
	List(ctx context.Context, q Query) ([]Header, error)
	// Delete removes a session: its header, batches and checkpoints. A
	// session that others were forked from cannot go while they are
	// stored (use DeleteTree).
	Delete(ctx context.Context, id string) error
	// Close releases the store's resources.
	Close() error
}
