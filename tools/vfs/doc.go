// Package vfs gives a model a virtual filesystem that lives in its session:
// seven tools — ls, read_file, write_file, edit_file, glob, grep, rm — over
// an immutable file table, optionally seeded from host directories.
//
// The files are the latest value of the session's Table slice, a
// persistent sorted map keyed by path, so a snapshot or a fork of the
// session carries them at no cost, a rollback restores them, and a forked
// child's writes never reach its parent. The tools never change the
// session themselves: a handler checks the call against the current files
// and returns a FileWritten or FileDeleted event, which the session's
// reducers apply. Tools install those reducers on whatever session they
// run against (see Tools and InstallKey), so prompts and sections hold no
// session.
//
// Paths are ASCII, relative to the root, at most 16 segments of at most 80
// characters; see NormalizePath. Contents are UTF-8 text of at most 48,000
// characters. Each file keeps a version (1 when created, one more per
// write) and its creation and update times, stamped by the session bus's
// clock.
//
// Host mounts (Mount) copy host files in, read-only, from inside
// allow-listed roots only. FS gives an io/fs view of a session's files and
// Export writes a snapshot's files to a host directory.
package vfs
