package postgres

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// admin runs SQL outside any store.
func admin(t *testing.T, dsn, sql string) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	require.NoError(t, err)
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, sql)
	require.NoError(t, err)
}

func TestOpenSchema(t *testing.T) {
	dsn := serverDSN(t)
	ctx := context.Background()
	tests := []struct {
		name   string
		before string // SQL run first; {S} is the schema
		err    string // "" when Open succeeds
	}{
		{name: "a new schema"},
		{name: "an empty schema", before: `CREATE SCHEMA {S}`},
		{name: "a newer version", before: `CREATE SCHEMA {S}; CREATE TABLE {S}.schema_version (version integer); INSERT INTO {S}.schema_version VALUES (2)`,
			err: "holds the tables of version 2, and this program knows up to version 1"},
		{name: "a version no program wrote", before: `CREATE SCHEMA {S}; CREATE TABLE {S}.schema_version (version integer); INSERT INTO {S}.schema_version VALUES (0)`,
			err: "without a version this program knows (0)"},
		{name: "no version row", before: `CREATE SCHEMA {S}; CREATE TABLE {S}.schema_version (version integer)`,
			err: "without a version this program knows (none)"},
		{name: "another program's tables", before: `CREATE SCHEMA {S}; CREATE TABLE {S}.sessions (x int)`,
			err: `creating the tables of schema`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			schema := testSchema(t, dsn)
			if tt.before != "" {
				admin(t, dsn, strings.ReplaceAll(tt.before, "{S}", pgx.Identifier{schema}.Sanitize()))
			}
			st, err := Open(ctx, withSchema(dsn, schema))
			if tt.err != "" {
				require.ErrorContains(t, err, tt.err)
				assert.Contains(t, err.Error(), schema, "the error names the schema")
				return
			}
			require.NoError(t, err)
			require.NoError(t, st.Close())
			st, err = Open(ctx, withSchema(dsn, schema))
			require.NoError(t, err, "opening it again")
			var v int
			require.NoError(t, st.(*pgStore).pool.QueryRow(ctx, st.(*pgStore).q(`SELECT version FROM S.schema_version`)).Scan(&v))
			assert.Equal(t, schemaVersion, v)
			require.NoError(t, st.Close())
		})
	}
}

func TestOpenBadSchemaName(t *testing.T) {
	tests := []struct{ name, want string }{
		{strings.Repeat("s", 64), "is not a PostgreSQL name"},
		{"a\x00b", "forbidden NUL byte"}, // no DSN holds one
	}
	for _, tt := range tests {
		_, err := Open(context.Background(), withSchema(localDSN, tt.name))
		assert.ErrorContains(t, err, tt.want)
	}
}

// Processes that open a new store at once all get it, made once.
func TestOpenConcurrently(t *testing.T) {
	dsn := serverDSN(t)
	schema := testSchema(t, dsn)
	const openers = 4
	var wg sync.WaitGroup
	errs := make(chan error, openers)
	for range openers {
		wg.Go(func() {
			st, err := Open(context.Background(), withSchema(dsn, schema))
			if err == nil {
				err = st.Close()
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
}

func TestSynchronousCommit(t *testing.T) {
	dsn := serverDSN(t)
	for _, tt := range []struct{ dsn, want string }{
		{dsn, "on"},
		{withParam(dsn, "synchronous_commit", "remote_apply"), "remote_apply"},
	} {
		schema := testSchema(t, dsn)
		st, err := Open(context.Background(), withSchema(tt.dsn, schema))
		require.NoError(t, err)
		var got string
		require.NoError(t, st.(*pgStore).pool.QueryRow(context.Background(), `SHOW synchronous_commit`).Scan(&got))
		assert.Equal(t, tt.want, got)
		require.NoError(t, st.Close())
	}
}

const secret = "Sup3r-s3cret"

// No error of Open shows the DSN's password, however the DSN is wrong.
func TestOpenHidesPassword(t *testing.T) {
	tests := []struct {
		name, dsn string
		server    bool // the test needs the server
	}{
		{name: "a bad port", dsn: "postgres://u:" + secret + "@127.0.0.1:badport/db"},
		{name: "a bad pool setting", dsn: "postgres://u:" + secret + "@127.0.0.1/db?pool_max_conns=abc"},
		{name: "a bad escape", dsn: "postgres://u:" + secret + "%zz@127.0.0.1/db"},
		{name: "an unclosed IPv6 host", dsn: "postgres://u:" + secret + "@[::1/db"},
		{name: "an unescaped @", dsn: "postgres://u:" + secret + "@x@127.0.0.1:badport/db"},
		{name: "a slash", dsn: "postgres://u:" + secret + "/x@127.0.0.1:5432/db"},
		{name: "a quote", dsn: "postgres://u:" + secret + `"q@127.0.0.1:badport/db`},
		{name: "keyword/value", dsn: "host=127.0.0.1 password=" + secret + " port=badport"},
		{name: "keyword/value, quoted", dsn: "host=127.0.0.1 password='" + secret + " x' port=badport"},
		{name: "keyword/value, unclosed", dsn: "host=127.0.0.1 password='" + secret},
		{name: "an sslpassword", dsn: "postgres://u@127.0.0.1:badport/db?sslpassword=" + secret},
		{name: "no server there", dsn: "postgres://u:" + secret + "@127.0.0.1:1/db?connect_timeout=30"},
		{name: "no such database", server: true}, // on the test server
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.server {
				cfg, err := pgconn.ParseConfig(serverDSN(t))
				require.NoError(t, err)
				tt.dsn = fmt.Sprintf("postgres://%s:%s@%s/no_such_database", cfg.User, secret, net.JoinHostPort(cfg.Host, strconv.Itoa(int(cfg.Port))))
			}
			st, err := Open(context.Background(), tt.dsn)
			if err == nil {
				st.Close()
				t.Fatal("Open succeeded")
			}
			for _, shown := range []string{err.Error(), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", err)} {
				assert.NotContains(t, shown, "s3cret", "the error shows the password")
				assert.NotContains(t, shown, "s3cr", "the error shows part of the password")
			}
			var connectErr *pgconn.ConnectError
			var parseErr *pgconn.ParseConfigError
			assert.False(t, errors.As(err, &connectErr) || errors.As(err, &parseErr), "the error unwraps to one that holds the DSN or the configuration")
		})
	}
}

func TestOpenCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Open(ctx, "postgres://u:"+secret+"@127.0.0.1:1/db")
	require.Error(t, err)
	assert.ErrorIs(t, err, context.Canceled)
	assert.NotContains(t, err.Error(), "s3cret")
}
