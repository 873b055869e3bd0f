package postgres

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"encoding/json"
	"hash/crc32"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/store"
)

func ev(typ, data string) store.Event { return store.Event{Type: typ, Data: json.RawMessage(data)} }

func TestEventsRoundTrip(t *testing.T) {
	long := strings.Repeat(`{"role":"user","content":"the same words again"}`, 40)
	tests := []struct {
		name   string
		events []store.Event
		format byte
	}{
		{"one small event", []store.Event{ev("t", `{}`)}, formatRaw},
		{"empty data", []store.Event{ev("t", ``), ev("u", ``)}, formatRaw},
		{"data kept byte for byte", []store.Event{ev("t", "{ \"a\" :\t1 }\n"), ev("t", `[1,2]`)}, formatRaw},
		{"not JSON at all", []store.Event{ev("t", "\x00\xff")}, formatRaw},
		{"types repeated and not", []store.Event{ev("a", `1`), ev("a", `2`), ev("b", `3`), ev("a", `4`)}, formatRaw},
		{"compressible", []store.Event{ev("runner.ConversationMessage", long), ev("runner.ConversationMessage", long)}, formatDeflate},
		{"incompressible", []store.Event{ev("t", string(noise(600)))}, formatRaw},
		{"a long type name", []store.Event{ev(strings.Repeat("n", 300), `1`)}, formatDeflate},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			row := encodeEvents(tt.events)
			assert.Equal(t, tt.format, row[0], "format")
			got, err := decodeEvents(row, uint64(len(tt.events)), map[string]string{})
			require.NoError(t, err)
			require.Len(t, got, len(tt.events))
			for i, e := range tt.events {
				assert.Equal(t, e.Type, got[i].Type)
				assert.Equal(t, []byte(e.Data), []byte(got[i].Data))
				assert.Equal(t, len(got[i].Data), cap(got[i].Data), "an append to one event's data must not reach the next")
			}
		})
	}
}

// noise is n bytes that do not compress.
func noise(n int) []byte {
	b := make([]byte, n)
	x := uint32(2463534242)
	for i := range b {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[i] = byte(x)
	}
	return b
}

func TestStateRoundTrip(t *testing.T) {
	for _, state := range [][]byte{nil, []byte(`{}`), []byte(strings.Repeat(`{"a":1},`, 1000)), noise(5000)} {
		got, err := decodeState(encodeState(state))
		require.NoError(t, err)
		assert.Equal(t, string(state), string(got))
	}
}

// rawFrame frames body as formatRaw, with its checksum.
func rawFrame(body []byte) []byte {
	return binary.BigEndian.AppendUint32([]byte{formatRaw}, crc32.Checksum(body, castagnoli)) // header
}

func withBody(body []byte) []byte { return append(rawFrame(body), body...) }

// deflated frames body as formatDeflate, claiming n bytes.
func deflated(body []byte, n uint64, stream []byte) []byte {
	row := binary.BigEndian.AppendUint32([]byte{formatDeflate}, crc32.Checksum(body, castagnoli))
	row = binary.AppendUvarint(row, n)
	return append(row, stream...)
}

func deflateStream(b []byte) []byte {
	var buf bytes.Buffer
	w, _ := flate.NewWriter(&buf, flate.BestSpeed)
	_, _ = w.Write(b)
	_ = w.Close()
	return buf.Bytes()
}

func TestDamagedRows(t *testing.T) {
	good := encodeEvents([]store.Event{ev("t", `{"a":1}`), ev("t", `{"b":2}`)})
	flipped := bytes.Clone(good)
	flipped[len(flipped)-2] ^= 1
	body := []byte("\x01\x01t\x02{}")
	tests := []struct {
		name string
		row  []byte
		want uint64
		err  string
	}{
		{"empty", nil, 1, "shorter than its header"},
		{"garbage", []byte("garbage"), 1, "format is 103"},
		{"a flipped bit", flipped, 2, "checksum"},
		{"another count than its seqs", good, 3, "holds 2 events, and its seqs span 3"},
		{"a count past its bytes", withBody([]byte("\x05\x01t\x00")), 5, "claims 5 events in 3 bytes"},
		{"a count that is no number", withBody(bytes.Repeat([]byte{0xff}, 11)), 1, "count of events is not a number"},
		{"a type that runs past the end", withBody([]byte("\x01\x09t\x00")), 1, "event 0: its type: its length (9) runs past"},
		{"data that runs past the end", withBody([]byte("\x01\x01t\x09{}")), 1, "event 0: its data: its length (9) runs past"},
		{"the row ends before the data", withBody([]byte("\x01\x01t")), 1, "event 0: its data: the row ends before it"},
		{"a first event without a type", withBody([]byte("\x01\x00\x02{}")), 1, "event 0 has no type name"},
		{"bytes after the last event", withBody([]byte("\x01\x01t\x00xyz")), 1, "3 bytes follow its last event"},
		{"a body over the bound", deflated(body, maxBatchBytes+1, deflateStream(body)), 1, "over the store's bound"},
		{"a body shorter than it claims", deflated(body, uint64(len(body)+1), deflateStream(body)), 1, "does not inflate to the 7 bytes"},
		{"a body longer than it claims", deflated(body, uint64(len(body)-1), deflateStream(body)), 1, "inflates to more than the 5 bytes"},
		{"a body that is no deflate stream", deflated(body, uint64(len(body)), []byte("garbage")), 1, "does not inflate"},
		{"a length that is no number", deflated(body, 0, nil)[:headerBytes], 1, "length of its body is not a number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := decodeEvents(tt.row, tt.want, map[string]string{})
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.err)
		})
	}
	_, err := decodeEvents(withBody(body), 1, map[string]string{})
	require.NoError(t, err, "the well-formed body of the cases above")
	_, err = decodeState(append(rawFrame([]byte("{}")), "{]"...))
	assert.ErrorContains(t, err, "checksum")
}

func TestNamesInterned(t *testing.T) {
	names := map[string]string{}
	a, err := decodeEvents(encodeEvents([]store.Event{ev("some.Type", `1`)}), 1, names)
	require.NoError(t, err)
	b, err := decodeEvents(encodeEvents([]store.Event{ev("some.Type", `2`)}), 1, names)
	require.NoError(t, err)
	assert.Same(t, unsafe.StringData(a[0].Type), unsafe.StringData(b[0].Type))
}
