package vfs

import (
	"errors"
	"fmt"
	"time"
	"unicode/utf8"
)

// FileWritten is the event of a file being created or replaced: write_file
// and edit_file return one, and the session's reducer applies it. Other
// code may dispatch it too (the reducer checks it the same way), and
// observers read written files from it — a subagent's artifacts are the
// FileWritten events its child session dispatched.
type FileWritten struct {
	// Path is the file's canonical path (see normalizePath).
	Path string `json:"path"`
	// Content is the file's whole new content: valid UTF-8, at most
	// maxContentChars characters.
	Content string `json:"content"`
	// Version is the file's version after the write: 1 creates a file
	// that must not exist yet, n > 1 replaces version n-1, and 0 takes
	// the next version whatever it is. Tools always set it, so a write
	// based on a stale read is rejected instead of applied.
	Version int `json:"version"`
}

// FileDeleted is the event of a file, or a directory with every file below
// it, being removed: rm returns one. Removing a path with nothing there is
// rejected by the reducer.
type FileDeleted struct {
	// Path is the canonical path of the file or directory.
	Path string `json:"path"`
}

// filesSeeded is the event that gives a session without files its initial
// files — the host mounts of the tools installed on it. Its reducer applies
// it only to a session that has no VFS state yet, and ignores it otherwise.
type filesSeeded struct {
	// Files are the initial files.
	Files Table `json:"files"`
	// Baseline records what the mounts copied, for the write-back; nil
	// when the files were not mounted.
	Baseline *baseline `json:"baseline,omitempty"`
}

// Errors the reducers (and so the tools) report, matched with errors.Is.
var (
	// errNotFound: no file or directory at the path.
	errNotFound = errors.New("vfs: no such file or directory")
	// errExists: write_file on a path that already has a file.
	errExists = errors.New("vfs: file already exists")
	// errIsDirectory: a file operation on a directory.
	errIsDirectory = errors.New("vfs: is a directory")
	// errNotDirectory: a path goes through a file as if it were a
	// directory.
	errNotDirectory = errors.New("vfs: not a directory")
	// errStale: a write's version does not follow the file's.
	errStale = errors.New("vfs: stale write")
	// errContent: content that is not UTF-8 text or is too long.
	errContent = errors.New("vfs: content not accepted")
)

// opError is a rejected file operation: which, on which path, and why, in
// words the model can act on. errors.Is matches its Err (errNotFound, …).
type opError struct {
	// Op is the operation: "write", "edit", "read", "rm", "ls".
	Op string
	// Path is the path operated on.
	Path string
	// Err is the kind of failure.
	Err error
	// Hint says what to do instead.
	Hint string
}

// Error returns "OP PATH: WHAT; HINT", the path clipped to 200
// characters.
func (e *opError) Error() string {
	msg := fmt.Sprintf("%s %s: %s", e.Op, clip(e.Path), trimPrefix(e.Err))
	if e.Hint != "" {
		msg += "; " + e.Hint
	}
	return msg
}

// Unwrap returns the kind of failure.
func (e *opError) Unwrap() error { return e.Err }

// trimPrefix words err without its "vfs: " package prefix.
func trimPrefix(err error) string {
	s := err.Error()
	if len(s) > 5 && s[:5] == "vfs: " {
		return s[5:]
	}
	return s
}

// checkContent checks that content can be stored.
func checkContent(op, p, content string) error {
	if !utf8.ValidString(content) {
		return &opError{Op: op, Path: p, Err: errContent, Hint: "the content is not valid UTF-8; files hold text only"}
	}
	if n := utf8.RuneCountInString(content); n > maxContentChars {
		return &opError{Op: op, Path: p, Err: errContent, Hint: fmt.Sprintf("the content is %d characters long; a file holds at most %d, so split it into several files", n, maxContentChars)}
	}
	return nil
}

// checkPlace checks that a new file can be created at the canonical path
// p: no file on the way to it, no directory at it.
func (t Table) checkPlace(op, p string) error {
	for i := 0; i < len(p); i++ {
		if p[i] != '/' {
			continue
		}
		if _, ok := t.get(p[:i]); ok {
			return &opError{Op: op, Path: p, Err: errNotDirectory, Hint: fmt.Sprintf("%s is a file, so nothing can be created below it", p[:i])}
		}
	}
	if t.IsDir(p) {
		return &opError{Op: op, Path: p, Err: errIsDirectory, Hint: "it holds files; choose another name, or rm the directory first"}
	}
	return nil
}

// written returns t with the write ev applied at time now, or why it
// cannot be.
func (t Table) written(ev FileWritten, now time.Time) (Table, error) {
	if !isCanonical(ev.Path) {
		if _, err := normalizePath(ev.Path); err != nil {
			return t, err
		}
		return t, &pathError{Path: ev.Path, Reason: "the event's path is not canonical; normalize it with vfs.normalizePath"}
	}
	if err := checkContent("write", ev.Path, ev.Content); err != nil {
		return t, err
	}
	now = stamp(now)
	old, exists := t.get(ev.Path)
	switch {
	case ev.Version < 0:
		return t, &opError{Op: "write", Path: ev.Path, Err: errStale, Hint: fmt.Sprintf("version %d is negative", ev.Version)}
	case !exists:
		if ev.Version > 1 {
			return t, &opError{Op: "write", Path: ev.Path, Err: errNotFound, Hint: fmt.Sprintf("cannot write version %d of a file that does not exist", ev.Version)}
		}
		if err := t.checkPlace("write", ev.Path); err != nil {
			return t, err
		}
		return t.set(&File{Path: ev.Path, Content: ev.Content, Version: 1, CreatedAt: now, UpdatedAt: now}), nil
	case ev.Version == 1:
		return t, &opError{Op: "write", Path: ev.Path, Err: errExists, Hint: "use edit_file to change it"}
	case ev.Version != 0 && ev.Version != old.Version+1:
		return t, &opError{Op: "write", Path: ev.Path, Err: errStale, Hint: fmt.Sprintf("the file is at version %d, so the next write is version %d, not %d; read it again", old.Version, old.Version+1, ev.Version)}
	}
	return t.set(&File{Path: ev.Path, Content: ev.Content, Version: old.Version + 1, CreatedAt: old.CreatedAt, UpdatedAt: now}), nil
}

// deleted returns t without the file or directory ev names, and how many
// files that removes, or why it cannot be done.
func (t Table) deleted(ev FileDeleted) (Table, int, error) {
	if !isCanonical(ev.Path) {
		if _, err := normalizePath(ev.Path); err != nil {
			return t, 0, err
		}
		return t, 0, &pathError{Path: ev.Path, Reason: "the event's path is not canonical; normalize it with vfs.normalizePath"}
	}
	next, n := t.without(ev.Path)
	if n == 0 {
		return t, 0, &opError{Op: "rm", Path: ev.Path, Err: errNotFound, Hint: "nothing is there; list the directory with ls"}
	}
	return next, n, nil
}
