package sqlite

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/store"
)

// The store's own goroutine copies the write-ahead log into the database
// file after every walKickEvery writes, so that no append waits for it: a
// copy of the database file alone, without the log, then holds the
// session.
func TestTheLogIsCheckpointedInTheBackground(t *testing.T) {
	ctx := context.Background()
	st := openTemp(t)
	require.NoError(t, st.Create(ctx, store.Header{ID: "s"})) // a write too
	seq := uint64(1)
	for ; st.wal.writes.Load() < walKickEvery-1; seq++ {
		require.NoError(t, st.Append(ctx, "s", note(seq, 1)))
	}
	assert.Zero(t, st.wal.runs.Load(), "no checkpoint before the kick")
	assert.Equal(t, -1, sessionsInFileAlone(t, st.path), "the new file's tables are still in the log alone")

	require.NoError(t, st.Append(ctx, "s", note(seq, 1)))
	// The kick is a send the goroutine answers; a deadline only bounds a
	// hang, however slow the machine.
	require.Eventually(t, func() bool { return st.wal.runs.Load() == 1 }, time.Minute, time.Millisecond)
	assert.Equal(t, 1, sessionsInFileAlone(t, st.path))
	h, err := st.Header(ctx, "s")
	require.NoError(t, err)
	assert.Equal(t, seq, h.Seq)
}

// sessionsInFileAlone copies the database file at path, without its
// write-ahead log, and counts the sessions the copy holds: -1 when it
// holds no sessions table.
func sessionsInFileAlone(t *testing.T, path string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	cp := filepath.Join(t.TempDir(), "alone.db")
	require.NoError(t, os.WriteFile(cp, data, 0o600))
	db := rawDB(t, &Store{path: cp})
	var tables int
	require.NoError(t, db.QueryRow("SELECT count(*) FROM sqlite_schema WHERE name = 'sessions'").Scan(&tables))
	if tables == 0 {
		return -1
	}
	var n int
	require.NoError(t, db.QueryRow("SELECT count(*) FROM sessions").Scan(&n))
	return n
}
