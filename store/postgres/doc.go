// Package postgres is a store.Store in a PostgreSQL database, for sessions
// that several processes or machines share: any of them may open, continue
// or fork a session another one wrote. For one process, store/sqlite needs
// no server.
//
// Open connects (through a pool of pgx connections), creates the store's
// schema ("offshoot" unless the DSN's offshoot_schema names another) and its tables
// when they are missing, and refuses a schema that a newer version of this
// package wrote. Its tables:
//
//   - sessions: one row a session (id, parent, fork seq, tags as jsonb,
//     created, updated, the last seq of its log);
//   - batches: one row a committed batch (session, seq, last seq, time,
//     events), its events in a compact binary form (each event's type name
//     and JSON byte for byte) with a checksum, deflated when that saves an
//     eighth: a conversation's turn takes about 1.25 times its text;
//   - checkpoints: one row a checkpoint (session, seq, state).
//
// Its guarantees, across processes as within one:
//
//   - An Append is one statement, so one transaction: it moves the
//     session's last seq from the one before the batch to the batch's
//     last and inserts the batch, or, when the stored seq is not the one
//     before the batch (another writer appended first), writes nothing and
//     returns store.ErrConflict. Writers of one session wait for each
//     other's update of its row, never for a reader or a checkpoint.
//   - An Append that returned nil survives the server's process being
//     killed, an operating system crash and a power loss of the server's
//     machine: the store's connections commit with synchronous_commit=on
//     (the commit waits until the server's write-ahead log is flushed to
//     its disk), unless the DSN names another setting — off or local
//     lose the last commits on a server crash; remote_write, remote_apply
//     with synchronous standbys also survive the loss of the server's
//     machine. That holds as long as the server runs with fsync=on (its
//     default) on storage that keeps what it flushed.
//   - Batches reads a session's log a page of rows at a time, never all of
//     it at once, as it stood when the read began, and checks every row:
//     one that is missing, over the store's bound (64 MiB a batch, 256 MiB
//     a checkpoint) or damaged (its checksum, its count of events) is an
//     error naming the session and the seq.
//   - A fork is one row, whatever its parent holds.
//   - A header's Created and Updated are the server's clock, the same for
//     every process.
//   - No error shows the password of the DSN.
//
// Its tests run against a real server: the one named by the DSN in
// OFFSHOOT_TEST_POSTGRES, else a local one on 127.0.0.1:5432 with a
// database named test; without either they skip.
package postgres
