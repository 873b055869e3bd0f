package postgres

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"

	"github.com/offshoot-dev/offshoot/store"
	"github.com/offshoot-dev/offshoot/store/internal/deflate"
)

// A batch's events and a checkpoint's state are each stored as one bytea
// value, a frame:
//
//	format (1 byte): formatRaw or formatDeflate
//	CRC-32C of the body (4 bytes, big endian)
//	formatRaw:     the body
//	formatDeflate: uvarint length of the body, then the body deflated
//
// A checkpoint's body is its state. A batch's body is:
//
//	uvarint event count, then for each event
//	uvarint type length, the type's name (length 0: the previous event's
//	type), uvarint data length, the data's bytes
//
// The data and the state come back byte for byte; the checksum makes any
// damage to a row an error rather than other events. A body is deflated
// when it is long enough to gain and the deflated one is at most 7/8 of
// it: a conversation's text takes about 60% of its bytes, a snapshot's
// JSON far less, and a body that would not gain stays as it is, so that
// reading it costs nothing more.
const (
	formatRaw     = 1
	formatDeflate = 2

	headerBytes = 5

	// maxBatchBytes bounds a batch's body, on the way in and on the way
	// out: a batch over it is refused (Append) or damaged (Batches).
	maxBatchBytes = 64 << 20
	// maxCheckpointBytes bounds a checkpoint's state the same way.
	maxCheckpointBytes = 256 << 20
	// frameSlack is what a frame may add to its body.
	frameSlack = headerBytes + binary.MaxVarintLen64
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// bodySize is the size of the body of a batch of events.
func bodySize(events []store.Event) int {
	n := uvarintLen(uint64(len(events)))
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

// encodeEvents returns the frame of a batch of events.
func encodeEvents(events []store.Event) []byte {
	body := make([]byte, headerBytes, headerBytes+bodySize(events))
	body = binary.AppendUvarint(body, uint64(len(events)))
	prev := ""
	for _, e := range events {
		if e.Type == prev {
			body = append(body, 0)
		} else {
			body = binary.AppendUvarint(body, uint64(len(e.Type)))
			body = append(body, e.Type...)
		}
		prev = e.Type
		body = binary.AppendUvarint(body, uint64(len(e.Data)))
		body = append(body, e.Data...)
	}
	return frame(body)
}

// encodeState returns the frame of a checkpoint's state.
func encodeState(state []byte) []byte {
	body := make([]byte, headerBytes, headerBytes+len(state))
	return frame(append(body, state...))
}

// frame fills in the header of buf, whose body follows headerBytes
// reserved bytes, deflating the body when that gains.
func frame(buf []byte) []byte {
	body := buf[headerBytes:]
	sum := crc32.Checksum(body, castagnoli)
	if out, ok := deflate.Append([]byte{formatDeflate, 0, 0, 0, 0}, body); ok && len(out) <= len(buf)*7/8 {
		binary.BigEndian.PutUint32(out[1:], sum)
		return out
	}
	buf[0] = formatRaw
	binary.BigEndian.PutUint32(buf[1:], sum)
	return buf
}

// unframe returns the body of a frame, which may be at most limit bytes.
// It aliases row when the body was not deflated.
func unframe(row []byte, limit int) ([]byte, error) {
	if len(row) < headerBytes {
		return nil, fmt.Errorf("it is %d bytes, shorter than its header", len(row))
	}
	want := binary.BigEndian.Uint32(row[1:])
	body := row[headerBytes:]
	switch row[0] {
	case formatRaw:
		if len(body) > limit {
			return nil, fmt.Errorf("it holds %d bytes, over the store's bound of %d", len(body), limit)
		}
	case formatDeflate:
		var err error
		if body, err = deflate.Read(body, limit); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("its format is %d, which this version does not know", row[0])
	}
	if sum := crc32.Checksum(body, castagnoli); sum != want {
		return nil, fmt.Errorf("its checksum is %08x, and its bytes sum to %08x", want, sum)
	}
	return body, nil
}

// decodeEvents decodes a batch's frame, which must hold want events. The
// events' Data alias the body (each capped at its length, so that an
// append to one copies it); names interns the types' names across rows.
func decodeEvents(row []byte, want uint64, names map[string]string) ([]store.Event, error) {
	body, err := unframe(row, maxBatchBytes)
	if err != nil {
		return nil, err
	}
	return decodeBody(body, want, names)
}

// decodeBody decodes a batch's body.
func decodeBody(body []byte, want uint64, names map[string]string) ([]store.Event, error) {
	n, k := binary.Uvarint(body)
	if k <= 0 {
		return nil, errors.New("its count of events is not a number")
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
			return nil, fmt.Errorf("event %d: its type: %w", i, err)
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
			return nil, fmt.Errorf("event %d: its data: %w", i, err)
		}
		events[i] = store.Event{Type: prev, Data: d[:len(d):len(d)]}
		body = rest
	}
	if len(body) > 0 {
		return nil, fmt.Errorf("%d bytes follow its last event", len(body))
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

// decodeState decodes a checkpoint's frame.
func decodeState(row []byte) ([]byte, error) {
	state, err := unframe(row, maxCheckpointBytes)
	return state[:len(state):len(state)], err
}

func uvarintLen(x uint64) int {
	n := 1
	for x >= 0x80 {
		x >>= 7
		n++
	}
	return n
}
