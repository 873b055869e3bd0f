package sessiontest_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/serde"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/sessiontest"
)

// Rec is an item with what JSON carries loosely: raw JSON and numbers in
// interface values.
type Rec struct {
	Raw  json.RawMessage `json:"raw"`
	Any  any             `json:"any"`
	Bag  map[string]any  `json:"bag"`
	List []any           `json:"list"`
}

// A faithful round trip is no change: a nil RawMessage restores as null,
// a number in an interface value as a json.Number of its text.
func TestRoundTripJudgesWhatJSONCarries(t *testing.T) {
	reg := serde.NewRegistry()
	require.NoError(t, serde.Register[Rec](reg, "test.Rec"))
	s, err := session.New(session.WithRegistry(reg))
	require.NoError(t, err)
	defer s.Close()
	require.NoError(t, session.Register(s, session.AppendAll[Rec]))
	require.NoError(t, s.Dispatch(ctx, Rec{Any: 0.1, Bag: map[string]any{"n": int64(7), "f": 2.5}, List: []any{float64(1e21), "x"}},
		Rec{Raw: json.RawMessage(`{"a": 1}`), Any: int64(1) << 60}))
	rt := &recording{TB: t}
	back := sessiontest.RoundTrip(rt, s, reg)
	assert.Empty(t, rt.errors, "a faithful round trip is no change")
	assert.Equal(t, 2, session.SliceOfSnapshot[Rec](back).Len())
}

// And the judgement is not fooled the other way: what JSON carries as
// different values differs.
func TestEqualIsNotFooledByJSON(t *testing.T) {
	for _, tt := range []struct {
		name string
		x, y any
		want bool
	}{
		{"nil raw and null", json.RawMessage(nil), json.RawMessage("null"), true},
		{"raw spacing", json.RawMessage(`{"a": 1}`), json.RawMessage(`{"a":1}`), true},
		{"null and an object", json.RawMessage(nil), json.RawMessage(`{}`), false},
		{"raw values", json.RawMessage(`{"a":1}`), json.RawMessage(`{"a":2}`), false},
		{"float and its text", Rec{Any: 0.1}, Rec{Any: json.Number("0.1")}, true},
		{"int and its text", Rec{Any: int64(7)}, Rec{Any: json.Number("7")}, true},
		{"int and another text", Rec{Any: int64(7)}, Rec{Any: json.Number("7.5")}, false},
		{"a large int exactly", Rec{Any: int64(9007199254740993)}, Rec{Any: json.Number("9007199254740993")}, true},
		{"a large int off by one", Rec{Any: int64(9007199254740993)}, Rec{Any: json.Number("9007199254740992")}, false},
		{"a number and a string", Rec{Any: 7.0}, Rec{Any: "7"}, false},
		{"a json.Number and a string", Rec{Any: json.Number("7")}, Rec{Any: "7"}, false},
		{"nested in a map", Rec{Bag: map[string]any{"n": 2.5}}, Rec{Bag: map[string]any{"n": json.Number("2.5")}}, true},
		{"nested, different", Rec{Bag: map[string]any{"n": 2.5}}, Rec{Bag: map[string]any{"n": json.Number("2.6")}}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, sessiontest.Equal(tt.x, tt.y))
			assert.Equal(t, tt.want, sessiontest.Equal(tt.y, tt.x), "symmetric")
		})
	}
}

// recording is a testing.TB that keeps the errors it is given.
type recording struct {
	testing.TB
	errors []string
}

func (r *recording) Errorf(format string, args ...any) {
	r.errors = append(r.errors, format)
}
func (r *recording) Helper() {}
