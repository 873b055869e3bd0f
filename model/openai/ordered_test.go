package openai

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// parseOrdered keeps keys in document order (a repeated key keeps its first
// place and its last value) and numbers exact; marshalOrdered writes them
// back compactly, without HTML escaping.
func TestParseOrderedRoundTrip(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"b": 1, "a": {"z": [true, null, "x"], "y": 2}}`, `{"b":1,"a":{"z":[true,null,"x"],"y":2}}`},
		{`{"a": 1, "b": 2, "a": 3}`, `{"a":3,"b":2}`},
		{`[1.50, -0, 12345678901234567890123, 1e400]`, `[1.50,-0,12345678901234567890123,1e400]`},
		{`{"\u00e9": "<&>", "s": "\ud800"}`, `{"é":"<&>","s":"` + "\ufffd" + `"}`},
		{` "x" `, `"x"`},
		{strings.Repeat("[", 513) + strings.Repeat("]", 513), strings.Repeat("[", 513) + strings.Repeat("]", 513)},
	}
	for _, tt := range tests {
		t.Run(tt.in[:min(len(tt.in), 30)], func(t *testing.T) {
			assert.Equal(t, tt.want, compact(t, tt.in))
		})
	}
}

// The errors are encoding/json's, with an end inside a value (or after a
// comma in an array) an unexpected EOF and an end where a key or the
// closing bracket was due a plain EOF.
func TestParseOrderedErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{``, "unexpected EOF"},
		{`{"a":`, "unexpected EOF"},
		{`[1,`, "unexpected EOF"},
		{`["ab`, "unexpected EOF"},
		{`{"a":1,`, "EOF"},
		{`[1`, "EOF"},
		{`{`, "EOF"},
		{`{"a" 1}`, "invalid character '1' after object key"},
		{`[1}`, "invalid character '}' after array element"},
		{`1 2`, "invalid JSON: data after the top-level value"},
		{`{} x`, "invalid JSON: data after the top-level value"},
		{strings.Repeat("[", 514) + strings.Repeat("]", 514), "invalid JSON: nested too deeply"},
	}
	for _, tt := range tests {
		t.Run(tt.in[:min(len(tt.in), 30)], func(t *testing.T) {
			v, err := parseOrdered([]byte(tt.in))
			require.Error(t, err)
			assert.Nil(t, v)
			assert.Equal(t, tt.want, err.Error())
		})
	}
}
