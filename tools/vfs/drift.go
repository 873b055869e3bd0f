package vfs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/offshoot-dev/offshoot/internal/regfile"
	"github.com/offshoot-dev/offshoot/session"
)

// maxDriftBytes bounds what DiskDrift reads of the host directory: a
// mount copies a few MiB of text in, so the files it copied hold about
// as much, unless they grew since.
const maxDriftBytes = 64 << 20

// Drift is how the host directory a session's files were copied from
// differs from what was copied in (see DiskDrift).
type Drift struct {
	// Copied is how many files the session's mounts copied in.
	Copied int
	// Changed is how many of them differ on disk now: edited, removed,
	// or no longer a regular file.
	Changed int
	// Partial is set when DiskDrift stopped reading at its bound: Changed
	// counts the files it read, and more may differ.
	Partial bool
}

// DiskDrift compares the files a snapshot's mounts copied in with the
// host directory dir, where the snapshot's VFS root stands for dir (as
// PlanWriteBack has it): each file by the SHA-256 its mount kept, read
// through an os.Root, following no symbolic link. Files added to dir since
// were not the session's and are not counted. It reads at most
// maxDriftBytes; a session whose files were not mounted has nothing to
// compare (a zero Drift). It fails only when dir cannot be opened as a
// directory.
func DiskDrift(snap session.Snapshot, dir string) (Drift, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return Drift{}, fmt.Errorf("vfs: comparing the files copied in with %s: %w", dir, err)
	}
	defer root.Close()
	base, ok := baselineOf(snap)
	if !ok {
		return Drift{}, nil
	}
	d := Drift{Copied: len(base.Files)}
	budget := int64(maxDriftBytes)
	for p, want := range base.Files {
		rel, ok := hostPath(p)
		if !ok {
			d.Changed++
			continue
		}
		same, read, err := sameContent(root, rel, want, budget)
		budget -= read
		if errors.Is(err, errBudget) {
			d.Partial = true
			break
		}
		if !same {
			d.Changed++
		}
	}
	return d, nil
}

// errBudget: sameContent would read more than it may.
var errBudget = errors.New("vfs: read bound reached")

// sameContent reports whether root holds a regular file at rel whose
// SHA-256 is want, reading at most budget bytes (errBudget past it), and
// how many bytes it read. No symbolic link is followed, on the way or at
// the file, and a FIFO put there is not waited on.
func sameContent(root *os.Root, rel, want string, budget int64) (same bool, read int64, err error) {
	for dir := filepath.Dir(rel); dir != "."; dir = filepath.Dir(dir) {
		if info, err := root.Lstat(dir); err != nil || !info.IsDir() {
			return false, 0, nil
		}
	}
	info, err := root.Lstat(rel)
	if err != nil || !info.Mode().IsRegular() {
		return false, 0, nil
	}
	data, err := regfile.ReadIn(root, rel, budget)
	if _, ok := errors.AsType[*regfile.TooLargeError](err); ok {
		return false, 0, errBudget
	}
	if err != nil {
		return false, 0, nil
	}
	return hashOf(data) == want, int64(len(data)), nil
}
