//go:build unix

package sqlite

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/store"
)

// TestOpenRefusesSpecialFiles: a FIFO or a device where the store's file
// (or one SQLite keeps beside it) should be is refused before anything
// opens it, so that Open never blocks on it.
func TestOpenRefusesSpecialFiles(t *testing.T) {
	fifo := func(t *testing.T, path string) { require.NoError(t, syscall.Mkfifo(path, 0o600)) }
	refused(t, []openCase{
		{"a FIFO", fifo, "is a FIFO (named pipe), not a regular file"},
		{"a link to a FIFO", func(t *testing.T, path string) {
			fifo(t, path+".fifo")
			require.NoError(t, os.Symlink(path+".fifo", path))
		}, "is a symbolic link to a FIFO (named pipe), not to a regular file"},
		{"a link to a device", func(t *testing.T, path string) { require.NoError(t, os.Symlink("/dev/null", path)) }, "is a symbolic link to a character device, not to a regular file"},
		{"a link to nothing", func(t *testing.T, path string) { require.NoError(t, os.Symlink(path+".missing", path)) }, "is a symbolic link to nothing usable"},
		{"a FIFO for the log", func(t *testing.T, path string) { fifo(t, path+"-wal") }, "-wal is a FIFO (named pipe), not a regular file"},
		{"a device for the log's index", func(t *testing.T, path string) { require.NoError(t, os.Symlink("/dev/zero", path+"-shm")) }, "-shm is a symbolic link to a character device"},
		{"a FIFO for the journal beside a link's target", func(t *testing.T, path string) {
			require.NoError(t, os.WriteFile(path+".real", nil, 0o600))
			require.NoError(t, os.Symlink(path+".real", path))
			fifo(t, path+".real-journal")
		}, ".real-journal is a FIFO (named pipe)"},
	})
}

// TestOpenLink: a symbolic link to a store's file opens that file.
func TestOpenLink(t *testing.T) {
	dir := t.TempDir()
	st, err := Open(context.Background(), filepath.Join(dir, "real.db"))
	require.NoError(t, err)
	require.NoError(t, st.Create(context.Background(), store.Header{ID: "s"}))
	require.NoError(t, st.Close())
	require.NoError(t, os.Symlink(filepath.Join(dir, "real.db"), filepath.Join(dir, "link.db")))
	st, err = Open(context.Background(), filepath.Join(dir, "link.db"))
	require.NoError(t, err)
	defer st.Close()
	_, err = st.Header(context.Background(), "s")
	require.NoError(t, err)
}
