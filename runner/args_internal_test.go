package runner

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// compactArgs gives the record the arguments compacted when they are
// valid JSON, and the JSON string of what was sent otherwise.
func TestCompactArgs(t *testing.T) {
	for _, tt := range []struct {
		name, args, want string
		valid            bool
	}{
		{"empty", "", `{}`, true},
		{"blank", " \n\t", `{}`, true},
		{"compact", `{"text":"hi"}`, `{"text":"hi"}`, true},
		{"spaces inside strings stay", `{"text":"a b  c"}`, `{"text":"a b  c"}`, true},
		{"spaces between tokens go", "{ \"a\" : [1, 2],\n\t\"b\":{} }", `{"a":[1,2],"b":{}}`, true},
		{"surrounding space goes", "  {\"a\":1}\r\n", `{"a":1}`, true},
		{"escaped quote inside a string", `{"a":"x\" y","b" :1}`, `{"a":"x\" y","b":1}`, true},
		{"escaped backslash before a quote", `{"a":"x\\", "b":"y z"}`, `{"a":"x\\","b":"y z"}`, true},
		{"not an object, still JSON", `[1, 2]`, `[1,2]`, true},
		{"malformed", `{"a":`, `"{\"a\":"`, false},
		{"two values", `{} {}`, `"{} {}"`, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, valid := compactArgs(tt.args)
			require.Equal(t, tt.valid, valid)
			require.Equal(t, tt.want, string(got))
		})
	}
}

// FuzzCompactArgs checks compactArgs against encoding/json: valid JSON
// comes out as json.Compact makes it, anything else as a JSON string of
// what was sent; and the result is always valid JSON.
func FuzzCompactArgs(f *testing.F) {
	for _, s := range []string{``, `{"text":"hi"}`, "{ \"a\" : \"b c\" }", `{"a":"\" }`, `[1, "\\", {"x" :null}]`, `{"a":1}x`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, args string) {
		got, valid := compactArgs(args)
		require.True(t, json.Valid(got), "the record's arguments are JSON")
		if strings.TrimSpace(args) == "" {
			require.True(t, valid)
			require.Equal(t, `{}`, string(got))
			return
		}
		var want bytes.Buffer
		if err := json.Compact(&want, []byte(args)); err != nil {
			require.False(t, valid)
			s, _ := json.Marshal(args)
			require.Equal(t, string(s), string(got))
			return
		}
		require.True(t, valid)
		require.Equal(t, want.String(), string(got))
	})
}
