package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	sqlite3 "modernc.org/sqlite"
	sqlite3lib "modernc.org/sqlite/lib"

	"github.com/offshoot-dev/offshoot/store"
)

// Store is a store.Store in an SQLite database file. It is safe for
// concurrent use, and several processes may use the same file. Make one
// with Open; Close it when done.
type Store struct {
	path string
	w    *sql.DB // one connection: every write transaction
	r    *sql.DB // read-only connections
	now  func() time.Time

	// Append's statement, prepared once on the write connection.
	append *sql.Stmt

	types typeCache
	wal   *walCheckpointer
}

var _ store.Store = (*Store)(nil)

// Create implements store.Store.
func (s *Store) Create(ctx context.Context, h store.Header) error {
	if err := store.CheckHeader(h); err != nil {
		return err
	}
	var tags, parent any
	if len(h.Tags) > 0 {
		b, err := json.Marshal(h.Tags)
		if err != nil {
			return fmt.Errorf("store/sqlite: the tags of session %s: %w", h.ID, err)
		}
		tags = string(b)
	}
	if h.Parent != "" {
		parent = h.Parent
	}
	return s.write(ctx, "creating session "+h.ID, func(tx *sql.Tx) error {
		var taken bool
		if err := tx.QueryRowContext(ctx, "SELECT EXISTS (SELECT 1 FROM sessions WHERE id = ?)", h.ID).Scan(&taken); err != nil {
			return err
		}
		if taken {
			return refuse("%w: %s", store.ErrExists, h.ID)
		}
		if h.Parent != "" {
			var last int64
			switch err := tx.QueryRowContext(ctx, "SELECT seq FROM sessions WHERE id = ?", h.Parent).Scan(&last); {
			case errors.Is(err, sql.ErrNoRows):
				return refuse("%w: %s, the parent of %s", store.ErrNotFound, h.Parent, h.ID)
			case err != nil:
				return err
			case h.ForkSeq > uint64(last):
				return refuse("store: %s forks %s at seq %d, past its last event (%d)", h.ID, h.Parent, h.ForkSeq, last)
			}
		}
		now := s.now().UnixNano()
		_, err := tx.ExecContext(ctx, `INSERT INTO sessions (id, parent, fork_seq, tags, created, updated, seq)
			VALUES (?, ?, ?, ?, ?, ?, ?)`, h.ID, parent, int64(h.ForkSeq), tags, now, now, int64(h.ForkSeq))
		return err
	})
}

// Header implements store.Store.
func (s *Store) Header(ctx context.Context, id string) (store.Header, error) {
	row := s.r.QueryRowContext(ctx, `SELECT `+headerColumns+` FROM sessions WHERE id = ?`, id)
	h, err := scanHeader(row.Scan)
	if errors.Is(err, sql.ErrNoRows) {
		return store.Header{}, fmt.Errorf("%w: %s", store.ErrNotFound, id)
	}
	if r, ok := errors.AsType[refusal](err); ok {
		return store.Header{}, r.err
	}
	if err != nil {
		return store.Header{}, fmt.Errorf("store/sqlite: reading session %s: %w", id, err)
	}
	return h, nil
}

// headerColumns are a session's columns but those a hostile file could
// make larger than a store keeps (an id, tags), which are NULL then, and
// the sizes of those.
var headerColumns = fmt.Sprintf(`CASE WHEN octet_length(id) <= %[1]d THEN id END, octet_length(id),
	CASE WHEN octet_length(parent) <= %[1]d THEN coalesce(parent, '') END, coalesce(octet_length(parent), 0),
	fork_seq, CASE WHEN octet_length(tags) <= %[2]d THEN tags END, coalesce(octet_length(tags), 0),
	created, updated, seq`, store.MaxIDBytes, store.MaxTagsBytes)

// scanHeader reads the headerColumns of a row. A damaged one is a
// refusal, saying so.
func scanHeader(scan func(...any) error) (store.Header, error) {
	var h store.Header
	var id, parent, tags sql.NullString
	var idSize, parentSize, tagsSize, forkSeq, created, updated, seq int64
	if err := scan(&id, &idSize, &parent, &parentSize, &forkSeq, &tags, &tagsSize, &created, &updated, &seq); err != nil {
		return h, err
	}
	h.ID, h.Parent = id.String, parent.String
	switch {
	case idSize > store.MaxIDBytes:
		return h, refuse("store/sqlite: a session is damaged: its id takes %d bytes, more than the %d an id may", idSize, store.MaxIDBytes)
	case parentSize > store.MaxIDBytes:
		return h, refuse("store/sqlite: session %s is damaged: the id of its parent takes %d bytes, more than the %d an id may", h.ID, parentSize, store.MaxIDBytes)
	case tagsSize > store.MaxTagsBytes:
		return h, refuse("store/sqlite: session %s is damaged: its tags take %d bytes, more than the %d a session's tags may", h.ID, tagsSize, store.MaxTagsBytes)
	case forkSeq < 0 || seq < forkSeq:
		return h, refuse("store/sqlite: session %s is damaged: its fork seq is %d and its last seq %d", h.ID, forkSeq, seq)
	}
	if tags.Valid {
		if err := json.Unmarshal([]byte(tags.String), &h.Tags); err != nil {
			return h, refuse("store/sqlite: session %s is damaged: its tags: %w", h.ID, err)
		}
	}
	h.ForkSeq, h.Seq = uint64(forkSeq), uint64(seq)
	h.Created, h.Updated = time.Unix(0, created), time.Unix(0, updated)
	return h, nil
}

// Append implements store.Store: one statement (its own transaction)
// that stores the batch if the session's last seq is b.Seq-1 — a trigger
// then moves it to b.Last() — or writes nothing, and then finds out why.
// A batch with an event type the store has not seen yet stores the
// type's name first, in the same transaction.
func (s *Store) Append(ctx context.Context, id string, b store.Batch) error {
	if err := checkBatch(id, b); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	ns, zone, err := encodeTime(b.Time)
	if err != nil {
		return fmt.Errorf("store/sqlite: the batch at seq %d of session %s: %w", b.Seq, id, err)
	}
	op := fmt.Sprintf("appending the batch at seq %d to session %s", b.Seq, id)
	ids, missing := s.types.lookup(b.Events)
	if len(missing) == 0 {
		events, size := encodeEvents(b.Events, ids)
		if size > maxBatchBytes {
			return tooLarge(id, b.Seq, size)
		}
		err := s.appendRow(ctx, s.w, s.append, id, b, ns, zone, events)
		if r, ok := errors.AsType[refusal](err); ok {
			return r.err
		}
		if err != nil {
			return fmt.Errorf("store/sqlite: %s: %w", op, err)
		}
		s.wal.wrote()
		return nil
	}
	err = s.write(ctx, op, func(tx *sql.Tx) error {
		if err := resolveTypes(ctx, tx, missing, ids); err != nil {
			return err
		}
		events, size := encodeEvents(b.Events, ids)
		if size > maxBatchBytes {
			return refusal{tooLarge(id, b.Seq, size)}
		}
		return s.appendRow(ctx, tx, tx.StmtContext(ctx, s.append), id, b, ns, zone, events)
	})
	if err == nil {
		s.types.add(ids)
	}
	return err
}

// appendRow runs Append's statement, and when it stored nothing, reads
// through q why: no such session, or another last seq (a conflict).
func (s *Store) appendRow(ctx context.Context, q querier, stmt *sql.Stmt, id string, b store.Batch, ns *int64, zone int, events []byte) error {
	res, err := stmt.ExecContext(ctx, int64(b.Last()), int64(b.Seq), ns, zone, events, id)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n == 1 {
		return err
	}
	var last int64
	switch err := q.QueryRowContext(ctx, "SELECT seq FROM sessions WHERE id = ?", id).Scan(&last); {
	case errors.Is(err, sql.ErrNoRows):
		return refuse("%w: %s", store.ErrNotFound, id)
	case err != nil:
		return err
	default:
		return refuse("%w: session %s ends at seq %d, and the batch starts at %d", store.ErrConflict, id, last, b.Seq)
	}
}

// querier is a database or a transaction.
type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func tooLarge(id string, seq uint64, size int) error {
	return fmt.Errorf("store/sqlite: the batch at seq %d of session %s takes %d bytes, more than the %d a batch may", seq, id, size, maxBatchBytes)
}

// checkBatch says what is wrong with a batch Append was given.
func checkBatch(id string, b store.Batch) error {
	if err := store.CheckBatch(id, b); err != nil {
		return err
	}
	if b.Last() > math.MaxInt64 || b.Last() < b.Seq {
		return fmt.Errorf("store/sqlite: the batch at seq %d of session %s ends past the largest seq the store holds (%d)", b.Seq, id, int64(math.MaxInt64))
	}
	return nil
}

// PutCheckpoint implements store.Store.
func (s *Store) PutCheckpoint(ctx context.Context, id string, c store.Checkpoint) error {
	if len(c.State) > maxCheckpointBytes {
		return fmt.Errorf("store/sqlite: the checkpoint at seq %d of session %s takes %d bytes, more than the %d a checkpoint may", c.Seq, id, len(c.State), maxCheckpointBytes)
	}
	state := encodeState(c.State)
	return s.write(ctx, fmt.Sprintf("storing the checkpoint at seq %d of session %s", c.Seq, id), func(tx *sql.Tx) error {
		var sid, forkSeq int64
		switch err := tx.QueryRowContext(ctx, "SELECT sid, fork_seq FROM sessions WHERE id = ?", id).Scan(&sid, &forkSeq); {
		case errors.Is(err, sql.ErrNoRows):
			return refuse("%w: %s", store.ErrNotFound, id)
		case err != nil:
			return err
		}
		if c.Seq != uint64(forkSeq) {
			var found bool
			err := tx.QueryRowContext(ctx, "SELECT EXISTS (SELECT 1 FROM batches WHERE sid = ? AND last = ?)", sid, int64(min(c.Seq, math.MaxInt64))).Scan(&found)
			if err != nil {
				return err
			}
			if !found || c.Seq > math.MaxInt64 {
				return refusal{fmt.Errorf("store: no batch of session %s ends at seq %d; a checkpoint goes where one does", id, c.Seq)}
			}
		}
		// The older checkpoints go first, so that the new one takes the
		// pages they free rather than growing the file.
		if _, err := tx.ExecContext(ctx, "DELETE FROM checkpoints WHERE sid = ? AND seq <= ?", sid, int64(c.Seq)); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO checkpoints (sid, seq, state) VALUES (?, ?, ?)`, sid, int64(c.Seq), state)
		return err
	})
}

// Checkpoint implements store.Store.
func (s *Store) Checkpoint(ctx context.Context, id string, upTo uint64) (store.Checkpoint, bool, error) {
	if upTo == 0 || upTo > math.MaxInt64 {
		upTo = math.MaxInt64
	}
	var c store.Checkpoint
	var found bool
	err := s.read(ctx, func(tx *sql.Tx) error {
		sid, _, _, err := session(ctx, tx, id)
		if err != nil {
			return err
		}
		var seq, size int64
		var state []byte
		err = tx.QueryRowContext(ctx, `SELECT seq, octet_length(state), CASE WHEN octet_length(state) <= ? THEN state END
			FROM checkpoints WHERE sid = ? AND seq <= ? ORDER BY seq DESC LIMIT 1`, maxCheckpointBytes, sid, int64(upTo)).Scan(&seq, &size, &state)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			return nil
		case err != nil:
			return fmt.Errorf("store/sqlite: reading a checkpoint of session %s: %w", id, err)
		case seq < 0:
			return fmt.Errorf("store/sqlite: a checkpoint of session %s is damaged: its seq is %d", id, seq)
		case size > int64(maxCheckpointBytes):
			return fmt.Errorf("store/sqlite: the checkpoint at seq %d of session %s is damaged: it takes %d bytes, more than the %d a checkpoint may", seq, id, size, maxCheckpointBytes)
		}
		if state, err = decodeState(state); err != nil {
			return fmt.Errorf("store/sqlite: the checkpoint at seq %d of session %s is damaged: %w", seq, id, err)
		}
		c, found = store.Checkpoint{Seq: uint64(seq), State: state}, true
		return nil
	})
	return c, found, err
}

// SetTags implements store.Store.
func (s *Store) SetTags(ctx context.Context, id string, tags map[string]string) error {
	if err := store.CheckHeader(store.Header{ID: id, Tags: tags}); err != nil {
		return err
	}
	var value any
	if len(tags) > 0 {
		b, err := json.Marshal(tags)
		if err != nil {
			return fmt.Errorf("store/sqlite: the tags of session %s: %w", id, err)
		}
		value = string(b)
	}
	return s.write(ctx, "setting the tags of session "+id, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, "UPDATE sessions SET tags = ? WHERE id = ?", value, id)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err == nil && n == 0 {
			return refuse("%w: %s", store.ErrNotFound, id)
		}
		return err
	})
}

// prefixEnd returns the least string above every string that starts
// with prefix, in SQLite's byte order; ok is false when there is none
// (prefix is all 0xff bytes).
func prefixEnd(prefix string) (end string, ok bool) {
	b := []byte(prefix)
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] < 0xff {
			b[i]++
			return string(b[:i+1]), true
		}
	}
	return "", false
}

// List implements store.Store.
func (s *Store) List(ctx context.Context, q store.Query) ([]store.Header, error) {
	var where []string
	var args []any
	if q.Parent != "" {
		where, args = append(where, "parent = ?"), append(args, q.Parent)
	}
	if !q.UpdatedBefore.IsZero() {
		where, args = append(where, "updated < ?"), append(args, clampNanos(q.UpdatedBefore))
	}
	if q.Roots {
		where = append(where, "coalesce(parent, '') = ''")
	}
	if q.IDPrefix != "" {
		where, args = append(where, "id >= ?"), append(args, q.IDPrefix)
		if end, ok := prefixEnd(q.IDPrefix); ok {
			where, args = append(where, "id < ?"), append(args, end)
		}
	}
	for k, v := range q.Tags {
		where = append(where, "EXISTS (SELECT 1 FROM json_each(sessions.tags) WHERE key = ? AND type = 'text' AND value = ?)")
		args = append(args, k, v)
	}
	query := "SELECT " + headerColumns + " FROM sessions"
	if len(where) > 0 {
		query += " WHERE " + strings.Join(where, " AND ")
	}
	query += " ORDER BY updated DESC, id"
	if q.Limit > 0 {
		query, args = query+" LIMIT ?", append(args, q.Limit)
	}
	rows, err := s.r.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("store/sqlite: listing sessions: %w", err)
	}
	defer rows.Close()
	var out []store.Header
	for rows.Next() {
		h, err := scanHeader(rows.Scan)
		if r, ok := errors.AsType[refusal](err); ok {
			return nil, r.err
		}
		if err != nil {
			return nil, fmt.Errorf("store/sqlite: listing sessions: %w", err)
		}
		out = append(out, h)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store/sqlite: listing sessions: %w", err)
	}
	return out, nil
}

// Delete implements store.Store; the session's batches and checkpoints go
// with its row.
func (s *Store) Delete(ctx context.Context, id string) error {
	return s.write(ctx, "deleting session "+id, func(tx *sql.Tx) error {
		var child string
		switch err := tx.QueryRowContext(ctx, "SELECT id FROM sessions WHERE parent = ? LIMIT 1", id).Scan(&child); {
		case err == nil:
			return refuse("%w (%s has %s)", store.ErrHasChildren, id, child)
		case !errors.Is(err, sql.ErrNoRows):
			return err
		}
		res, err := tx.ExecContext(ctx, "DELETE FROM sessions WHERE id = ?", id)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return refuse("%w: %s", store.ErrNotFound, id)
		}
		return nil
	})
}

// Check runs SQLite's integrity check and its foreign key check on the
// whole file, and returns an error that lists what they found, or nil
// when the file is sound. It reads every page, so it takes a while on a
// large file; use it after a crash or before trusting a copied file.
func (s *Store) Check(ctx context.Context) error {
	var problems []string
	err := s.read(ctx, func(tx *sql.Tx) error {
		var err error
		problems, err = pragmaRows(ctx, tx, "PRAGMA integrity_check(20)", func(scan func(...any) error) (string, error) {
			var msg string
			err := scan(&msg)
			if msg == "ok" {
				msg = ""
			}
			return msg, err
		})
		if err != nil || len(problems) > 0 {
			return err
		}
		problems, err = pragmaRows(ctx, tx, "PRAGMA foreign_key_check", func(scan func(...any) error) (string, error) {
			var table, parent string
			var rowid sql.NullInt64
			var fk int
			err := scan(&table, &rowid, &parent, &fk)
			return fmt.Sprintf("a row of %s refers to a missing row of %s", table, parent), err
		})
		return err
	})
	if se, ok := errors.AsType[*sqlite3.Error](err); ok && (se.Code()&0xff == sqlite3lib.SQLITE_CORRUPT || se.Code()&0xff == sqlite3lib.SQLITE_NOTADB) {
		return fmt.Errorf("store/sqlite: %s is damaged: %w", s.path, err)
	}
	if err != nil {
		return fmt.Errorf("store/sqlite: checking %s: %w", s.path, err)
	}
	if len(problems) > 0 {
		return fmt.Errorf("store/sqlite: %s is damaged: %s", s.path, strings.Join(problems, "; "))
	}
	return nil
}

// pragmaRows runs a checking pragma and returns what line makes of each
// of its rows, but empty ones.
func pragmaRows(ctx context.Context, tx *sql.Tx, pragma string, line func(scan func(...any) error) (string, error)) ([]string, error) {
	rows, err := tx.QueryContext(ctx, pragma)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		l, err := line(rows.Scan)
		if err != nil {
			return nil, err
		}
		if l != "" {
			out = append(out, l)
		}
	}
	return out, rows.Err()
}

// Close implements store.Store; close the store once its users are done
// with it.
func (s *Store) Close() error {
	return errors.Join(s.append.Close(), s.wal.close(), s.r.Close(), s.w.Close())
}

// write runs fn in a write transaction (BEGIN IMMEDIATE) and commits it,
// or rolls it back when fn fails. An error of the database is wrapped to
// say what failed (op); a refusal passes as the error it holds.
func (s *Store) write(ctx context.Context, op string, fn func(tx *sql.Tx) error) error {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store/sqlite: %s: %w", op, err)
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		if r, ok := errors.AsType[refusal](err); ok {
			return r.err
		}
		return fmt.Errorf("store/sqlite: %s: %w", op, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store/sqlite: %s: committing: %w", op, err)
	}
	s.wal.wrote()
	return nil
}

// refusal is an error a write transaction's function returns as its
// answer to the caller (ErrConflict, ErrNotFound…), as opposed to a
// failure of the database.
type refusal struct{ err error }

func (r refusal) Error() string { return r.err.Error() }

func refuse(format string, args ...any) error { return refusal{fmt.Errorf(format, args...)} }

// read runs fn in a read transaction: what it reads is one state of the
// file, whatever writers do meanwhile.
func (s *Store) read(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := s.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return fmt.Errorf("store/sqlite: %w", err)
	}
	defer tx.Rollback()
	return fn(tx)
}

// session reads a session's internal key, fork seq and last seq.
func session(ctx context.Context, tx *sql.Tx, id string) (sid int64, forkSeq, seq uint64, err error) {
	var f, l int64
	switch err := tx.QueryRowContext(ctx, "SELECT sid, fork_seq, seq FROM sessions WHERE id = ?", id).Scan(&sid, &f, &l); {
	case errors.Is(err, sql.ErrNoRows):
		return 0, 0, 0, fmt.Errorf("%w: %s", store.ErrNotFound, id)
	case err != nil:
		return 0, 0, 0, fmt.Errorf("store/sqlite: reading session %s: %w", id, err)
	case f < 0 || l < f:
		return 0, 0, 0, fmt.Errorf("store/sqlite: session %s is damaged: its fork seq is %d and its last seq %d", id, f, l)
	}
	return sid, uint64(f), uint64(l), nil
}

// appendSQL stores a batch when the session's last seq is the one before
// it; the trigger batches_advance (schema version 3) moves the session's
// last seq and time of update in the same statement.
const appendSQL = `INSERT INTO batches (sid, last, seq, time, zone, events)
	SELECT sid, ?1, ?2, ?3, ?4, ?5 FROM sessions WHERE id = ?6 AND seq = ?2 - 1`
