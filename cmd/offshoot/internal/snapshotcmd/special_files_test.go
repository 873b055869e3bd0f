package snapshotcmd

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/model"
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

// A message of many megabytes is printed cut, in both modes, saying how
// much is not shown.
func TestShowCapsWhatItPrints(t *testing.T) {
	var b strings.Builder
	big := strings.Repeat("x", 3<<20)
	message(&b, model.UserMessage(big), false)
	assert.Less(t, b.Len(), 1<<10)
	b.Reset()
	message(&b, model.UserMessage(big), true)
	assert.Less(t, b.Len(), maxShownBytes+1<<10)
	assert.Contains(t, b.String(), "more not shown)")
}

func TestDiffLinesAreClipped(t *testing.T) {
	got := clipLines("short\n"+strings.Repeat("é", 5000)+"\nend", maxDiffLine)
	lines := strings.Split(got, "\n")
	require.Len(t, lines, 3)
	assert.Equal(t, "short", lines[0])
	assert.Less(t, len(lines[1]), maxDiffLine+64)
	assert.Contains(t, lines[1], "more not shown)")
	assert.Equal(t, "end", lines[2])
}
