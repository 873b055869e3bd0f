package session_test

import (
	"bytes"
	"testing"

	"github.com/offshoot-dev/offshoot/serde"
	"github.com/offshoot-dev/offshoot/session"
)

// FuzzUnmarshalSnapshot checks that decoding never panics and that whatever
// it accepts round-trips: encoding the decoded snapshot and decoding that
// again gives the same bytes.
func FuzzUnmarshalSnapshot(f *testing.F) {
	reg := serde.NewRegistry()
	for _, err := range []error{
		serde.Register[Note](reg, "test.Note"),
		serde.Register[Checked](reg, "test.Checked"),
		serde.Register[Counter](reg, "test.Counter"),
	} {
		if err != nil {
			f.Fatal(err)
		}
	}
	f.Add([]byte(`{"version":"1","session_id":"s1","created_at":"2026-11-22T10:00:00Z","parent_id":null,"children_ids":["s2"],"tags":{"a":"1"},"slices":[{"slice_type":"test.Note","item_type":"test.Note","items":[{"Text":"hi"}]}]}`))
	f.Add([]byte(`{"version":"1","session_id":"s1","created_at":"2026-11-22T10:00:00.123456789+02:00","parent_id":"p","children_ids":[],"tags":{},"slices":[{"slice_type":"test.Checked","item_type":"test.Checked","items":[{"name":"ok","n":3}]},{"slice_type":"test.Counter","item_type":"test.Counter","items":[]}]}`))
	f.Add([]byte(`{"version":2}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		snap, err := session.UnmarshalSnapshot(data, reg)
		if err != nil {
			return
		}
		first, err := session.MarshalSnapshot(snap, reg)
		if err != nil {
			t.Fatalf("accepted snapshot does not encode: %v", err)
		}
		back, err := session.UnmarshalSnapshot(first, reg)
		if err != nil {
			t.Fatalf("encoded snapshot does not decode: %v\n%s", err, first)
		}
		second, err := session.MarshalSnapshot(back, reg)
		if err != nil || !bytes.Equal(first, second) {
			t.Fatalf("round trip unstable (err %v):\n%s\n%s", err, first, second)
		}
	})
}
