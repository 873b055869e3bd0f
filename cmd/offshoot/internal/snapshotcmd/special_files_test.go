package snapshotcmd

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// show and diff read only a regular file of at most maxSnapshotBytes: a
// FIFO, a link to /dev/zero or a huge file is an error at once.
func TestReadRefusesSpecialAndHugeFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.json")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	zero := filepath.Join(dir, "zero.json")
	require.NoError(t, os.Symlink("/dev/zero", zero))
	big := filepath.Join(dir, "big.json")
	f, err := os.Create(big)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(maxSnapshotBytes+1)) // sparse: no disk, no time
	require.NoError(t, f.Close())
	reg, err := Registry()
	require.NoError(t, err)
	for path, want := range map[string]string{fifo: "FIFO", zero: "character device", big: "larger than 64 MiB"} {
		_, err := read(path, reg)
		require.Error(t, err, path)
		assert.Contains(t, err.Error(), path)
		assert.Contains(t, err.Error(), want)
	}
}
