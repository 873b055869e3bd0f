// Package regfile opens and reads files that come from a tree offshoot does
// not control (a cloned repository's configuration, agent files, .mcp.json,
// snapshots, transcripts). Such a path may name a FIFO, a device or a link to
// one: opening a FIFO for reading blocks until a writer appears, and reading
// /dev/zero never ends. Open refuses everything but a regular file without
// blocking, and Read bounds what it reads.
package regfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// ErrNotRegular is matched (errors.Is) by the error of Open and Read for a
// path that names a directory, a FIFO, a socket or a device, or a symbolic
// link to one.
var ErrNotRegular = errors.New("not a regular file")

// TooLargeError is the error of Read for a file longer than its limit.
type TooLargeError struct {
	Path  string // the file
	Limit int64  // the most that may be read, in bytes
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s is larger than %s, the most offshoot reads from such a file; make it smaller", e.Path, Size(e.Limit))
}

// Open opens path for reading if it is a regular file (a symbolic link is
// followed). It never blocks on a FIFO: the file is opened non-blocking and
// checked before it is used. Any other kind of file gives an error that
// matches ErrNotRegular and names the path.
func Open(path string) (*os.File, error) {
	return OpenFile(path, os.O_RDONLY, 0)
}

// OpenFile is os.OpenFile for a regular file: it opens path as flag and
// perm say (to append to a log, say), without blocking on a FIFO, and
// refuses anything but a regular file with an error that matches
// ErrNotRegular.
func OpenFile(path string, flag int, perm fs.FileMode) (*os.File, error) {
	f, err := openNonblocking(path, flag, perm)
	if err != nil {
		return nil, err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !info.Mode().IsRegular() {
		f.Close()
		return nil, &fs.PathError{Op: "open", Path: path, Err: fmt.Errorf("%w (%s): offshoot reads only regular files here", ErrNotRegular, Kind(info.Mode()))}
	}
	if err := setBlocking(f); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// Read reads the whole of the regular file at path, at most limit bytes; a
// longer file gives a *TooLargeError and nothing of its content.
func Read(path string, limit int64) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadAll(f, path, limit)
}

// ReadIn is Read for name in root (never leaving it, as os.Root does): the
// whole regular file, at most limit bytes, without blocking on a FIFO put
// there since it was listed; anything but a regular file is an error that
// matches ErrNotRegular, a longer file a *TooLargeError.
func ReadIn(root *os.Root, name string, limit int64) ([]byte, error) {
	f, err := openNonblockingIn(root, name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%w (%s)", ErrNotRegular, Kind(info.Mode()))
	}
	if err := setBlocking(f); err != nil {
		return nil, err
	}
	return ReadAll(f, name, limit)
}

// ReadAll reads r to its end, at most limit bytes; name is the file named
// in the *TooLargeError of a longer input.
func ReadAll(r io.Reader, name string, limit int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, &TooLargeError{Path: name, Limit: limit}
	}
	return data, nil
}

// Size formats a byte count for a message: "64 KiB", "16 MiB".
func Size(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// Kind names the type of a file for a message: "a directory", "a FIFO
// (named pipe)", "a symbolic link", "a regular file"…
func Kind(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "a regular file"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO (named pipe)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "a special file"
}
