package sqlite

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/offshoot-dev/offshoot/store"
	"github.com/offshoot-dev/offshoot/store/internal/deflate"
)

// A batch's events are stored as one blob, in this form (every number an
// unsigned varint):
//
//	format (1 byte): eventsFormat, or deflatedFormat for the rest deflated
//	N, then N events, each its type's id and its data's length and bytes
//
// A type's id is its row in the table types, which holds each type name
// once for the whole file (names are long: a Go package path and a type
// name), so that an event costs its data plus three to five bytes.
//
// The rest is deflated when that saves an eighth of it (deflate.Append):
// a conversation's text takes about half its bytes. A checkpoint's state
// is stored as it is (JSON), or as deflatedFormat and the state deflated:
// JSON never starts with that byte.
const (
	eventsFormat   = 1
	deflatedFormat = 2
)

// maxBatchBytes bounds a batch's encoded events: Append refuses a batch
// larger than this, and a stored row larger than this is damaged. A var so
// that tests can lower it.
var maxBatchBytes = 64 << 20

// maxCheckpointBytes bounds a checkpoint's state, the same way.
var maxCheckpointBytes = 512 << 20

// encodeEvents encodes events in the form above; ids holds the id of
// every event's type. It returns the blob and the size of the events
// before they were deflated, which a reader must allocate.
func encodeEvents(events []store.Event, ids map[string]uint64) ([]byte, int) {
	size := 1 + binary.MaxVarintLen64
	for _, e := range events {
		size += 2*binary.MaxVarintLen64 + len(e.Data)
	}
	buf := make([]byte, 0, size)
	buf = append(buf, eventsFormat)
	buf = binary.AppendUvarint(buf, uint64(len(events)))
	for _, e := range events {
		buf = binary.AppendUvarint(buf, ids[e.Type])
		buf = binary.AppendUvarint(buf, uint64(len(e.Data)))
		buf = append(buf, e.Data...)
	}
	if packed, ok := deflate.Append([]byte{deflatedFormat}, buf[1:]); ok {
		return packed, len(buf)
	}
	return buf, len(buf)
}

// encodeState returns what a checkpoint's row holds for state.
func encodeState(state []byte) []byte {
	if packed, ok := deflate.Append([]byte{deflatedFormat}, state); ok {
		return packed
	}
	if state == nil {
		return []byte{}
	}
	return state
}

// decodeState returns the state a checkpoint's row holds.
func decodeState(row []byte) ([]byte, error) {
	if len(row) > 0 && row[0] == deflatedFormat {
		return deflate.Read(row[1:], maxCheckpointBytes)
	}
	return row, nil
}

// uvarint reads a number from the start of *buf, and refuses one larger
// than limit(the bytes that remain after it).
func uvarint(buf *[]byte, limit func(rest int) int) (int, error) {
	v, n := binary.Uvarint(*buf)
	if n <= 0 {
		return 0, errors.New("a truncated or overlong number")
	}
	*buf = (*buf)[n:]
	if l := limit(len(*buf)); v > uint64(l) {
		return 0, fmt.Errorf("%d, more than the %d the rest of the row allows", v, l)
	}
	return int(v), nil
}

// Every event takes at least two bytes (its type and its length); its
// data, at most what remains.
func perEvent(rest int) int { return rest / 2 }
func whole(rest int) int    { return rest }

// decodeEvents decodes a blob encodeEvents wrote; name gives the type
// name of an id. The events' data are copies: they share no memory with
// blob.
func decodeEvents(blob []byte, name func(id uint64) (string, error)) ([]store.Event, error) {
	if len(blob) == 0 {
		return nil, errors.New("the events are empty")
	}
	buf := blob[1:]
	switch blob[0] {
	case eventsFormat:
	case deflatedFormat:
		var err error
		if buf, err = deflate.Read(buf, maxBatchBytes); err != nil {
			return nil, fmt.Errorf("the events: %w", err)
		}
	default:
		return nil, fmt.Errorf("the events are in an unknown format (%d)", blob[0])
	}
	n, err := uvarint(&buf, perEvent)
	if err != nil {
		return nil, fmt.Errorf("the number of events: %w", err)
	}
	if n == 0 {
		return nil, errors.New("the batch has no events")
	}
	events := make([]store.Event, n)
	// One allocation holds every event's data; each event gets its own
	// capped slice of it, so that appending to one never reaches the next.
	data := make([]byte, 0, len(buf))
	for i := range events {
		v, k := binary.Uvarint(buf)
		if k <= 0 {
			return nil, fmt.Errorf("the type of event %d: a truncated or overlong number", i)
		}
		buf = buf[k:]
		if events[i].Type, err = name(v); err != nil {
			return nil, fmt.Errorf("event %d: %w", i, err)
		}
		size, err := uvarint(&buf, whole)
		if err != nil {
			return nil, fmt.Errorf("the length of event %d: %w", i, err)
		}
		start := len(data)
		data = append(data, buf[:size]...)
		buf = buf[size:]
		events[i].Data = data[start:len(data):len(data)]
	}
	if len(buf) != 0 {
		return nil, fmt.Errorf("%d bytes follow the last event", len(buf))
	}
	return events, nil
}

// Times are stored as nanoseconds since 1970 (UTC) and the offset east of
// UTC in seconds, so that a batch's time reads back as the same instant
// printed the same way. The zero time is stored as NULL.
var (
	minTime = time.Unix(0, math.MinInt64)
	maxTime = time.Unix(0, math.MaxInt64)
)

// encodeTime returns the column values of t, or an error when t is outside
// the years 1678 to 2262, which nanoseconds in 64 bits cannot hold.
func encodeTime(t time.Time) (ns *int64, zone int, err error) {
	if t.IsZero() {
		return nil, 0, nil
	}
	if t.Before(minTime) || t.After(maxTime) {
		return nil, 0, fmt.Errorf("the time %v is outside the years 1678 to 2262, which the store can hold", t)
	}
	v := t.UnixNano()
	_, zone = t.Zone()
	return &v, zone, nil
}

// decodeTime is the inverse of encodeTime: the time is in the local zone
// when the stored offset is the local one at that instant, else UTC or a
// fixed zone of that offset.
func decodeTime(ns *int64, zone int) time.Time {
	if ns == nil {
		return time.Time{}
	}
	t := time.Unix(0, *ns)
	if _, off := t.Zone(); off == zone {
		return t
	}
	if zone == 0 {
		return t.UTC()
	}
	return t.In(time.FixedZone("", zone))
}

// clampNanos returns t as nanoseconds since 1970, clamped to what int64
// holds (for comparisons with stored times).
func clampNanos(t time.Time) int64 {
	switch {
	case t.Before(minTime):
		return math.MinInt64
	case t.After(maxTime):
		return math.MaxInt64
	}
	return t.UnixNano()
}
