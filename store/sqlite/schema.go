package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	sqlite3 "modernc.org/sqlite"
	sqlite3lib "modernc.org/sqlite/lib"
)

// migrations[i] takes the schema from version i to version i+1; the
// current version is len(migrations). A later version of this package
// appends to it and never changes what is there.
var migrations = []string{
	// Version 1. A session's internal key (sid) is what its batches and
	// checkpoints refer to, so that its id is stored once. Seqs and
	// times are integers (times: nanoseconds since 1970, UTC; a batch's
	// zone is its offset east of UTC in seconds, and a NULL time the zero
	// time). A batch's events are one blob (codec.go) that names their
	// types by their ids in types; the batch is keyed by its last seq, so
	// that a read after a seq and a checkpoint's boundary are one seek.
	`CREATE TABLE schema_version (version INTEGER NOT NULL);
	CREATE TABLE sessions (
		sid      INTEGER PRIMARY KEY,
		id       TEXT NOT NULL UNIQUE,
		parent   TEXT REFERENCES sessions (id),
		fork_seq INTEGER NOT NULL,
		tags     TEXT CHECK (tags IS NULL OR json_valid(tags)),
		created  INTEGER NOT NULL,
		updated  INTEGER NOT NULL,
		seq      INTEGER NOT NULL
	);
	CREATE INDEX sessions_parent ON sessions (parent);
	CREATE INDEX sessions_updated ON sessions (updated);
	CREATE TABLE types (
		id   INTEGER PRIMARY KEY,
		name TEXT NOT NULL UNIQUE
	);
	CREATE TABLE batches (
		sid    INTEGER NOT NULL REFERENCES sessions (sid) ON DELETE CASCADE,
		last   INTEGER NOT NULL,
		seq    INTEGER NOT NULL,
		time   INTEGER,
		zone   INTEGER NOT NULL,
		events BLOB NOT NULL,
		PRIMARY KEY (sid, last)
	);
	CREATE TABLE checkpoints (
		sid   INTEGER NOT NULL REFERENCES sessions (sid) ON DELETE CASCADE,
		seq   INTEGER NOT NULL,
		state BLOB NOT NULL,
		PRIMARY KEY (sid, seq)
	);
	INSERT INTO schema_version (version) VALUES (0);`,
	// Version 2. No index on a session's last update: every append
	// moves it, so the index cost a page written per append, and listing
	// or pruning sorts the sessions instead.
	`DROP INDEX sessions_updated;`,
	// Version 3. A stored batch moves its session's last seq and time of
	// update itself, so that an append is one statement (one
	// transaction without BEGIN and COMMIT to run).
	advanceTrigger + ";",
}

// advanceTrigger moves a session's last seq and time of update when one of
// its batches is stored. The time is SQLite's clock, to the millisecond,
// never before the session's creation. It is the file's only trigger:
// checkTriggers refuses a file with another.
const advanceTrigger = `CREATE TRIGGER batches_advance AFTER INSERT ON batches BEGIN
		UPDATE sessions SET seq = NEW.last, updated = max(CAST(unixepoch('subsec') * 1e9 AS INTEGER), created)
		WHERE sid = NEW.sid;
	END`

// checkTriggers refuses a file whose triggers are not this store's own:
// a file may come with a cloned repository, and a trigger runs whatever
// SQL it holds at every append (a join of a table with itself a few
// times over would keep an append busy for hours).
func checkTriggers(ctx context.Context, tx rowsQuerier) error {
	rows, err := tx.QueryContext(ctx, "SELECT name, coalesce(sql, '') FROM sqlite_schema WHERE type = 'trigger' ORDER BY name")
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var name, text string
		if err := rows.Scan(&name, &text); err != nil {
			return err
		}
		if name != "batches_advance" || text != advanceTrigger {
			return fmt.Errorf("the database holds a trigger this store did not make (%q), which would run at every append: the file may come from elsewhere", name)
		}
	}
	return rows.Err()
}

// setup puts the file in write-ahead-log mode (a setting the file keeps)
// and migrates its schema. Two processes that set up a new file at once
// may find it busy without waiting (SQLite does not wait where waiting
// could deadlock): then setup tries again, for up to busyTimeout.
func (s *Store) setup(ctx context.Context) error {
	deadline := time.Now().Add(busyTimeout)
	for pause := time.Millisecond; ; pause = min(2*pause, 50*time.Millisecond) {
		err := s.migrate(ctx)
		if se, ok := errors.AsType[*sqlite3.Error](err); !ok || se.Code()&0xff != sqlite3lib.SQLITE_BUSY || time.Now().After(deadline) {
			return err
		}
		time.Sleep(pause)
	}
}

// migrate brings the file's schema to the current version, in one write
// transaction (so that two processes opening a new file do it once), and
// refuses a file it cannot use.
func (s *Store) migrate(ctx context.Context) error {
	// The journal mode is kept in the file: before changing it, make sure
	// that the file is this store's (or has no tables yet). A refused
	// file may be another program's, and is left as it was.
	if err := checkSchema(ctx, s.w); err != nil {
		if _, ok := errors.AsType[*sqlite3.Error](err); ok {
			return openError(s.path, err)
		}
		return fmt.Errorf("store/sqlite: %s: %w", s.path, err)
	}
	var mode string
	if err := s.w.QueryRowContext(ctx, "PRAGMA journal_mode = WAL").Scan(&mode); err != nil {
		return openError(s.path, err)
	}
	if !strings.EqualFold(mode, "wal") {
		return fmt.Errorf("store/sqlite: %s cannot use write-ahead logging (its journal mode stays %s); is it on a network file system?", s.path, mode)
	}
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return openError(s.path, err)
	}
	defer tx.Rollback()
	version, err := schemaVersion(ctx, tx)
	if err != nil {
		return fmt.Errorf("store/sqlite: %s: %w", s.path, err)
	}
	switch {
	case version > len(migrations):
		return fmt.Errorf("store/sqlite: %s: %w", s.path, newerSchema(version))
	case version == len(migrations):
		if err := checkTriggers(ctx, tx); err != nil {
			return fmt.Errorf("store/sqlite: %s: %w", s.path, err)
		}
		return nil
	}
	for v := version; v < len(migrations); v++ {
		if _, err := tx.ExecContext(ctx, migrations[v]); err != nil {
			return fmt.Errorf("store/sqlite: %s: migrating the schema to version %d: %w", s.path, v+1, err)
		}
	}
	if err := checkTriggers(ctx, tx); err != nil {
		return fmt.Errorf("store/sqlite: %s: %w", s.path, err)
	}
	if _, err := tx.ExecContext(ctx, "UPDATE schema_version SET version = ?", len(migrations)); err != nil {
		return fmt.Errorf("store/sqlite: %s: recording the schema version: %w", s.path, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store/sqlite: %s: committing the schema: %w", s.path, err)
	}
	return nil
}

// rowsQuerier is a database or a transaction, for queries of many rows.
type rowsQuerier interface {
	querier
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// checkSchema refuses a file this store cannot use — another program's
// tables, a newer schema, a damaged version, a trigger of another's —
// reading it only.
func checkSchema(ctx context.Context, q rowsQuerier) error {
	version, err := schemaVersion(ctx, q)
	switch {
	case err != nil:
		return err
	case version > len(migrations):
		return newerSchema(version)
	case version > 0:
		return checkTriggers(ctx, q)
	}
	return nil
}

// newerSchema is the error of a file of schema version, later than this
// package's.
func newerSchema(version int) error {
	return fmt.Errorf("it holds schema version %d, newer than this program's (%d): open it with a newer version of offshoot", version, len(migrations))
}

// schemaVersion reads the file's schema version: 0 for a file without
// tables; an error for one that holds another program's.
func schemaVersion(ctx context.Context, tx querier) (int, error) {
	var tables int
	var ours bool
	err := tx.QueryRowContext(ctx, `SELECT count(*), coalesce(max(name = 'schema_version'), 0)
		FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\_%' ESCAPE '\'`).Scan(&tables, &ours)
	if err != nil {
		return 0, err
	}
	if tables == 0 {
		return 0, nil
	}
	if !ours {
		return 0, errors.New("the database holds tables, but not this store's (it belongs to another program)")
	}
	var version int
	switch err := tx.QueryRowContext(ctx, "SELECT version FROM schema_version").Scan(&version); {
	case errors.Is(err, sql.ErrNoRows):
		return 0, errors.New("the store's schema version is missing (the file is damaged)")
	case err != nil:
		return 0, err
	case version < 1:
		return 0, fmt.Errorf("the store's schema version is %d (the file is damaged)", version)
	}
	return version, nil
}
