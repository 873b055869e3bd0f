package sqlite

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/store"
)

// testNames is the type table of the codec's tests: ids 1 to 3.
var testNames = map[uint64]string{1: "test.A", 2: "test.B", 3: "github.com/offshoot-dev/offshoot/runner.ModelResponded"}

func testName(id uint64) (string, error) {
	if n, ok := testNames[id]; ok {
		return n, nil
	}
	return "", fmt.Errorf("no type %d", id)
}

func testIDs() map[string]uint64 {
	ids := map[string]uint64{}
	for id, n := range testNames {
		ids[n] = id
	}
	return ids
}

func TestEventsRoundTrip(t *testing.T) {
	tests := []struct {
		name   string
		events []store.Event
	}{
		{"one", []store.Event{{Type: "test.A", Data: json.RawMessage(`{}`)}}},
		{"empty data", []store.Event{{Type: "test.A"}, {Type: "test.B", Data: json.RawMessage{}}}},
		{"repeated types", []store.Event{{Type: "test.A", Data: json.RawMessage(`1`)}, {Type: "test.B", Data: json.RawMessage(`2`)}, {Type: "test.A", Data: json.RawMessage(`3`)}}},
		{"long data", []store.Event{{Type: "github.com/offshoot-dev/offshoot/runner.ModelResponded", Data: json.RawMessage(`"` + strings.Repeat("x", 100_000) + `"`)}}},
		{"binary data", []store.Event{{Type: "test.B", Data: json.RawMessage{0, 1, 2, 0xff}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			blob, raw := encodeEvents(tt.events, testIDs())
			got, err := decodeEvents(blob, testName)
			require.NoError(t, err)
			require.Len(t, got, len(tt.events))
			size := 2
			for i, e := range tt.events {
				assert.Equal(t, e.Type, got[i].Type)
				assert.True(t, bytes.Equal(e.Data, got[i].Data), "event %d", i)
				assert.Equal(t, len(got[i].Data), cap(got[i].Data), "event %d may grow into the next", i)
				size += 2 + len(e.Data)
			}
			assert.LessOrEqual(t, raw, size+3*len(tt.events), "the encoding is not compact")
			assert.LessOrEqual(t, len(blob), raw)
			blob[len(blob)-1] ^= 0xff // the events are copies
			fresh, _ := encodeEvents(tt.events, testIDs())
			again, err := decodeEvents(fresh, testName)
			require.NoError(t, err)
			assert.Equal(t, got, again)
		})
	}
}

// FuzzDecodeEvents: no row, however damaged, makes the decoder panic or
// allocate past the row's size; what it accepts encodes back to the same
// bytes.
func FuzzDecodeEvents(f *testing.F) {
	small, _ := encodeEvents([]store.Event{{Type: "test.A", Data: json.RawMessage(`{"a":1}`)}, {Type: "test.B"}}, testIDs())
	f.Add(small)
	long, _ := encodeEvents([]store.Event{{Type: "test.A", Data: json.RawMessage(`"` + strings.Repeat("ab", 200) + `"`)}}, testIDs())
	f.Add(long)
	f.Add([]byte{1, 1, 3, 2, '{', '}'})
	f.Add([]byte{1, 0xff, 0xff, 0xff, 0xff, 0x0f, 1, 0})
	f.Add([]byte{1, 2, 1, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, blob []byte) {
		events, err := decodeEvents(blob, testName)
		if err != nil {
			return
		}
		total := 0
		for _, e := range events {
			total += len(e.Data)
		}
		bound := len(blob) // a row as it is holds its events
		if blob[0] == deflatedFormat {
			bound = maxBatchBytes
		}
		if total > bound || len(events) > bound {
			t.Fatalf("decoded %d events of %d bytes from %d", len(events), total, len(blob))
		}
		again, raw := encodeEvents(events, testIDs())
		if blob[0] == eventsFormat && raw > len(blob) {
			// Overlong varints decode, but encode shorter; never longer.
			t.Fatalf("re-encoded %x as %x", blob, again)
		}
		back, err := decodeEvents(again, testName)
		if err != nil || len(back) != len(events) {
			t.Fatalf("what decoded does not decode again: %v", err)
		}
	})
}
