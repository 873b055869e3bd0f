package openai

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/model"
)

func TestStrictSchema(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{
			name: "optional becomes required and nullable, order kept",
			in:   `{"type":"object","properties":{"z":{"type":"string"},"a":{"type":"integer"}},"required":["a"]}`,
			want: `{"type":"object","properties":{"z":{"type":["string","null"]},"a":{"type":"integer"}},"required":["z","a"],"additionalProperties":false}`,
		},
		{
			name: "type list, enum, const, anyOf, ref, already nullable, oneOf as anyOf, boolean schema",
			in: `{"type":"object","properties":{
				"l":{"type":["string","integer"]},
				"e":{"type":"string","enum":["x"]},
				"c":{"const":"k","type":"string"},
				"u":{"anyOf":[{"type":"string"},{"type":"integer"}]},
				"r":{"$ref":"#/$defs/d","description":"see d"},
				"n":{"type":["string","null"]},
				"o":{"oneOf":[{"type":"null"},{"type":"string"}]},
				"b":true}}`,
			want: `{"type":"object","properties":{
				"l":{"type":["string","integer","null"]},
				"e":{"type":["string","null"],"enum":["x",null]},
				"c":{"anyOf":[{"const":"k","type":"string"},{"type":"null"}]},
				"u":{"anyOf":[{"type":"string"},{"type":"integer"},{"type":"null"}]},
				"r":{"anyOf":[{"$ref":"#/$defs/d","description":"see d"},{"type":"null"}]},
				"n":{"type":["string","null"]},
				"o":{"anyOf":[{"type":"null"},{"type":"string"}]},
				"b":true},
				"required":["l","e","c","u","r","n","o","b"],"additionalProperties":false}`,
		},
		{
			name: "nested in items, prefixItems, anyOf, defs; existing additionalProperties kept",
			in: `{"type":"object","additionalProperties":true,"properties":{
				"list":{"type":"array","items":{"type":"object","properties":{"x":{"type":"string"}}}},
				"tuple":{"type":"array","prefixItems":[{"type":"object","properties":{"y":{"type":"number"}}}]},
				"any":{"anyOf":[{"type":"object","properties":{"w":{"type":"boolean"}}}]}},
				"required":["list","tuple","any"],
				"definitions":{"d":{"type":"object"}}}`,
			want: `{"type":"object","additionalProperties":true,"properties":{
				"list":{"type":"array","items":{"type":"object","properties":{"x":{"type":["string","null"]}},"required":["x"],"additionalProperties":false}},
				"tuple":{"type":"array","prefixItems":[{"type":"object","properties":{"y":{"type":["number","null"]}},"required":["y"],"additionalProperties":false}]},
				"any":{"anyOf":[{"type":"object","properties":{"w":{"type":["boolean","null"]}},"required":["w"],"additionalProperties":false}]}},
				"required":["list","tuple","any"],
				"definitions":{"d":{"type":"object","additionalProperties":false}}}`,
		},
		{
			name: "html characters are not escaped",
			in:   `{"type":"object","description":"a <b> & c","properties":{}}`,
			want: `{"type":"object","description":"a <b> & c","properties":{},"required":[],"additionalProperties":false}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := strictSchema([]byte(tt.in))
			require.NoError(t, err)
			assert.Equal(t, compact(t, tt.want), string(got))
		})
	}
}

func TestStrictSchemaErrors(t *testing.T) {
	for _, in := range []string{``, `{`, `{"a":1} x`, `"s"`, `[1]`, strings.Repeat("[", 600) + strings.Repeat("]", 600)} {
		for _, strict := range []bool{true, false} {
			_, _, err := responseFormat(&model.OutputSpec{Schema: json.RawMessage(in), Strict: strict})
			require.Error(t, err, in)
			assert.Contains(t, err.Error(), "output schema: ", in)
		}
	}
}

// strictSchema is the strict rewrite of raw, a JSON object.
func strictSchema(raw []byte) ([]byte, error) {
	s, err := parseOrdered(raw)
	if err != nil {
		return nil, err
	}
	makeStrict(s)
	return marshalOrdered(s)
}

func TestStripNulls(t *testing.T) {
	schema := `{"type":"object","properties":{
		"opt":{"type":"string"},
		"req":{"type":["string","null"]},
		"obj":{"$ref":"#/$defs/o"},
		"arr":{"type":"array","items":{"$ref":"#/$defs/o"}},
		"tup":{"type":"array","prefixItems":[{"$ref":"#/$defs/o"}],"items":{"type":"object","properties":{"q":{"type":"string"}}}},
		"alt":{"anyOf":[{"type":"object","properties":{"m":{"type":"string"}},"required":[]}]},
		"all":{"allOf":[{"$ref":"#/$defs/o"}]}
	},"required":["req"],
	"$defs":{"o":{"type":"object","properties":{"p":{"type":"string"},"k":{"type":"string"}},"required":["k"]}}}`
	tests := []struct {
		name, answer, want string
	}{
		{"top level", `{"opt":null,"req":null}`, `{"req":null}`},
		{"ref", `{"req":"x","obj":{"p":null,"k":null}}`, `{"req":"x","obj":{"k":null}}`},
		{"optional object null", `{"obj":null,"req":"x"}`, `{"req":"x"}`},
		{"array items", `{"arr":[{"p":null,"k":"1"},{"p":"2","k":"3"}]}`, `{"arr":[{"k":"1"},{"p":"2","k":"3"}]}`},
		{"prefix items then items", `{"tup":[{"p":null,"k":"a"},{"q":null},{"q":"z"}]}`, `{"tup":[{"k":"a"},{},{"q":"z"}]}`},
		{"anyOf branch", `{"alt":{"m":null}}`, `{"alt":{}}`},
		{"allOf branch", `{"all":{"p":null,"k":"v"}}`, `{"all":{"k":"v"}}`},
		{"unknown keys untouched", `{"extra":null,"req":1}`, `{"extra":null,"req":1}`},
		{"exact numbers", `{"req":12345678901234567890.5}`, `{"req":12345678901234567890.5}`},
		{"not an object", `[null]`, `[null]`},
	}
	original, err := parseOrdered([]byte(schema))
	require.NoError(t, err)
	out := &outputMapping{schema: original}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, out.mapBack(tt.answer))
		})
	}
	assert.Equal(t, "not json", out.mapBack("not json"))
}

func TestSchemaName(t *testing.T) {
	tests := map[string]string{
		"":                      "output",
		"plan":                  "plan",
		"my plan/v2":            "my_plan_v2",
		strings.Repeat("a", 70): strings.Repeat("a", 64),
	}
	for in, want := range tests {
		assert.Equal(t, want, schemaName(in))
	}
}

func TestRetryAfterParsing(t *testing.T) {
	tests := []struct {
		name   string
		header map[string]string
		want   string
	}{
		{"none", nil, "0s"},
		{"seconds", map[string]string{"Retry-After": "2"}, "2s"},
		{"fraction", map[string]string{"Retry-After": "0.25"}, "250ms"},
		{"negative", map[string]string{"Retry-After": "-1"}, "0s"},
		{"absurd", map[string]string{"Retry-After": "999999"}, "0s"},
		{"garbage", map[string]string{"Retry-After": "soon"}, "0s"},
		{"ms wins", map[string]string{"Retry-After-Ms": "20", "Retry-After": "2"}, "20ms"},
		{"past date", map[string]string{"Retry-After": "Mon, 02 Jan 2006 15:04:05 GMT"}, "0s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := make(map[string][]string)
			for k, v := range tt.header {
				h[k] = []string{v}
			}
			if tt.header == nil {
				h = nil
			}
			assert.Equal(t, tt.want, retryAfter(canonical(h), timeNow()).String())
		})
	}
}

func compact(t *testing.T, s string) string {
	t.Helper()
	v, err := parseOrdered([]byte(s))
	require.NoError(t, err)
	b, err := marshalOrdered(v)
	require.NoError(t, err)
	return string(b)
}

func canonical(h map[string][]string) http.Header {
	if h == nil {
		return nil
	}
	out := http.Header{}
	for k, vs := range h {
		for _, v := range vs {
			out.Add(k, v)
		}
	}
	return out
}

func timeNow() time.Time { return time.Now() }
