//go:build !unix

package regfile

import "os"

// openNonblocking opens path; systems without FIFOs in the file tree need
// nothing more.
func openNonblocking(path string, flag int, perm os.FileMode) (*os.File, error) {
	return os.OpenFile(path, flag, perm)
}

// openNonblockingIn opens name in root for reading.
func openNonblockingIn(root *os.Root, name string) (*os.File, error) {
	return root.Open(name)
}

func setBlocking(*os.File) error { return nil }
