package serde

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// kNode is a recursive type: the key check follows it as deep as the JSON
// goes.
type kNode struct {
	Name     string  `json:"name"`
	Children []kNode `json:"children,omitempty"`
}

// Keys must be a struct's exact JSON names, and an object may give a key
// only once, at every level; encoding/json alone would match "GOAL" to
// "goal" and keep the last of two "goal"s.
func TestDecodeChecksKeys(t *testing.T) {
	tests := []struct {
		name, in, path, reason string
	}{
		{"upper case", `{"GOAL":"g"}`, "GOAL", "unknown field; allowed: id, goal, steps, limit, labels, extra, when, raw, count, meta"},
		{"title case", `{"goal":"g","Limit":1}`, "Limit", "unknown field; allowed: id, goal, steps, limit, labels, extra, when, raw, count, meta"},
		{"embedded member", `{"goal":"g","ID":"x"}`, "ID", "unknown field; allowed: id, goal, steps, limit, labels, extra, when, raw, count, meta"},
		{"in a slice element", `{"goal":"g","steps":[{"title":"a"},{"Title":"b"}]}`, "steps[1].Title", "unknown field; allowed: title, done"},
		{"in a map value", `{"goal":"g","labels":{"k":{"TITLE":"b"}}}`, "labels[k].TITLE", "unknown field; allowed: title, done"},
		{"escaped, still the wrong case", `{"\u0047oal":"g"}`, "Goal", "unknown field; allowed: id, goal, steps, limit, labels, extra, when, raw, count, meta"},
		{"before a wrong value", `{"goal":"g","LIMIT":"x"}`, "LIMIT", "unknown field; allowed: id, goal, steps, limit, labels, extra, when, raw, count, meta"},
		{"duplicate", `{"goal":"a","goal":"b"}`, "goal", "appears twice"},
		{"duplicate, one escaped", `{"goal":"a","go\u0061l":"b"}`, "goal", "appears twice"},
		{"duplicate in a slice element", `{"goal":"g","steps":[{"title":"a","done":true,"done":false}]}`, "steps[0].done", "appears twice"},
		{"duplicate map key", `{"goal":"g","meta":{"a":"1","b":"2","a":"3"}}`, "meta[a]", "appears twice"},
		{"duplicate in an any value", `{"goal":"g","extra":{"x":[{"k":1,"k":2}]}}`, "extra[x][0].k", "appears twice"},
		{"duplicate string-option member", `{"goal":"g","count":"1","count":"2"}`, "count", "appears twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Decode[dPlan]([]byte(tt.in))
			var ve *ValidationError
			require.ErrorAs(t, err, &ve)
			assert.Equal(t, tt.path, ve.Path)
			assert.Equal(t, tt.reason, ve.Reason)
		})
	}
}

func TestDecodeChecksKeysEverywhere(t *testing.T) {
	t.Run("recursive type", func(t *testing.T) {
		_, err := Decode[kNode]([]byte(`{"name":"a","children":[{"name":"b","children":[{"name":"c","NAME":"d"}]}]}`))
		assert.EqualError(t, err, "children[0].children[0].NAME: unknown field; allowed: name, children")
	})
	t.Run("a map of many keys", func(t *testing.T) {
		var b strings.Builder
		b.WriteString(`{"goal":"g","meta":{`)
		for i := range 100 {
			fmt.Fprintf(&b, `"k%d":"v",`, i)
		}
		b.WriteString(`"k77":"again"}}`)
		_, err := Decode[dPlan]([]byte(b.String()))
		assert.EqualError(t, err, "meta[k77]: appears twice")
	})
	t.Run("a struct of many members", func(t *testing.T) {
		_, err := Decode[kWide]([]byte(`{"f69":1,"f3":2,"f69":3}`))
		assert.EqualError(t, err, "f69: appears twice")
		v, err := Decode[kWide]([]byte(`{"f69":1,"f3":2}`))
		require.NoError(t, err)
		assert.Equal(t, 1, v.F69)
	})
	t.Run("DecodeInto and DecodeValue", func(t *testing.T) {
		var p dPlan
		assert.EqualError(t, DecodeInto([]byte(`{"Goal":"g"}`), &p), "Goal: unknown field; allowed: id, goal, steps, limit, labels, extra, when, raw, count, meta")
		_, err := DecodeValue([]byte(`[{"title":"a","title":"b"}]`), reflect.TypeFor[[]dStep]())
		assert.EqualError(t, err, "[0].title: appears twice")
	})
	t.Run("values that decode themselves are not looked into", func(t *testing.T) {
		got, err := Decode[dPlan]([]byte(`{"goal":"g","raw":{"A":1,"A":2}}`))
		require.NoError(t, err)
		assert.JSONEq(t, `{"A":2}`, string(got.Raw))
	})
	t.Run("same names in sibling objects", func(t *testing.T) {
		_, err := Decode[dPlan]([]byte(`{"goal":"g","steps":[{"title":"a"},{"title":"b"}],"labels":{"a":{"title":"x"},"b":{"title":"y"}}}`))
		require.NoError(t, err)
	})
	t.Run("keys with quotes and escapes", func(t *testing.T) {
		got, err := Decode[dPlan]([]byte(`{"goal":"g","meta":{"a\"b":"1","a\\b":"2","\u00e9":"3"}}`))
		require.NoError(t, err)
		assert.Equal(t, map[string]string{`a"b`: "1", `a\b`: "2", "é": "3"}, got.Meta)
		_, err = Decode[dPlan]([]byte(`{"goal":"g","meta":{"\u00e9":"1","é":"2"}}`))
		assert.EqualError(t, err, "meta[é]: appears twice")
	})
}

// kWide has more members than fit the check's 64-bit set.
type kWide struct {
	F0, F1, F2, F3, F4, F5, F6, F7, F8, F9           int `json:",omitempty"`
	F10, F11, F12, F13, F14, F15, F16, F17, F18, F19 int `json:",omitempty"`
	F20, F21, F22, F23, F24, F25, F26, F27, F28, F29 int `json:",omitempty"`
	F30, F31, F32, F33, F34, F35, F36, F37, F38, F39 int `json:",omitempty"`
	F40, F41, F42, F43, F44, F45, F46, F47, F48, F49 int `json:",omitempty"`
	F50, F51, F52, F53, F54, F55, F56, F57, F58, F59 int `json:",omitempty"`
	F60, F61, F62, F63, F64, F65, F66, F67, F68      int `json:",omitempty"`
	F69                                              int `json:"f69,omitempty"`
	Three                                            int `json:"f3,omitempty"`
}
