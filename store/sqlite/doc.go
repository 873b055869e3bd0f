// Package sqlite is a store.Store in one SQLite database file: the
// embedded default, for a program or a command on one machine. It needs
// no server and no cgo (the driver is modernc.org/sqlite, SQLite compiled
// to Go). Several processes may share the file: their writes take turns,
// and two writers of one session never both append at the same seq (the
// second gets store.ErrConflict and writes nothing). For sessions shared
// by several machines, use a server-backed store instead.
//
// # Guarantees
//
// The file is in write-ahead-log mode, with synchronous=NORMAL unless
// the DSN asks for more (Open). A batch is written whole or not at all,
// in one transaction. Once Append returns nil the batch survives the
// process being killed at any point (SIGKILL, a panic, an out-of-memory
// kill), whatever the setting. Under NORMAL, a power loss or an
// operating system crash may lose the last batches appended before it
// (those not yet synced to the disk), but never leaves a batch half
// written nor the file damaged. With "?_synchronous=FULL" (or EXTRA)
// every Append syncs the write-ahead log before it returns, so a batch
// survives a power loss or an operating system crash too — as far as the
// disk keeps what it says it synced — for the cost of an fsync per
// append. Readers never wait for the writer, nor
// make it wait; a write that finds another process writing waits for it
// (up to 10 seconds, or until its context ends) rather than failing.
//
// Reading a session (Batches) reads its rows one at a time, so its memory
// does not grow with the session. A stored row is checked as it is read:
// one whose events do not decode, whose seqs do not match its events or
// do not follow the row before it, or that is larger than a batch may be
// (64 MiB of encoded events; 512 MiB for a checkpoint's state), is an
// error naming the session and the seq, as is a log that ends short of
// the session's last seq. Append refuses what it could not read back: a
// batch over that size, or whose time is outside the years 1678 to 2262.
//
// Check runs SQLite's integrity check on the whole file.
//
// # The file
//
// The tables are sessions (the headers), batches (a row per batch: its
// seqs, its time and its events in a compact binary form, each event's
// type name stored once per file in the table types), checkpoints, and
// schema_version, which lets a later version of this package migrate the
// file; Open refuses a file of a newer schema. Storage is the bytes of
// the events' JSON — deflated when that saves an eighth of a row — plus
// about 55 bytes a batch (and 48 KB for the empty tables). A conversation
// of 1,000 turns of a 200-byte question and a 300-byte answer, stored
// through the runner with its records and no checkpoints, takes 1.05
// times its 500 KB of text when each message says one phrase over (the
// project's own benchmark text), 1.63 times when the messages are
// ordinary sentences, the same every turn (the conversation LangGraph's
// SQLite checkpointer stores in 2,789 times its text), and 1.5 times when
// every message is different words: each row is deflated on its own, and
// the runner's records add nearly as many bytes of JSON again as the
// messages' text. Deleting sessions leaves their pages free for new
// rows; the file does not shrink.
//
// A goroutine of the store copies the write-ahead log into the file in
// the background (SQLite's WAL checkpoint), so that no append waits for
// it; Close stops it.
package sqlite
