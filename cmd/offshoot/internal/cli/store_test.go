package cli

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/store"
	"github.com/offshoot-dev/offshoot/store/postgres"
)

// --store takes a SQLite DSN as store/sqlite does — the file's path, then
// options — so that a person can ask for the power-loss guarantee
// (?_synchronous=FULL): the file is the path without the options, a
// store that exists is found with them, and an option the store does not
// take is a usage error that names it.
func TestStoreTakesSQLiteOptions(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	e := &Env{ProjectDir: dir}
	for _, tt := range []struct {
		name, dsn string
		file      string // the database's file, in dir
		where     string // Stored.Where
		err       string
	}{
		{"full", "full.db?_synchronous=FULL", "full.db", "full.db?_synchronous=FULL", ""},
		{"extra, an absolute path", filepath.Join(dir, "extra.db") + "?_synchronous=extra", "extra.db", "extra.db?_synchronous=extra", ""},
		{"no options", "plain.db", "plain.db", "plain.db", ""},
		{"a question mark that starts no options", "what?.db", "what?.db", "what?.db", ""},
		{"off is refused", "off.db?_synchronous=OFF", "", "", `--store off.db?_synchronous=OFF: _synchronous=OFF: the store keeps NORMAL, FULL or EXTRA synchronous`},
		{"an unknown option", "cache.db?_cache=shared", "", "", `unknown option _cache; the options are _synchronous (NORMAL, FULL or EXTRA); give a SQLite file's path, optionally followed by ?_synchronous=FULL`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := StoreFlags{DSN: tt.dsn}
			st, err := e.OpenStore(ctx, f, true)
			if tt.err != "" {
				require.ErrorContains(t, err, tt.err)
				ee, ok := err.(*ExitError)
				require.True(t, ok, "%T", err)
				require.Equal(t, 2, ee.Code)
				entries, err := os.ReadDir(dir)
				require.NoError(t, err)
				for _, de := range entries {
					require.NotContains(t, tt.dsn, de.Name(), "a refused DSN makes no file")
				}
				return
			}
			require.NoError(t, err)
			require.Nil(t, st, "an existing store only: none is there yet")
			st, err = e.OpenStore(ctx, f, false)
			require.NoError(t, err)
			require.Equal(t, tt.where, st.Where)
			require.NoError(t, st.Create(ctx, store.Header{ID: "s"}))
			require.NoError(t, st.Close())
			file := filepath.Join(dir, tt.file)
			_, err = os.Lstat(file)
			require.NoError(t, err, "the file is the DSN's path, without its options")
			st, err = e.OpenStore(ctx, f, true)
			require.NoError(t, err)
			require.NotNil(t, st, "the store is found with its options")
			_, err = st.Header(ctx, "s")
			require.NoError(t, err)
			require.NoError(t, st.Close())
		})
	}
}

// --store takes a PostgreSQL URL whole: offshoot_schema= puts the
// sessions in a schema of their own, and the URL is shown without its
// password.
func TestStoreTakesAPostgresSchema(t *testing.T) {
	dsn := os.Getenv("OFFSHOOT_TEST_POSTGRES")
	if dsn == "" {
		dsn = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second) // a watchdog
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		if os.Getenv("OFFSHOOT_TEST_POSTGRES_REQUIRED") == "1" {
			t.Fatalf("no PostgreSQL server answers: %v", err)
		}
		t.Skipf("no PostgreSQL server to test against (%v)", err)
	}
	t.Cleanup(func() { _ = conn.Close(context.Background()) }) // after the schema is dropped
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	schema := "offshoot_cli_" + hex.EncodeToString(b)
	t.Cleanup(func() {
		_, err := conn.Exec(context.Background(), "DROP SCHEMA IF EXISTS "+pgx.Identifier{schema}.Sanitize()+" CASCADE")
		require.NoError(t, err)
	})

	e := &Env{ProjectDir: t.TempDir()}
	st, err := e.OpenStore(ctx, StoreFlags{DSN: dsn + "&offshoot_schema=" + schema}, false)
	require.NoError(t, err)
	require.Contains(t, st.Where, "offshoot_schema="+schema)
	require.NoError(t, st.Create(ctx, store.Header{ID: "in-the-schema"}))
	require.NoError(t, st.Close())

	var n int
	require.NoError(t, conn.QueryRow(ctx, "SELECT count(*) FROM information_schema.tables WHERE table_schema = $1", schema).Scan(&n))
	require.Positive(t, n, "the store's tables are in the schema the URL names")
	other, err := postgres.Open(ctx, dsn+"&offshoot_schema="+schema)
	require.NoError(t, err)
	defer other.Close()
	_, err = other.Header(ctx, "in-the-schema")
	require.NoError(t, err)
}
