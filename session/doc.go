// Package session holds an agent's state: an immutable map from Go type to
// persistent slice, changed only by reducers folding dispatched events.
//
// The model is a small state machine over an event log, as in etcd's raft:
//
//   - Register a Reducer[E, S] for event type E and slice type S. Built-ins
//     cover the usual shapes (AppendAll, Append, ReplaceLatest, UpsertBy, …).
//   - Dispatch events. The session applies every reducer for each event's
//     exact Go type atomically (all events of a call or none) under its write
//     lock, then the bus's observers see them.
//   - Read with Get, All, Latest, Where and Len: one atomic load, never
//     blocked by writers.
//
// Seed, Clear and Reset set slices directly, without events, for tests and
// for programs that load state from elsewhere.
//
// Snapshot, Rollback and Fork are O(1) in the number of items: the slices
// are persistent vectors shared between versions, so a subagent can start
// from exactly its parent's state for the price of a pointer. Snapshots
// encode to versioned JSON with MarshalSnapshot and decode, validated, with
// UnmarshalSnapshot. Package sessiontest checks parity and isolation in
// your own tests.
package session
