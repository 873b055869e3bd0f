package store_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/store"
	"github.com/offshoot-dev/offshoot/store/postgres"
)

// The PostgreSQL server the benchmarks use, as store/postgres's tests find
// it: the DSN in OFFSHOOT_TEST_POSTGRES, else a local server with a
// database named test.
const (
	envPostgres   = "OFFSHOOT_TEST_POSTGRES"
	localPostgres = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"
)

// openPostgres opens a store in a schema of its own on the test server,
// closed and dropped when the benchmark ends, or skips the benchmark when
// no server answers.
func openPostgres(b *testing.B) store.Store {
	b.Helper()
	dsn := os.Getenv(envPostgres)
	if dsn == "" {
		dsn = localPostgres
	}
	// Bounded, so that a server that never answers ends the probe; not a
	// measure of speed.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		b.Skipf("no PostgreSQL server to measure against: set %s to a DSN, or run PostgreSQL on 127.0.0.1:5432 with a database named test that user postgres may use without a password (%v)", envPostgres, err)
	}
	name := make([]byte, 8)
	_, _ = rand.Read(name)
	schema := "offshoot_bench_" + hex.EncodeToString(name)
	b.Cleanup(func() {
		ctx := context.Background()
		defer conn.Close(ctx)
		_, err := conn.Exec(ctx, "DROP SCHEMA IF EXISTS "+pgx.Identifier{schema}.Sanitize()+" CASCADE")
		require.NoError(b, err)
	})
	st, err := postgres.Open(ctx, withSchema(dsn, schema))
	require.NoError(b, err)
	b.Cleanup(func() { require.NoError(b, st.Close()) })
	return st
}

// withSchema returns dsn, a URL or keyword/value pairs, naming the store's
// schema.
func withSchema(dsn, schema string) string {
	switch {
	case !strings.Contains(dsn, "://"):
		return dsn + " offshoot_schema=" + schema
	case strings.Contains(dsn, "?"):
		return dsn + "&offshoot_schema=" + schema
	}
	return dsn + "?offshoot_schema=" + schema
}
