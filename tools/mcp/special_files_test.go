package mcp_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/internal/regfile"
	"github.com/offshoot-dev/offshoot/tools/mcp"
)

// A FIFO or a link to /dev/zero as .mcp.json is an error at once, naming
// the file, instead of a wait or a read that never ends; so is a file over
// MaxConfigBytes.
func TestLoadFileRefusesSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.json")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	zero := filepath.Join(dir, "zero.json")
	require.NoError(t, os.Symlink("/dev/zero", zero))
	big := filepath.Join(dir, "big.json")
	require.NoError(t, os.WriteFile(big, make([]byte, mcp.MaxConfigBytes+1), 0o600))
	for _, path := range []string{fifo, zero, big} {
		_, err := mcp.LoadFile(path)
		require.Error(t, err, path)
		assert.Contains(t, err.Error(), path)
	}
	_, err := mcp.LoadFile(fifo)
	assert.ErrorIs(t, err, regfile.ErrNotRegular)
}
