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
// run against (see Tools and installKey), so prompts and sections hold no
// session.
//
// Paths are ASCII, relative to the root, at most 16 segments of at most 80
// characters; see normalizePath. A tool given a path (or a glob pattern)
// it cannot accept fails the call as invalid arguments, naming the field:
// "Tool validation failed: ls: path: must be ASCII". Contents are UTF-8
// text of at most 48,000
// characters. Each file keeps a version (1 when created, one more per
// write) and its creation and update times, stamped by the session bus's
// clock.
//
// Every tool bounds its work before doing it, so a model's call cannot take
// the process down: edit_file computes the size of its result before
// building it; glob and grep cap their patterns (1,000 characters, and a
// regexp's compiled size), examine at most 100,000 files, meter their work
// against a limit, and honour the call's context even inside one long
// line; ls, glob and grep cap their results; an error repeats at most 200
// characters of a path or pattern.
//
// Host mounts (Mount) copy host files in from inside allow-listed roots
// only: regular files and directories, never a FIFO, socket or device, and
// through a symlink only to a file inside the mounted directory that
// Exclude keeps; never .git, the agents' configuration (.claude,
// .offshoot) or a name that may hold a secret (DefaultSecrets), whatever
// their case. The session records what was mounted; Changes lists what
// the session created, edited and deleted since, and PlanWriteBack checks
// those changes against a host directory, shows them as a unified diff
// and writes them (WriteBack.Apply): never outside the directory, never
// through a symlink, never to .git, .offshoot, a secret or an excluded
// path (rules of the code, which no snapshot can change), a file that
// configures what runs next only when named (WriteBack.Allow), and never
// over a file that changed on disk since it was mounted. FS gives an io/fs view of a
// session's files and Export writes a snapshot's files to a host
// directory. A file table decoded from snapshot JSON is checked as the
// tools would build it.
package vfs
