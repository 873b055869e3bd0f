package session_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/serde"
	"github.com/offshoot-dev/offshoot/session"
)

// Types whose items hold interface values, or encode through methods.
type (
	PAny struct{ V any }
	ZA   struct{ Z, A string }
	// Deep holds an interface value several levels down.
	Deep struct {
		Rows []map[string][]any
	}
	// Raw keeps JSON as it was written.
	Raw struct{ J json.RawMessage }
	// BadText is a TextMarshaler whose text is not valid UTF-8.
	BadText struct{ B []byte }
	// BadJSON is a json.Marshaler that writes invalid UTF-8.
	BadJSON struct{}
)

func (b BadText) MarshalText() ([]byte, error)  { return b.B, nil }
func (b *BadText) UnmarshalText(t []byte) error { b.B = append([]byte(nil), t...); return nil }
func (BadJSON) MarshalJSON() ([]byte, error)    { return []byte("\"\xff\""), nil }
func (*BadJSON) UnmarshalJSON([]byte) error     { return nil }

// marshalTwice marshals a session holding items, unmarshals the result
// and marshals it again.
func marshalTwice(t *testing.T, items ...any) (first, second []byte, err error) {
	t.Helper()
	reg := serde.NewRegistry()
	s := newSession(t, session.WithRegistry(reg))
	require.NoError(t, s.Dispatch(ctx, items...))
	first, err = session.MarshalSnapshot(s.Snapshot(), reg)
	if err != nil {
		return nil, nil, err
	}
	back, err := session.UnmarshalSnapshot(first, reg)
	require.NoError(t, err, "json: %s", first)
	second, err = session.MarshalSnapshot(back, reg)
	require.NoError(t, err)
	return first, second, nil
}

// What MarshalSnapshot writes re-marshals to the same bytes after
// UnmarshalSnapshot, also when items hold interface values.
func TestWhatMarshalSnapshotWritesRestoresByteExact(t *testing.T) {
	tests := []struct {
		name string
		item any
	}{
		{"a large integer in an interface field", PAny{V: int64(1<<60 + 1)}},
		{"a float in an interface field", PAny{V: 0.1}},
		{"a big uint in an interface field", PAny{V: uint64(1<<64 - 1)}},
		{"a map with sorted keys", PAny{V: map[string]any{"b": 1, "a": []any{1.5, "x", nil, true}}}},
		{"nil", PAny{}},
		{"bytes in an interface field", PAny{V: []byte("x")}},
		{"interface values deep down", Deep{Rows: []map[string][]any{{"k": {int64(9007199254740993), "v"}}}}},
		{"raw JSON holding the escape \\ufffd", Raw{J: json.RawMessage(`"\ufffd"`)}},
		{"typed numbers", Event{ID: 1<<53 + 1, Kind: "k"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			first, second, err := marshalTwice(t, tt.item)
			require.NoError(t, err)
			assert.Equal(t, string(first), string(second))
		})
	}
}

// An item that would not restore as written makes MarshalSnapshot fail,
// naming the slice and the item and saying what to do.
func TestAnItemThatWouldNotRestoreAsWrittenFailsToMarshal(t *testing.T) {
	tests := []struct {
		name  string
		items []any
		want  []string
	}{
		{"a struct in an interface field", []any{PAny{V: "fine"}, PAny{V: ZA{Z: "z", A: "a"}}},
			[]string{"item 1 of slice", "PAny", "use a concrete type for the field, or a map"}},
		{"a struct deep down", []any{Deep{Rows: []map[string][]any{{"k": {ZA{Z: "z"}}}}}},
			[]string{"item 0 of slice", "Deep", "use a concrete type"}},
		{"a TextMarshaler writing invalid UTF-8", []any{BadText{B: []byte("ok")}, BadText{B: []byte("bad \xff")}},
			[]string{"item 1 of slice", "BadText", "not valid UTF-8"}},
		{"a json.Marshaler writing invalid UTF-8", []any{BadJSON{}},
			[]string{"item 0 of slice", "BadJSON", "not valid UTF-8"}},
		{"invalid UTF-8 in an interface field", []any{PAny{V: "\xff"}},
			[]string{"item 0 of slice", "PAny", "field V holds text that is not valid UTF-8"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := marshalTwice(t, tt.items...)
			require.Error(t, err)
			for _, w := range tt.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}

// Numbers inside interface values restore as their exact text; typed
// fields decode as before.
func TestNumbersInInterfaceValuesRestoreExactly(t *testing.T) {
	reg := serde.NewRegistry()
	s := newSession(t, session.WithRegistry(reg))
	require.NoError(t, s.Dispatch(ctx, PAny{V: int64(1<<60 + 1)}, Event{ID: 7}))
	data, err := session.MarshalSnapshot(s.Snapshot(), reg)
	require.NoError(t, err)
	back, err := session.UnmarshalSnapshot(data, reg)
	require.NoError(t, err)
	assert.Equal(t, []PAny{{V: json.Number("1152921504606846977")}}, session.SliceOfSnapshot[PAny](back).Values())
	assert.Equal(t, []Event{{ID: 7}}, session.SliceOfSnapshot[Event](back).Values())
}
