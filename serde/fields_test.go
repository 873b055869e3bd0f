package serde

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type fInner struct {
	A string `json:"a"`
	B string
}

type fOther struct {
	A string `json:"a"`
	C string `json:"c"`
}

type fTagged struct {
	X string `json:"x"`
}

type fNames []string

type fLower struct {
	L string `json:"l"`
}

type fShadow struct {
	B string `json:"b_outer"`
	A string `json:"inner_a"`
}

type fAll struct {
	fInner                  // promoted: a (ambiguous with fOther.a: dropped), B
	*fOther                 // promoted through a pointer: c
	fTagged `json:"tagged"` // tagged: a member, not promoted
	fNames                  // embedded non-struct of an unexported type: skipped
	Names   fNames          `json:"names"`
	fLower                  // unexported struct type: its exported fields are promoted
	Skip    string          `json:"-"`
	Dash    string          `json:"-,"`
	Plain   int
	private int
	Bad     string `json:"a\"b"` // invalid tag name: the Go name is used
}

type fDepth struct {
	fShadow
	B string // depth 0: its own name, fShadow's B is "b_outer"
	A string `json:"inner_a"` // depth 0 beats fShadow's inner_a
}

func TestFieldsFollowEncodingJSON(t *testing.T) {
	tests := []struct {
		name  string
		value any
		want  []string
	}{
		{"promotion and ambiguity", fAll{fOther: &fOther{}}, []string{"B", "c", "tagged", "names", "l", "-", "Plain", "Bad"}},
		{"shallower field wins", fDepth{}, []string{"b_outer", "B", "inner_a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var names []string
			for _, f := range fieldsOf(reflect.TypeOf(tt.value)).list {
				names = append(names, f.name)
			}
			assert.Equal(t, tt.want, names)
			assert.Equal(t, tt.want, marshaledKeys(t, tt.value), "encoding/json agrees")
		})
	}
}

// marshaledKeys lists the top-level keys of v's JSON encoding, in order.
func marshaledKeys(t *testing.T, v any) []string {
	t.Helper()
	data, err := json.Marshal(v)
	require.NoError(t, err)
	dec := json.NewDecoder(bytes.NewReader(data))
	_, err = dec.Token()
	require.NoError(t, err)
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		require.NoError(t, err)
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		require.NoError(t, dec.Decode(&skip))
	}
	return keys
}

func TestFieldLookup(t *testing.T) {
	sf := fieldsOf(reflect.TypeFor[fAll]())
	tests := []struct {
		key  string
		want string
		ok   bool
	}{
		{"c", "c", true},
		{"C", "", false},
		{"PLAIN", "", false},
		{"a", "", false},
		{"Skip", "", false},
	}
	for _, tt := range tests {
		f, ok := sf.lookup(tt.key)
		assert.Equal(t, tt.ok, ok, tt.key)
		assert.Equal(t, tt.want, f.name, tt.key)
	}
	assert.Equal(t, "B, c, tagged, names, l, -, Plain, Bad", sf.allowed)
}

func TestFieldByIndexStopsAtNilPointers(t *testing.T) {
	v := reflect.ValueOf(fAll{})
	f := fieldsOf(v.Type()).list[1] // c, through *fOther
	_, ok := fieldByIndex(v, f.index)
	assert.False(t, ok)

	v = reflect.ValueOf(fAll{fOther: &fOther{C: "x"}})
	got, ok := fieldByIndex(v, f.index)
	require.True(t, ok)
	assert.Equal(t, "x", got.String())
}
