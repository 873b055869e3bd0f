package vfs

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/offshoot-dev/offshoot/internal/regfile"
)

// The host side of a write-back: where a change lands in the directory,
// what is there now, and the atomic write. Every access goes through an
// os.Root opened on the directory, which refuses any path that leads
// outside it, symlinks included; on top of that, a write-back follows no
// symlink at all: one on the way to a file, or at the file, leaves the
// change.

// hostPath returns the path, relative to the directory and with the
// system's separators, that the VFS path p is written to; false when p
// cannot name a file inside the directory: not a canonical VFS path (so
// no "." or ".." segment, no leading "/"), holding a backslash (a
// separator on Windows) or not local to the directory by the system's
// rules (filepath.IsLocal: reserved names on Windows, say).
func hostPath(p string) (string, bool) {
	if !isCanonical(p) || strings.ContainsRune(p, '\\') {
		return "", false
	}
	rel := filepath.FromSlash(p)
	if !filepath.IsLocal(rel) {
		return "", false
	}
	return rel, true
}

// onHost is what the host directory has where a change lands.
type onHost struct {
	exists bool        // whether there is a file
	old    string      // its content (also when it is a conflict)
	perm   fs.FileMode // its permissions
	left   string      // why the change is left, or ""
	done   bool        // the host already has the change
}

// inspect looks at where the change c lands in root: the directories on
// the way must be real directories or not exist yet, and the file must
// still be what was mounted (edited, deleted), or not exist or already
// hold the new content (created). A file is read through a limit.
func inspect(root *os.Root, c Change) onHost {
	rel, ok := hostPath(c.Path)
	if !ok {
		return onHost{left: leftNeverWritten}
	}
	parts := strings.Split(rel, string(filepath.Separator))
	for i := 1; i < len(parts); i++ {
		dir := filepath.Join(parts[:i]...)
		info, err := root.Lstat(dir)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if c.Op == opCreated {
				return onHost{}
			}
			return onHost{left: leftGoneOnDisk}
		case err != nil:
			return onHost{left: unreadable(err)}
		case info.Mode()&fs.ModeSymlink != 0:
			return onHost{left: fmt.Sprintf("%s is a symbolic link on disk", filepath.ToSlash(dir))}
		case !info.IsDir():
			return onHost{left: fmt.Sprintf("%s is a file on disk", filepath.ToSlash(dir))}
		}
	}
	info, err := root.Lstat(rel)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		switch c.Op {
		case opCreated:
			return onHost{}
		case opDeleted:
			return onHost{done: true} // deleted on disk too
		}
		return onHost{left: leftGoneOnDisk}
	case err != nil:
		return onHost{left: unreadable(err)}
	case info.Mode()&fs.ModeSymlink != 0:
		return onHost{left: leftSymlink}
	case !info.Mode().IsRegular():
		return onHost{left: "not a regular file on disk"}
	}
	data, err := readHost(root, rel)
	if err != nil {
		return onHost{left: unreadable(err)}
	}
	h := onHost{exists: true, old: string(data), perm: info.Mode().Perm(), done: c.Op != opDeleted && string(data) == c.Content}
	switch {
	case h.done:
	case c.Op == opCreated:
		return onHost{old: h.old, left: leftExistsOnDisk}
	case hashOf(data) != c.Base:
		return onHost{old: h.old, left: leftChangedOnDisk}
	}
	return h
}

// unreadable words an error reading the host as a reason to leave a
// change.
func unreadable(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return fmt.Sprintf("cannot be read on disk (%v)", err)
}

// errTooLarge is the error of a host file longer than any the VFS holds:
// it cannot be what was mounted.
var errTooLarge = errors.New("longer than a file the VFS holds")

// readHost reads the regular file rel of root, at most maxFileBytes.
func readHost(root *os.Root, rel string) ([]byte, error) {
	data, err := regfile.ReadIn(root, rel, maxFileBytes)
	if _, ok := errors.AsType[*regfile.TooLargeError](err); ok {
		return nil, errTooLarge
	}
	return data, err
}

// writeAtomic writes content to rel in root: into a new temporary file in
// the same directory, given the permissions of the file it replaces (h)
// or, for a new file, the default ones less the umask, then renamed over
// rel, so that a reader sees the old file or the new one, never a part.
// The directories on the way are created as needed.
func writeAtomic(root *os.Root, rel, content string, h onHost) (err error) {
	dir := filepath.Dir(rel)
	if dir != "." {
		if err := root.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	tmp := tempName(rel)
	create := fs.FileMode(0o666)
	if h.exists {
		create = 0o600 // until Chmod gives it the old file's permissions
	}
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, create)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = root.Remove(tmp)
		}
	}()
	_, err = io.WriteString(f, content)
	if err == nil && h.exists {
		err = f.Chmod(h.perm)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return root.Rename(tmp, rel)
}
