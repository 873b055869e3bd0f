//go:build unix

package vfs_test

import (
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/tools/vfs"
)

// withWatchdog runs f and fails the test if it has not returned within 10
// seconds (opening a FIFO with no writer blocks forever).
func withWatchdog(t *testing.T, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("still blocked after 10 s")
	}
}

// specialTree makes, under a temporary directory, root/mnt with a regular
// file, a FIFO, a Unix socket and a link to the FIFO, and returns root.
func specialTree(t *testing.T) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "root")
	mnt := filepath.Join(root, "mnt")
	require.NoError(t, os.MkdirAll(mnt, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(mnt, "ok.txt"), []byte("fine\n"), 0o644))
	require.NoError(t, syscall.Mkfifo(filepath.Join(mnt, "pipe"), 0o644))
	require.NoError(t, os.Symlink("pipe", filepath.Join(mnt, "pipelink.txt")))
	// Socket paths are short on some systems: listen from inside mnt.
	wd, err := os.Getwd()
	require.NoError(t, err)
	require.NoError(t, os.Chdir(mnt))
	l, err := net.Listen("unix", "sock")
	require.NoError(t, os.Chdir(wd))
	if err == nil {
		t.Cleanup(func() { _ = l.Close() })
	}
	return root
}

// A FIFO, a socket or a link to one inside a mount is skipped without
// being opened; given as the mount itself it is refused.
func TestMountSkipsSpecialFiles(t *testing.T) {
	root := specialTree(t)
	mnt := filepath.Join(root, "mnt")
	withWatchdog(t, func() {
		table, err := vfs.LoadMounts([]string{root}, vfs.Mount{HostPath: mnt})
		require.NoError(t, err)
		assert.Equal(t, []string{"ok.txt"}, paths(table))
	})
	for _, name := range []string{"pipe", "pipelink.txt"} {
		t.Run(name, func(t *testing.T) {
			withWatchdog(t, func() {
				_, err := vfs.Tools(vfs.Options{AllowedRoots: []string{root}, Mounts: []vfs.Mount{{HostPath: filepath.Join(mnt, name)}}})
				require.Error(t, err)
				assert.Contains(t, err.Error(), "the host path is a FIFO (named pipe), not a directory or a regular file; mount a directory or a regular file")
			})
		})
	}
	if _, err := os.Lstat(filepath.Join(mnt, "sock")); err == nil {
		_, err := vfs.LoadMounts([]string{root}, vfs.Mount{HostPath: filepath.Join(mnt, "sock")})
		assert.ErrorContains(t, err, "the host path is a socket")
	}
}

// The byte cap counts the bytes read, through a limit, not the size a stat
// reports: a /proc file that says it is empty but holds megabytes is read
// no further than a file can be long, and skipped.
func TestMountReadsThroughALimit(t *testing.T) {
	const file = "/proc/kallsyms"
	info, err := os.Stat(file)
	if err != nil || !info.Mode().IsRegular() || info.Size() != 0 {
		t.Skip(file + " is not an empty-looking regular file here")
	}
	var table vfs.Table
	allocated := allocatedBytes(func() {
		table, err = vfs.LoadMounts([]string{"/proc"}, vfs.Mount{HostPath: file, MaxBytes: 64 << 10})
	})
	require.NoError(t, err)
	assert.Equal(t, 0, table.Len(), "too long to hold: skipped")
	assert.Less(t, allocated, uint64(2<<20), "bytes allocated reading a 5 MB file that looks empty")

	_, err = vfs.LoadMounts([]string{"/proc"}, vfs.Mount{HostPath: "/proc/self/maps", MaxBytes: 100})
	assert.ErrorContains(t, err, "exceed the mount's cap of 100 bytes", "a file that says it is empty still counts what it holds")
}
