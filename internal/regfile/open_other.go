//go:build !unix

package regfile

import "os"

// openNonblocking opens path; systems without FIFOs in the file tree need
// nothing more.
func openNonblocking(path string) (*os.File, error) { return os.Open(path) }

func setBlocking(*os.File) error { return nil }
