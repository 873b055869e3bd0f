//go:build unix

package regfile

import (
	"os"
	"syscall"
)

// openNonblocking opens path with O_NONBLOCK, so that a FIFO without a
// writer (or, for writing, without a reader) does not block the open.
func openNonblocking(path string, flag int, perm os.FileMode) (*os.File, error) {
	return os.OpenFile(path, flag|syscall.O_NONBLOCK, perm)
}

// openNonblockingIn is openNonblocking for name in root.
func openNonblockingIn(root *os.Root, name string) (*os.File, error) {
	return root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}

// setBlocking clears O_NONBLOCK on a regular file (where it has no effect on
// Linux, but may on other systems).
func setBlocking(f *os.File) error {
	raw, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := raw.Control(func(fd uintptr) { serr = syscall.SetNonblock(int(fd), false) }); err != nil {
		return err
	}
	return serr
}
