package postgres

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/store"
)

// The tests run against a real server: the one named by the DSN in
// OFFSHOOT_TEST_POSTGRES, else a local one on 127.0.0.1:5432 with a
// database named test, if it answers. Without either they skip — unless
// OFFSHOOT_TEST_POSTGRES_REQUIRED=1 (CI sets it where a server is up), when
// they fail.
const (
	envDSN      = "OFFSHOOT_TEST_POSTGRES"
	envRequired = "OFFSHOOT_TEST_POSTGRES_REQUIRED"
	localDSN    = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"
)

var probe struct {
	once sync.Once
	dsn  string
	err  error // why no server answered
	env  bool  // the DSN came from the environment
}

// serverDSN returns the DSN of the test server, or skips (fails, when
// required) the test when none answers.
func serverDSN(tb testing.TB) string {
	tb.Helper()
	probe.once.Do(func() {
		probe.dsn, probe.env = os.Getenv(envDSN), true
		if probe.dsn == "" {
			probe.dsn, probe.env = localDSN, false
		}
		// Bounded, so that a server that never answers ends the probe; not a
		// measure of speed.
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, probe.dsn)
		if err == nil {
			err = conn.Ping(ctx)
			conn.Close(ctx)
		}
		probe.err = err
	})
	switch {
	case probe.err == nil:
		return probe.dsn
	case probe.env:
		tb.Fatalf("%s names a server that does not answer: %v", envDSN, passwordsOf(probe.dsn, nil).redact(probe.err))
	case os.Getenv(envRequired) == "1":
		tb.Fatalf("%s=1, and no PostgreSQL server answers at %s: %v", envRequired, localDSN, probe.err)
	default:
		tb.Skipf("no PostgreSQL server to test against: set %s to a DSN (postgres://user:password@host:5432/database), or run PostgreSQL on 127.0.0.1:5432 with a database named test that user postgres may use without a password (%v)", envDSN, probe.err)
	}
	return ""
}

// testSchema returns the name of a new schema for one test, dropped when
// the test ends.
func testSchema(tb testing.TB, dsn string) string {
	tb.Helper()
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	name := "offshoot_test_" + hex.EncodeToString(b)
	tb.Cleanup(func() {
		ctx := context.Background()
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			tb.Errorf("dropping schema %s: %v", name, err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP SCHEMA IF EXISTS "+pgx.Identifier{name}.Sanitize()+" CASCADE"); err != nil {
			tb.Errorf("dropping schema %s: %v", name, err)
		}
	})
	return name
}

// openTest opens a store in a schema of its own, closed and dropped when
// the test ends.
func openTest(tb testing.TB) *pgStore {
	tb.Helper()
	dsn := serverDSN(tb)
	schema := testSchema(tb, dsn)
	st, err := Open(context.Background(), withSchema(dsn, schema))
	require.NoError(tb, err)
	tb.Cleanup(func() { require.NoError(tb, st.Close()) })
	return st.(*pgStore)
}

// exec runs SQL on the store's schema (S. names its tables).
func exec(tb testing.TB, st store.Store, sql string, args ...any) {
	tb.Helper()
	s := st.(*pgStore)
	_, err := s.pool.Exec(context.Background(), s.q(sql), args...)
	require.NoError(tb, err)
}

// withParam returns dsn, a URL or keyword/value pairs, with the parameter
// key=value added.
func withParam(dsn, key, value string) string {
	switch {
	case !strings.Contains(dsn, "://"):
		return dsn + " " + key + "=" + value
	case strings.Contains(dsn, "?"):
		return dsn + "&" + key + "=" + value
	}
	return dsn + "?" + key + "=" + value
}

// withSchema returns dsn naming the store's schema.
func withSchema(dsn, schema string) string { return withParam(dsn, "offshoot_schema", schema) }
