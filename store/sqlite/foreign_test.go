package sqlite

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A file Open refuses is left as it was: not a byte of it changes, its
// journal mode included, and no file is made beside it. It may be another
// program's database.
func TestRefusedFilesAreLeftAlone(t *testing.T) {
	for _, tt := range []struct {
		name, sql, want string
	}{
		{"another program's", "CREATE TABLE accounts (id INTEGER PRIMARY KEY); INSERT INTO accounts VALUES (1)", "not this store's"},
		{"a newer schema", migrations[0] + "UPDATE schema_version SET version = 99", "newer than this program's"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "other.db")
			db, err := sql.Open("sqlite", path)
			require.NoError(t, err)
			_, err = db.Exec(tt.sql)
			require.NoError(t, err)
			require.NoError(t, db.Close())
			before, err := os.ReadFile(path)
			require.NoError(t, err)

			_, err = Open(context.Background(), path)
			require.ErrorContains(t, err, tt.want)

			after, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.Equal(t, before, after, "the refused file changed")
			entries, err := os.ReadDir(filepath.Dir(path))
			require.NoError(t, err)
			assert.Len(t, entries, 1, "files were made beside it")
			db, err = sql.Open("sqlite", path)
			require.NoError(t, err)
			defer db.Close()
			var mode string
			require.NoError(t, db.QueryRow("PRAGMA journal_mode").Scan(&mode))
			assert.Equal(t, "delete", mode)
		})
	}
}
