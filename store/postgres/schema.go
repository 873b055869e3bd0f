package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// schemaVersion is the version of the tables this package writes. A
// schema of a later version is refused: a newer program wrote it.
const schemaVersion = 1

// tables creates the tables of version 1 in the schema named S.
//
// A session's internal key, not its id, is what its batches and
// checkpoints refer to: eight bytes a row rather than the id's text.
// sessions has no index on updated or on its tags, so that the update of
// seq and updated that every Append makes is a HOT update (no index
// touched; the fill factor leaves it room); List reads the table whole.
const tables = `
CREATE TABLE S.schema_version (
	only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
	version integer NOT NULL
);
CREATE TABLE S.sessions (
	key bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	id text NOT NULL UNIQUE,
	parent text REFERENCES S.sessions (id),
	fork_seq bigint NOT NULL CHECK (fork_seq >= 0),
	tags jsonb,
	created timestamptz NOT NULL,
	updated timestamptz NOT NULL,
	seq bigint NOT NULL CHECK (seq >= fork_seq)
) WITH (fillfactor = 50);
CREATE INDEX sessions_parent ON S.sessions (parent) WHERE parent IS NOT NULL;
CREATE TABLE S.batches (
	session bigint NOT NULL REFERENCES S.sessions (key) ON DELETE CASCADE,
	seq bigint NOT NULL,
	last bigint NOT NULL,
	time timestamptz NOT NULL,
	events bytea NOT NULL,
	PRIMARY KEY (session, seq)
);
CREATE TABLE S.checkpoints (
	session bigint NOT NULL REFERENCES S.sessions (key) ON DELETE CASCADE,
	seq bigint NOT NULL,
	state bytea NOT NULL,
	PRIMARY KEY (session, seq)
);
INSERT INTO S.schema_version (version) VALUES (1);
`

// checkSchema creates the schema and its tables when they are missing,
// and refuses a schema of another version. Several processes may open
// one store at once: the creation is one transaction under an advisory
// lock named after the schema.
func (s *pgStore) checkSchema(ctx context.Context) error {
	v, err := s.schemaVersion(ctx, s.pool)
	switch {
	case err == nil:
		return s.checkVersion(v)
	case !missingSchema(err):
		return fmt.Errorf("postgres: reading the version of schema %s: %w", s.schema, err)
	}
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("postgres: creating schema %s: %w", s.schema, err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck // after Commit it does nothing
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('offshoot store ' || $1))`, s.schema); err != nil {
		return fmt.Errorf("postgres: creating schema %s: %w", s.schema, err)
	}
	if _, err := tx.Exec(ctx, "CREATE SCHEMA IF NOT EXISTS "+s.quoted); err != nil {
		return fmt.Errorf("postgres: creating schema %s: %w", s.schema, err)
	}
	// Another process may have made the tables while this one waited.
	if _, err := tx.Exec(ctx, "SAVEPOINT probe"); err != nil {
		return fmt.Errorf("postgres: creating schema %s: %w", s.schema, err)
	}
	v, err = s.schemaVersion(ctx, tx)
	switch {
	case err == nil:
		if err := s.checkVersion(v); err != nil {
			return err
		}
		return tx.Commit(ctx)
	case !missingSchema(err):
		return fmt.Errorf("postgres: reading the version of schema %s: %w", s.schema, err)
	}
	if _, err := tx.Exec(ctx, "ROLLBACK TO SAVEPOINT probe"); err != nil {
		return fmt.Errorf("postgres: creating schema %s: %w", s.schema, err)
	}
	if _, err := tx.Exec(ctx, strings.ReplaceAll(tables, "S.", s.quoted+".")); err != nil {
		return fmt.Errorf("postgres: creating the tables of schema %s: %w", s.schema, err)
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("postgres: creating schema %s: %w", s.schema, err)
	}
	return nil
}

func (s *pgStore) schemaVersion(ctx context.Context, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}) (int, error) {
	var v int
	err := q.QueryRow(ctx, "SELECT version FROM "+s.quoted+".schema_version").Scan(&v)
	if errors.Is(err, pgx.ErrNoRows) {
		return -1, nil
	}
	return v, err
}

func (s *pgStore) checkVersion(v int) error {
	switch {
	case v > schemaVersion:
		return fmt.Errorf("postgres: schema %s holds the tables of version %d, and this program knows up to version %d: a newer version of it wrote them; upgrade this one, or use another schema", s.schema, v, schemaVersion)
	case v < 0:
		return fmt.Errorf("postgres: schema %s has a schema_version table without a version this program knows (none); is it another program's schema?", s.schema)
	case v < schemaVersion:
		return fmt.Errorf("postgres: schema %s has a schema_version table without a version this program knows (%d); is it another program's schema?", s.schema, v)
	}
	return nil
}

// missingSchema reports whether err says the schema or its version table
// does not exist.
func missingSchema(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && (pgErr.Code == "42P01" || pgErr.Code == "3F000") // undefined_table, invalid_schema_name
}
