package postgres

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"

	"github.com/offshoot-dev/offshoot/store"
)

// A batch's events are stored as one bytea value:
//
//	format (1 byte, formatV1)
//	CRC-32C of the body (4 bytes, big endian)
//	body: uvarint event count, then for each event
//	      uvarint type length, the type's name (length 0: the previous
//	      event's type), uvarint data length, the data's bytes
//
// A checkpoint's state is stored as the format byte, the CRC-32C of the
// state, then the state's bytes. The data and the state are kept as they
// were given, byte for byte; the checksum makes any damage to a row an
// error rather than other events.
const formatV1 = 1

const (
	// maxBatchBytes bounds an encoded batch, on the way in and on the way
	// out: a row over it is refused (Append) or damaged (Batches).
	maxBatchBytes = 64 << 20
	// maxCheckpointBytes bounds an encoded checkpoint the same way.
	maxCheckpointBytes = 256 << 20
	headerBytes        = 5
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// encodedSize is the size of b's events encoded.
func encodedSize(events []store.Event) int {
	n := headerBytes + uvarintLen(uint64(len(events)))
	prev := ""
	for _, e := range events {
		if e.Type == prev {
			n++
		} else {
			n += uvarintLen(uint64(len(e.Type))) + len(e.Type)
		}
		prev = e.Type
		n += uvarintLen(uint64(len(e.Data))) + len(e.Data)
	}
	return n
}

// encodeEvents appends the encoding of events to dst.
func encodeEvents(dst []byte, events []store.Event) []byte {
	start := len(dst)
	dst = append(dst, formatV1, 0, 0, 0, 0)
	dst = binary.AppendUvarint(dst, uint64(len(events)))
	prev := ""
	for _, e := range events {
		if e.Type == prev {
			dst = append(dst, 0)
		} else {
			dst = binary.AppendUvarint(dst, uint64(len(e.Type)))
			dst = append(dst, e.Type...)
		}
		prev = e.Type
		dst = binary.AppendUvarint(dst, uint64(len(e.Data)))
		dst = append(dst, e.Data...)
	}
	binary.BigEndian.PutUint32(dst[start+1:], crc32.Checksum(dst[start+headerBytes:], castagnoli))
	return dst
}

// decodeEvents decodes a row's events, which must number want. The events'
// Data alias row (each capped at its length, so an append to one copies
// it); names interns the types' names across rows.
func decodeEvents(row []byte, want uint64, names map[string]string) ([]store.Event, error) {
	body, err := checkFrame(row)
	if err != nil {
		return nil, err
	}
	n, k := binary.Uvarint(body)
	if k <= 0 {
		return nil, errors.New("the event count is not a number")
	}
	body = body[k:]
	switch {
	case n != want:
		return nil, fmt.Errorf("it holds %d events, and its seqs span %d", n, want)
	case n > uint64(len(body))/2: // an event takes 2 bytes at least
		return nil, fmt.Errorf("it claims %d events in %d bytes", n, len(body))
	}
	events := make([]store.Event, n)
	prev := ""
	for i := range events {
		t, rest, err := field(body)
		if err != nil {
			return nil, fmt.Errorf("event %d: type: %w", i, err)
		}
		switch {
		case len(t) > 0:
			name, ok := names[string(t)]
			if !ok {
				name = string(t)
				if len(names) < 1024 {
					names[name] = name
				}
			}
			prev = name
		case prev == "":
			return nil, fmt.Errorf("event %d has no type name", i)
		}
		d, rest, err := field(rest)
		if err != nil {
			return nil, fmt.Errorf("event %d: data: %w", i, err)
		}
		events[i] = store.Event{Type: prev, Data: d[:len(d):len(d)]}
		body = rest
	}
	if len(body) > 0 {
		return nil, fmt.Errorf("%d bytes follow the last event", len(body))
	}
	return events, nil
}

// field reads one length-prefixed field of b.
func field(b []byte) (f, rest []byte, err error) {
	n, k := binary.Uvarint(b)
	switch {
	case k == 0:
		return nil, nil, errors.New("the row ends before it")
	case k < 0:
		return nil, nil, errors.New("its length is not a number")
	case n > uint64(len(b)-k):
		return nil, nil, fmt.Errorf("its length (%d) runs past the row's end", n)
	}
	return b[k : k+int(n)], b[k+int(n):], nil
}

// encodeState encodes a checkpoint's state.
func encodeState(state []byte) []byte {
	dst := make([]byte, headerBytes, headerBytes+len(state))
	dst[0] = formatV1
	binary.BigEndian.PutUint32(dst[1:], crc32.Checksum(state, castagnoli))
	return append(dst, state...)
}

// decodeState decodes a checkpoint's row; the state aliases row.
func decodeState(row []byte) ([]byte, error) {
	state, err := checkFrame(row)
	return state[:len(state):len(state)], err
}

// checkFrame checks a row's format and checksum and returns its body.
func checkFrame(row []byte) ([]byte, error) {
	switch {
	case len(row) < headerBytes:
		return nil, fmt.Errorf("it is %d bytes, shorter than its header", len(row))
	case row[0] != formatV1:
		return nil, fmt.Errorf("its format is %d, which this version does not know (it knows %d)", row[0], formatV1)
	}
	body := row[headerBytes:]
	if sum, want := crc32.Checksum(body, castagnoli), binary.BigEndian.Uint32(row[1:]); sum != want {
		return nil, fmt.Errorf("its checksum is %08x, and its bytes sum to %08x", want, sum)
	}
	return body, nil
}

func uvarintLen(x uint64) int {
	n := 1
	for x >= 0x80 {
		x >>= 7
		n++
	}
	return n
}
