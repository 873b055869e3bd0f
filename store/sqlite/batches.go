package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"iter"
	"math"

	"github.com/offshoot-dev/offshoot/store"
)

// Batches implements store.Store. It reads the rows one at a time, in one
// read transaction (a consistent view of the log, whatever writers do
// meanwhile), and decodes each as it yields it: reading a session holds
// one batch in memory, not the session.
//
// A row is untrusted: one whose events do not decode, whose seqs do not
// match its events or follow the row before it, or that is larger than a
// batch may be, ends the sequence with an error naming the session and
// the seq; so does a log that ends before the session's last seq.
func (s *Store) Batches(ctx context.Context, id string, after, upTo uint64) iter.Seq2[store.Batch, error] {
	return func(yield func(store.Batch, error) bool) {
		if err := s.read(ctx, func(tx *sql.Tx) error { return s.readBatches(ctx, tx, id, after, upTo, yield) }); err != nil {
			yield(store.Batch{}, err)
		}
	}
}

// readBatches yields the batches of session id in (after, upTo] and
// returns nil, or returns the error that ends them. It returns nil at
// once when yield returns false.
func (s *Store) readBatches(ctx context.Context, tx *sql.Tx, id string, after, upTo uint64, yield func(store.Batch, error) bool) error {
	sid, forkSeq, last, err := session(ctx, tx, id)
	if err != nil {
		return err
	}
	after, upTo = min(after, math.MaxInt64), min(upTo, math.MaxInt64)
	if upTo == 0 {
		upTo = math.MaxInt64
	}
	// The row that holds after+1 comes first, whole or not: the check
	// that rows follow each other starts there. Events are fetched only
	// for rows that are yielded and of a sane size.
	rows, err := tx.QueryContext(ctx, `SELECT seq, last, time, zone, octet_length(events),
			CASE WHEN seq > :after AND octet_length(events) <= :max THEN events END
		FROM batches WHERE sid = :sid AND last > :after AND last <= :upTo ORDER BY last`,
		sql.Named("after", int64(after)), sql.Named("max", maxBatchBytes), sql.Named("sid", sid), sql.Named("upTo", int64(upTo)))
	if err != nil {
		return fmt.Errorf("store/sqlite: reading the batches of session %s: %w", id, err)
	}
	defer rows.Close()
	name := func(id uint64) (string, error) { return s.types.name(ctx, tx, id) }
	// next is the seq the next row must start at; 0 while the first row
	// is to come, which may start anywhere from the fork to after+1.
	var next uint64
	for rows.Next() {
		var seq, end, zone, size int64
		var t sql.NullInt64
		var blob sql.RawBytes
		if err := rows.Scan(&seq, &end, &t, &zone, &size, &blob); err != nil {
			return fmt.Errorf("store/sqlite: reading the batches of session %s: %w", id, err)
		}
		if seq < 1 || end < seq {
			return damaged(id, seq, "its seqs run from %d to %d", seq, end)
		}
		b := store.Batch{Seq: uint64(seq)}
		switch {
		case b.Seq <= forkSeq:
			return damaged(id, seq, "the session was forked at seq %d, and its own batches start after it", forkSeq)
		case next == 0 && b.Seq > max(after, forkSeq)+1:
			return missing(id, max(after, forkSeq)+1, b.Seq)
		case next != 0 && b.Seq != next:
			return missing(id, next, b.Seq)
		}
		next = uint64(end) + 1
		if b.Seq <= after {
			continue // it holds after: its events were read before
		}
		if size > int64(maxBatchBytes) {
			return damaged(id, seq, "it takes %d bytes, more than the %d a batch may", size, maxBatchBytes)
		}
		if b.Events, err = decodeEvents(blob, name); err != nil {
			return damaged(id, seq, "%v", err)
		}
		if b.Last() != uint64(end) {
			return damaged(id, seq, "it holds %d events, but its last seq is %d", len(b.Events), end)
		}
		var ns *int64
		if t.Valid {
			ns = &t.Int64
		}
		b.Time = decodeTime(ns, int(zone))
		if err := ctx.Err(); err != nil {
			return err
		}
		if !yield(b, nil) {
			return nil
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("store/sqlite: reading the batches of session %s: %w", id, err)
	}
	// Unless upTo stopped it early, the log ends at the session's last seq.
	if upTo >= last {
		if next == 0 {
			next = max(after, forkSeq) + 1
		}
		if next <= last {
			return missing(id, next, last+1)
		}
	}
	return nil
}

// damaged is the error of a row that is not what Append wrote.
func damaged(id string, seq int64, format string, args ...any) error {
	return fmt.Errorf("store/sqlite: the batch at seq %d of session %s is damaged: %s", seq, id, fmt.Sprintf(format, args...))
}

// missing is the error of a log whose events from to to-1 have no row.
func missing(id string, from, to uint64) error {
	if to <= from {
		return fmt.Errorf("store/sqlite: the batches of session %s are damaged: a row starting at seq %d overlaps the one before it, which ends at %d", id, to, from-1)
	}
	return fmt.Errorf("store/sqlite: the batches of session %s are damaged: no row holds seq %d to %d", id, from, to-1)
}
