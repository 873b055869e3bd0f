package scripted

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A member's or element's span is its value's exact bytes and the offset
// of its first byte in the script, however the JSON is spaced.
func TestScriptSpans(t *testing.T) {
	src := "{\"a\" : [1, {\"b\": \"x\"} ],\n  \"c\":\"\\u00e9\" ,\"d\":{ } }"
	p := &scriptParser{src: []byte(src)}
	ms, err := p.object(scriptSpan{raw: p.src}, "", "an object")
	require.NoError(t, err)
	require.Len(t, ms, 3)
	got := map[string]string{}
	for _, m := range ms {
		assert.Equal(t, src[m.val.off:m.val.off+len(m.val.raw)], string(m.val.raw), m.key)
		got[m.key] = string(m.val.raw)
	}
	assert.Equal(t, map[string]string{"a": `[1, {"b": "x"} ]`, "c": `"\u00e9"`, "d": `{ }`}, got)
	assert.Equal(t, 2, p.line(ms[1].val.off))

	els, err := p.list(ms[0].val, "a", "a list")
	require.NoError(t, err)
	require.Len(t, els, 2)
	assert.Equal(t, "1", string(els[0].raw))
	assert.Equal(t, `{"b": "x"}`, string(els[1].raw))
	assert.Equal(t, 11, els[1].off)
}

func TestScriptObjectAndListRefuse(t *testing.T) {
	tests := []struct {
		name, src, field, msg string
		list                  bool
	}{
		{"duplicate", `{"a": 1, "b": 2, "\u0061": 3}`, "a", "appears twice; give each key once", false},
		{"not an object", ` [1]`, "", "an object", false},
		{"not a list", `{}`, "", "a list", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &scriptParser{src: []byte(tt.src)}
			var err error
			if tt.list {
				_, err = p.list(scriptSpan{raw: p.src}, "", "a list")
			} else {
				_, err = p.object(scriptSpan{raw: p.src}, "", "an object")
			}
			var se *ScriptError
			require.ErrorAs(t, err, &se)
			assert.Equal(t, tt.field, se.Field)
			assert.Equal(t, tt.msg, se.Message)
			assert.Equal(t, 1, se.Line)
		})
	}
}
