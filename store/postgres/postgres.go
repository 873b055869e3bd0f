package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"math"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/offshoot-dev/offshoot/store"
)

// Open connects to the PostgreSQL server named by dsn — a URL
// (postgres://user:password@host:5432/database?sslmode=verify-full) or
// keyword/value pairs (host=… user=… dbname=…), as pgx reads it, pool
// settings such as pool_max_conns included — creates the store's schema
// and tables when they are missing, and returns the store. It refuses a
// schema written by a newer version of this package. No error it returns
// shows a password.
//
// The DSN's offshoot_schema parameter names the PostgreSQL schema that
// holds the store's tables ("offshoot" when absent): stores in different
// schemas are separate.
//
// Its connections commit with synchronous_commit=on (a commit waits for
// the server's write-ahead log to reach its disk), unless dsn names
// another setting of synchronous_commit; see the package's Guarantees.
func Open(ctx context.Context, dsn string) (store.Store, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("postgres: the DSN: %w", passwordsOf(dsn, nil).redact(err))
	}
	params := cfg.ConnConfig.RuntimeParams
	schema, ok := params[schemaParam]
	delete(params, schemaParam) // the store's, not a setting of the server
	if !ok || schema == "" {
		schema = "offshoot"
	}
	if len(schema) > 63 || strings.ContainsRune(schema, 0) {
		return nil, fmt.Errorf("postgres: schema name %q is not a PostgreSQL name (at most 63 bytes, no NUL)", schema)
	}
	hide := passwordsOf(dsn, cfg.ConnConfig.Config.Copy())
	if _, ok := params["synchronous_commit"]; !ok && !strings.Contains(params["options"], "synchronous_commit") {
		params["synchronous_commit"] = "on"
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", hide.redact(err))
	}
	s := &pgStore{pool: pool, schema: schema, quoted: pgx.Identifier{schema}.Sanitize(), hide: hide}
	if err := s.checkSchema(ctx); err != nil {
		pool.Close()
		return nil, hide.redact(err)
	}
	return s, nil
}

// schemaParam is the DSN parameter that names the store's schema.
const schemaParam = "offshoot_schema"

// pgStore is a store.Store in a PostgreSQL schema.
type pgStore struct {
	pool   *pgxpool.Pool
	schema string // as given
	quoted string // as SQL names it
	hide   secrets
}

var _ store.Store = (*pgStore)(nil)

// q returns query with its tables named in the store's schema: "S." is
// the schema.
func (s *pgStore) q(query string) string { return strings.ReplaceAll(query, "S.", s.quoted+".") }

// fail wraps an error of the server or the driver.
func (s *pgStore) fail(err error, format string, args ...any) error {
	return s.hide.redact(fmt.Errorf("postgres: "+format+": %w", append(args, err)...))
}

func pgCode(err error) string {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Code
	}
	return ""
}

// seqArg returns seq as the server stores it, or an error when it is past
// what a bigint holds.
func seqArg(id string, seq uint64) (int64, error) {
	if seq > math.MaxInt64 {
		return 0, fmt.Errorf("postgres: seq %d of session %s is past the largest the store holds (%d)", seq, id, int64(math.MaxInt64))
	}
	return int64(seq), nil
}

// bound returns seq as a bigint, the largest one for 0 or past it.
func bound(seq uint64) int64 {
	if seq == 0 || seq > math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(seq)
}

// isText reports whether a text column holds v: valid UTF-8 without NUL.
// An id that is not cannot be stored, so it is not found.
func isText(v string) bool { return utf8.ValidString(v) && !strings.ContainsRune(v, 0) }

func notFound(id string) error { return fmt.Errorf("%w: %s", store.ErrNotFound, id) }

// Create implements store.Store.
func (s *pgStore) Create(ctx context.Context, h store.Header) error {
	if err := checkHeader(h); err != nil {
		return err
	}
	if !isText(h.ID) {
		return fmt.Errorf("postgres: session id %q is not text the store holds (valid UTF-8 without NUL bytes)", h.ID)
	}
	if !isText(h.Parent) {
		return fmt.Errorf("%w: %s, the parent of %s", store.ErrNotFound, h.Parent, h.ID)
	}
	for k, v := range h.Tags {
		if !isText(k) || !isText(v) {
			return fmt.Errorf("postgres: tag %q of session %s is not text the store holds (valid UTF-8 without NUL bytes)", k, h.ID)
		}
	}
	forkSeq, err := seqArg(h.ID, h.ForkSeq)
	if err != nil {
		return err
	}
	var parent, tags any
	if h.Parent != "" {
		parent = h.Parent
	}
	if len(h.Tags) > 0 {
		b, err := json.Marshal(h.Tags)
		if err != nil {
			return fmt.Errorf("postgres: the tags of session %s: %w", h.ID, err)
		}
		tags = string(b)
	}
	tag, err := s.pool.Exec(ctx, s.q(`
		INSERT INTO S.sessions (id, parent, fork_seq, tags, created, updated, seq)
		SELECT $1::text, $2::text, $3::bigint, $4::jsonb, now(), now(), $3::bigint
		WHERE $2::text IS NULL OR EXISTS (SELECT FROM S.sessions p WHERE p.id = $2::text AND p.seq >= $3::bigint)
		ON CONFLICT (id) DO NOTHING`), h.ID, parent, forkSeq, tags)
	switch {
	case pgCode(err) == "23503": // foreign_key_violation: the parent went meanwhile
		return fmt.Errorf("%w: %s, the parent of %s", store.ErrNotFound, h.Parent, h.ID)
	case err != nil:
		return s.fail(err, "create session %s", h.ID)
	case tag.RowsAffected() == 1:
		return nil
	}
	var exists bool
	var parentSeq *int64
	err = s.pool.QueryRow(ctx, s.q(`SELECT EXISTS (SELECT FROM S.sessions WHERE id = $1), (SELECT seq FROM S.sessions WHERE id = $2)`), h.ID, h.Parent).Scan(&exists, &parentSeq)
	switch {
	case err != nil:
		return s.fail(err, "create session %s", h.ID)
	case exists:
		return fmt.Errorf("%w: %s", store.ErrExists, h.ID)
	case parentSeq == nil:
		return fmt.Errorf("%w: %s, the parent of %s", store.ErrNotFound, h.Parent, h.ID)
	}
	return fmt.Errorf("store: %s forks %s at seq %d, past its last event (%d)", h.ID, h.Parent, h.ForkSeq, *parentSeq)
}

const headerColumns = `id, parent, fork_seq, tags, created, updated, seq`

// scanHeader reads a row of headerColumns.
func scanHeader(row pgx.Row) (store.Header, error) {
	var h store.Header
	var parent *string
	var forkSeq, seq int64
	var tags []byte
	if err := row.Scan(&h.ID, &parent, &forkSeq, &tags, &h.Created, &h.Updated, &seq); err != nil {
		return h, err
	}
	if forkSeq < 0 || seq < forkSeq {
		return h, fmt.Errorf("postgres: the header of session %s is damaged: fork seq %d, seq %d", h.ID, forkSeq, seq)
	}
	if parent != nil {
		h.Parent = *parent
	}
	h.ForkSeq, h.Seq = uint64(forkSeq), uint64(seq)
	if tags != nil {
		if err := json.Unmarshal(tags, &h.Tags); err != nil {
			return h, fmt.Errorf("postgres: the tags of session %s are damaged: %w", h.ID, err)
		}
		if len(h.Tags) == 0 {
			h.Tags = nil
		}
	}
	return h, nil
}

// Header implements store.Store.
func (s *pgStore) Header(ctx context.Context, id string) (store.Header, error) {
	if !isText(id) {
		return store.Header{}, notFound(id)
	}
	h, err := scanHeader(s.pool.QueryRow(ctx, s.q(`SELECT `+headerColumns+` FROM S.sessions WHERE id = $1`), id))
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return store.Header{}, notFound(id)
	case err != nil:
		return store.Header{}, s.fail(err, "read the header of session %s", id)
	}
	return h, nil
}

// Append implements store.Store: one statement, so one transaction,
// advances the session's seq from the one before the batch to its last
// and inserts the batch; the update's row lock orders concurrent writers,
// and a writer whose expected seq is no longer there updates nothing and
// so inserts nothing.
func (s *pgStore) Append(ctx context.Context, id string, b store.Batch) error {
	if err := checkBatch(id, b); err != nil {
		return err
	}
	if !isText(id) {
		return notFound(id)
	}
	if b.Last() < b.Seq {
		return fmt.Errorf("postgres: the batch at seq %d of session %s runs past the largest seq", b.Seq, id)
	}
	last, err := seqArg(id, b.Last())
	if err != nil {
		return err
	}
	if n := bodySize(b.Events); n > maxBatchBytes {
		return fmt.Errorf("postgres: the batch at seq %d of session %s is %d bytes encoded, over the store's bound of %d", b.Seq, id, n, maxBatchBytes)
	}
	events := encodeEvents(b.Events)
	tag, err := s.pool.Exec(ctx, s.q(`
		WITH s AS (
			UPDATE S.sessions SET seq = $4::bigint, updated = greatest(updated, now())
			WHERE id = $1::text AND seq = $2::bigint
			RETURNING key)
		INSERT INTO S.batches (session, seq, last, time, events)
		SELECT key, $3::bigint, $4::bigint, $5::timestamptz, $6::bytea FROM s`), id, int64(b.Seq-1), int64(b.Seq), last, b.Time, events)
	if err != nil {
		return s.fail(err, "append the batch at seq %d to session %s", b.Seq, id)
	}
	if tag.RowsAffected() == 1 {
		return nil
	}
	var seq int64
	err = s.pool.QueryRow(ctx, s.q(`SELECT seq FROM S.sessions WHERE id = $1`), id).Scan(&seq)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return notFound(id)
	case err != nil:
		return s.fail(err, "append the batch at seq %d to session %s", b.Seq, id)
	}
	return conflict(id, uint64(seq), b.Seq)
}

// firstPage and maxPage bound how many batches one query reads: pages
// grow from the first to the largest, so that a reader that stops after a
// few batches has read few, and one that reads a long log pays few round
// trips. A reader stopping within a page drains that page's rows.
const (
	firstPage = 16
	maxPage   = 1024
)

// Batches implements store.Store. It reads the log a page of batches at a
// time, up to the session's seq when it starts (later appends are not
// read), and checks that the batches follow one another from the fork to
// that seq: a missing or damaged batch is an error naming the session and
// the seq, never a shorter history.
func (s *pgStore) Batches(ctx context.Context, id string, after, upTo uint64) iter.Seq2[store.Batch, error] {
	return func(yield func(store.Batch, error) bool) {
		if !isText(id) {
			yield(store.Batch{}, notFound(id))
			return
		}
		var key, forkSeq, seq int64
		err := s.pool.QueryRow(ctx, s.q(`SELECT key, fork_seq, seq FROM S.sessions WHERE id = $1`), id).Scan(&key, &forkSeq, &seq)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			yield(store.Batch{}, notFound(id))
			return
		case err != nil:
			yield(store.Batch{}, s.fail(err, "read the batches of session %s", id))
			return
		}
		end := min(seq, bound(upTo))
		if after >= uint64(end) || end <= forkSeq {
			return // nothing to read
		}
		r := &reader{id: id, after: int64(after), end: end, forkSeq: forkSeq, names: map[string]string{}}
		for page := int64(firstPage); ; page = min(2*page, maxPage) {
			n, done, err := s.page(ctx, key, r, page, yield)
			if err != nil {
				yield(store.Batch{}, err)
				return
			}
			if done {
				return
			}
			if n < page {
				if err := r.finish(); err != nil {
					yield(store.Batch{}, err)
				}
				return
			}
		}
	}
}

// reader is where a read of a session's log is.
type reader struct {
	id      string
	after   int64 // the seq the reader starts after
	end     int64 // the last seq the reader may yield
	forkSeq int64
	prev    int64 // the last seq of the last row read (0: none yet)
	names   map[string]string
}

// page reads up to n rows after r.prev and yields those in range. done
// is true when the reader stopped, or the log reached r.end.
func (s *pgStore) page(ctx context.Context, key int64, r *reader, n int64, yield func(store.Batch, error) bool) (rowsRead int64, done bool, err error) {
	rows, err := s.pool.Query(ctx, s.q(`
		SELECT seq, last, time, CASE WHEN octet_length(events) <= $5 THEN events END, octet_length(events)
		FROM S.batches
		WHERE session = $1
			AND seq >= coalesce((SELECT max(b.seq) FROM S.batches b WHERE b.session = $1 AND b.seq <= $2), 0)
			AND seq > $3 AND seq <= $4
		ORDER BY seq
		LIMIT $6`), key, r.after, r.prev, r.end, maxBatchBytes+frameSlack, n)
	if err != nil {
		return 0, false, s.fail(err, "read the batches of session %s", r.id)
	}
	defer rows.Close()
	var (
		seq, last, size int64
		at              time.Time
		events          []byte
	)
	for rows.Next() {
		if err := ctx.Err(); err != nil {
			return rowsRead, false, err
		}
		rowsRead++
		events = nil
		if err := rows.Scan(&seq, &last, &at, &events, &size); err != nil {
			return rowsRead, false, s.fail(err, "read the batch at seq %d of session %s", seq, r.id)
		}
		if err := r.follows(seq, last); err != nil {
			return rowsRead, false, err
		}
		r.prev = last
		if seq <= r.after {
			continue // the batch that spans r.after, or ends at it
		}
		if last > r.end {
			return rowsRead, true, nil // the batch that spans upTo
		}
		if events == nil {
			return rowsRead, false, r.damaged(seq, fmt.Errorf("its events are %d bytes, over the store's bound of %d", size, maxBatchBytes+frameSlack))
		}
		decoded, err := decodeEvents(events, uint64(last-seq+1), r.names)
		if err != nil {
			return rowsRead, false, r.damaged(seq, err)
		}
		if !yield(store.Batch{Seq: uint64(seq), Time: at, Events: decoded}, nil) {
			return rowsRead, true, nil
		}
		if last == r.end {
			return rowsRead, true, nil
		}
	}
	if err := rows.Err(); err != nil {
		return rowsRead, false, s.fail(err, "read the batches of session %s after seq %d", r.id, r.prev)
	}
	return rowsRead, false, nil
}

// follows checks that a row of seqs seq to last follows the rows read.
func (r *reader) follows(seq, last int64) error {
	switch {
	case last < seq:
		return r.damaged(seq, fmt.Errorf("it ends at seq %d, before it starts", last))
	case r.prev == 0 && seq <= r.forkSeq:
		return r.damaged(seq, fmt.Errorf("the session was forked at seq %d, and its own batches start after it", r.forkSeq))
	case r.prev == 0 && seq > max(r.after, r.forkSeq)+1:
		return r.missing(max(r.after, r.forkSeq)+1, seq)
	case r.prev != 0 && seq != r.prev+1:
		return r.missing(r.prev+1, seq)
	}
	return nil
}

// finish checks, when the log's rows are read, that they reached r.end.
func (r *reader) finish() error {
	if r.prev == 0 {
		return r.missing(max(r.after, r.forkSeq)+1, 0)
	}
	if r.prev < r.end {
		return r.missing(r.prev+1, 0)
	}
	return nil
}

func (r *reader) damaged(seq int64, err error) error {
	return fmt.Errorf("postgres: the batch at seq %d of session %s is damaged: %w", seq, r.id, err)
}

// missing says that the row of seq want is not stored; next is the seq
// of the row found instead (0: none).
func (r *reader) missing(want, next int64) error {
	if next == 0 {
		return fmt.Errorf("postgres: session %s ends at seq %d, and its log holds no batch at seq %d: the store is damaged, or the session was deleted while it was read", r.id, r.end, want)
	}
	return fmt.Errorf("postgres: the log of session %s holds no batch at seq %d (the next starts at seq %d): the store is damaged", r.id, want, next)
}

// PutCheckpoint implements store.Store.
func (s *pgStore) PutCheckpoint(ctx context.Context, id string, c store.Checkpoint) error {
	if !isText(id) {
		return notFound(id)
	}
	if c.Seq > math.MaxInt64 {
		if _, err := s.Header(ctx, id); err != nil {
			return err
		}
		return notABoundary(id, c.Seq)
	}
	if n := len(c.State); n > maxCheckpointBytes {
		return fmt.Errorf("postgres: the checkpoint at seq %d of session %s is %d bytes, over the store's bound of %d", c.Seq, id, n, maxCheckpointBytes)
	}
	tag, err := s.pool.Exec(ctx, s.q(`
		INSERT INTO S.checkpoints (session, seq, state)
		SELECT s.key, $2::bigint, $3::bytea FROM S.sessions s
		WHERE s.id = $1::text AND (s.fork_seq = $2::bigint OR
			(SELECT b.last FROM S.batches b WHERE b.session = s.key AND b.seq <= $2::bigint ORDER BY b.seq DESC LIMIT 1) = $2::bigint)
		ON CONFLICT (session, seq) DO UPDATE SET state = excluded.state`), id, int64(c.Seq), encodeState(c.State))
	switch {
	case err != nil:
		return s.fail(err, "put the checkpoint at seq %d of session %s", c.Seq, id)
	case tag.RowsAffected() == 1:
		// The earlier ones go; should this fail, one stays behind, unread.
		if _, err := s.pool.Exec(ctx, s.q(`DELETE FROM S.checkpoints c USING S.sessions s
			WHERE s.id = $1::text AND c.session = s.key AND c.seq < $2::bigint`), id, int64(c.Seq)); err != nil {
			return s.fail(err, "drop the checkpoints of session %s before seq %d", id, c.Seq)
		}
		return nil
	}
	if _, err := s.Header(ctx, id); err != nil {
		return err
	}
	return notABoundary(id, c.Seq)
}

// Checkpoint implements store.Store.
func (s *pgStore) Checkpoint(ctx context.Context, id string, upTo uint64) (store.Checkpoint, bool, error) {
	if !isText(id) {
		return store.Checkpoint{}, false, notFound(id)
	}
	var seq, size *int64
	var state []byte
	err := s.pool.QueryRow(ctx, s.q(`
		SELECT c.seq, CASE WHEN octet_length(c.state) <= $3 THEN c.state END, octet_length(c.state)
		FROM S.sessions s LEFT JOIN LATERAL (
			SELECT seq, state FROM S.checkpoints WHERE session = s.key AND seq <= $2 ORDER BY seq DESC LIMIT 1
		) c ON true
		WHERE s.id = $1`), id, bound(upTo), maxCheckpointBytes+frameSlack).Scan(&seq, &state, &size)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return store.Checkpoint{}, false, notFound(id)
	case err != nil:
		return store.Checkpoint{}, false, s.fail(err, "read a checkpoint of session %s", id)
	case seq == nil:
		return store.Checkpoint{}, false, nil
	case *seq < 0:
		return store.Checkpoint{}, false, fmt.Errorf("postgres: a checkpoint of session %s is damaged: its seq is %d", id, *seq)
	case state == nil:
		return store.Checkpoint{}, false, fmt.Errorf("postgres: the checkpoint at seq %d of session %s is damaged: it is %d bytes, over the store's bound of %d", *seq, id, *size, maxCheckpointBytes+frameSlack)
	}
	decoded, err := decodeState(state)
	if err != nil {
		return store.Checkpoint{}, false, fmt.Errorf("postgres: the checkpoint at seq %d of session %s is damaged: %w", *seq, id, err)
	}
	return store.Checkpoint{Seq: uint64(*seq), State: decoded}, true, nil
}

// SetTags implements store.Store.
func (s *pgStore) SetTags(ctx context.Context, id string, tags map[string]string) error {
	if err := checkHeader(store.Header{ID: id, Tags: tags}); err != nil {
		return err
	}
	if !isText(id) {
		return notFound(id)
	}
	for k, v := range tags {
		if !isText(k) || !isText(v) {
			return fmt.Errorf("postgres: tag %q of session %s is not text the store holds (valid UTF-8 without NUL bytes)", k, id)
		}
	}
	var value any
	if len(tags) > 0 {
		b, err := json.Marshal(tags)
		if err != nil {
			return fmt.Errorf("postgres: the tags of session %s: %w", id, err)
		}
		value = string(b)
	}
	tag, err := s.pool.Exec(ctx, s.q(`UPDATE S.sessions SET tags = $2::jsonb WHERE id = $1`), id, value)
	switch {
	case err != nil:
		return s.fail(err, "set the tags of session %s", id)
	case tag.RowsAffected() == 0:
		return notFound(id)
	}
	return nil
}

// List implements store.Store.
func (s *pgStore) List(ctx context.Context, q store.Query) ([]store.Header, error) {
	if !isText(q.Parent) || !isText(q.IDPrefix) {
		return nil, nil // no session has it
	}
	for k, v := range q.Tags {
		if !isText(k) || !isText(v) {
			return nil, nil
		}
	}
	var where []string
	var args []any
	arg := func(v any) string {
		args = append(args, v)
		return fmt.Sprintf("$%d", len(args))
	}
	if q.Parent != "" {
		where = append(where, "parent = "+arg(q.Parent))
	}
	if len(q.Tags) > 0 {
		b, err := json.Marshal(q.Tags)
		if err != nil {
			return nil, fmt.Errorf("postgres: the query's tags: %w", err)
		}
		where = append(where, "tags @> "+arg(string(b))+"::jsonb")
	}
	if !q.UpdatedBefore.IsZero() {
		where = append(where, "updated < "+arg(q.UpdatedBefore))
	}
	if q.Roots {
		where = append(where, "parent IS NULL")
	}
	if q.IDPrefix != "" {
		where = append(where, "starts_with(id, "+arg(q.IDPrefix)+")")
	}
	query := `SELECT ` + headerColumns + ` FROM S.sessions`
	if len(where) > 0 {
		query += " WHERE " + strings.Join(where, " AND ")
	}
	query += ` ORDER BY updated DESC, id COLLATE "C"`
	if q.Limit > 0 {
		query += " LIMIT " + arg(q.Limit)
	}
	rows, err := s.pool.Query(ctx, s.q(query), args...)
	if err != nil {
		return nil, s.fail(err, "list sessions")
	}
	defer rows.Close()
	var out []store.Header
	for rows.Next() {
		h, err := scanHeader(rows)
		if err != nil {
			return nil, s.fail(err, "list sessions")
		}
		out = append(out, h)
	}
	if err := rows.Err(); err != nil {
		return nil, s.fail(err, "list sessions")
	}
	return out, nil
}

// Delete implements store.Store. The batches and checkpoints go with the
// header (ON DELETE CASCADE); a fork's reference to its parent keeps the
// parent (a foreign key, so no fork can be created meanwhile).
func (s *pgStore) Delete(ctx context.Context, id string) error {
	if !isText(id) {
		return notFound(id)
	}
	tag, err := s.pool.Exec(ctx, s.q(`DELETE FROM S.sessions WHERE id = $1`), id)
	switch {
	case pgCode(err) == "23503": // foreign_key_violation: a fork refers to it
		var child string
		if err := s.pool.QueryRow(ctx, s.q(`SELECT id FROM S.sessions WHERE parent = $1 ORDER BY id COLLATE "C" LIMIT 1`), id).Scan(&child); err != nil {
			return fmt.Errorf("%w (%s)", store.ErrHasChildren, id)
		}
		return fmt.Errorf("%w (%s has %s)", store.ErrHasChildren, id, child)
	case err != nil:
		return s.fail(err, "delete session %s", id)
	case tag.RowsAffected() == 0:
		return notFound(id)
	}
	return nil
}

// Close implements store.Store: it closes the store's connections, after
// waiting for those in use.
func (s *pgStore) Close() error {
	s.pool.Close()
	return nil
}
