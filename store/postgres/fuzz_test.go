package postgres

import (
	"bytes"
	"testing"

	"github.com/offshoot-dev/offshoot/store"
)

// FuzzDecodeEvents feeds the row decoder any bytes: whole rows (whose
// checksum a mutation rarely keeps, so) and bare bodies too. It must never
// panic, and what it accepts must encode and decode to the same events.
func FuzzDecodeEvents(f *testing.F) {
	f.Add(encodeEvents([]store.Event{ev("t", `{}`)}), uint64(1))
	f.Add(encodeEvents([]store.Event{ev("a", `1`), ev("a", `2`), ev("b", ``)}), uint64(3))
	f.Add(encodeEvents([]store.Event{ev("runner.ConversationMessage", string(bytes.Repeat([]byte(`{"role":"user"}`), 20)))}), uint64(1))
	f.Add([]byte("\x01\x01t\x02{}"), uint64(1))
	f.Add([]byte("garbage"), uint64(1))
	f.Fuzz(func(t *testing.T, data []byte, want uint64) {
		if events, err := decodeEvents(data, want, map[string]string{}); err == nil {
			roundTrip(t, events)
		}
		if events, err := decodeBody(data, want, map[string]string{}); err == nil {
			roundTrip(t, events)
		}
		if state, err := decodeState(data); err == nil {
			if again, err := decodeState(encodeState(state)); err != nil || !bytes.Equal(again, state) {
				t.Fatalf("a state decoded from a row does not encode and decode to itself: %v", err)
			}
		}
	})
}

func roundTrip(t *testing.T, events []store.Event) {
	t.Helper()
	again, err := decodeEvents(encodeEvents(events), uint64(len(events)), map[string]string{})
	if err != nil {
		t.Fatalf("events decoded from a row do not decode once encoded: %v", err)
	}
	for i := range events {
		if again[i].Type != events[i].Type || !bytes.Equal(again[i].Data, events[i].Data) {
			t.Fatalf("event %d: %q %q came back as %q %q", i, events[i].Type, events[i].Data, again[i].Type, again[i].Data)
		}
	}
}
