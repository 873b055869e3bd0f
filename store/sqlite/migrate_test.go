package sqlite

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/store"
)

// A file an earlier version made opens: its schema migrates, its
// sessions stay.
func TestAnOlderFileMigrates(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "sessions.db")
	db, err := sql.Open("sqlite", path)
	require.NoError(t, err)
	_, err = db.Exec("PRAGMA journal_mode = WAL")
	require.NoError(t, err)
	_, err = db.Exec(migrations[0])
	require.NoError(t, err)
	_, err = db.Exec("UPDATE schema_version SET version = 1")
	require.NoError(t, err)
	_, err = db.Exec(`INSERT INTO sessions (id, parent, fork_seq, tags, created, updated, seq) VALUES ('old', NULL, 0, NULL, 1, 1, 0)`)
	require.NoError(t, err)
	require.NoError(t, db.Close())

	st, err := Open(context.Background(), path)
	require.NoError(t, err)
	defer st.Close()
	require.NoError(t, st.Append(ctx, "old", store.Batch{Seq: 1, Events: []store.Event{{Type: "test.A", Data: []byte(`{"a":1}`)}}}))
	hs, err := st.List(ctx, store.Query{})
	require.NoError(t, err)
	require.Len(t, hs, 1)
	assert.Equal(t, uint64(1), hs[0].Seq, "the append moved the session's last seq (version 3's trigger)")
	assert.Greater(t, hs[0].Updated.Year(), 2000, "and its time of update")
	var version int
	require.NoError(t, st.w.QueryRowContext(ctx, "SELECT version FROM schema_version").Scan(&version))
	assert.Equal(t, len(migrations), version)
	var indexes int
	require.NoError(t, st.w.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_schema WHERE name = 'sessions_updated'").Scan(&indexes))
	assert.Zero(t, indexes)
}
