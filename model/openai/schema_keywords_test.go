package openai

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Keywords OpenAI's strict mode refuses are said in words in the
// description, or left out when words cannot say them; those it supports
// are sent unchanged.
func TestStrictKeywords(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{
			name: "default in words, after the description",
			in:   `{"type":"string","description":"The status.","default":"draft"}`,
			want: `{"type":"string","description":"The status. (default: \"draft\")"}`,
		},
		{
			name: "default of every kind",
			in:   `{"type":"object","properties":{"n":{"type":"integer","default":3},"l":{"type":"array","items":{"type":"string"},"default":["a","b"]},"b":{"type":"boolean","default":false}},"required":["n","l","b"]}`,
			want: `{"type":"object","properties":{"n":{"type":"integer","description":"default: 3"},"l":{"type":"array","items":{"type":"string"},"description":"default: [\"a\",\"b\"]"},"b":{"type":"boolean","description":"default: false"}},"required":["n","l","b"],"additionalProperties":false}`,
		},
		{
			name: "a null default says nothing the nullable type does not",
			in:   `{"type":["string","null"],"default":null}`,
			want: `{"type":["string","null"]}`,
		},
		{
			name: "not a constant or one of some values, in words",
			in:   `{"type":"object","properties":{"c":{"type":"string","not":{"const":"root"}},"e":{"type":"string","not":{"enum":["a","b"]}}},"required":["c","e"]}`,
			want: `{"type":"object","properties":{"c":{"type":"string","description":"not \"root\""},"e":{"type":"string","description":"none of \"a\", \"b\""}},"required":["c","e"],"additionalProperties":false}`,
		},
		{
			name: "any other not is left out",
			in:   `{"type":"string","not":{"pattern":"^x"}}`,
			want: `{"type":"string"}`,
		},
		{
			name: "if, then and else are left out",
			in:   `{"type":"object","properties":{"k":{"type":"string"}},"required":["k"],"if":{"properties":{"k":{"const":"a"}}},"then":{"required":["k"]},"else":{"required":[]}}`,
			want: `{"type":"object","properties":{"k":{"type":"string"}},"required":["k"],"additionalProperties":false}`,
		},
		{
			name: "dependentRequired in words, dependentSchemas left out",
			in: `{"type":"object","properties":{"card":{"type":"string"},"cvv":{"type":"string"},"zip":{"type":"string"}},
				"dependentRequired":{"card":["cvv","zip"],"cvv":["card"]},"dependentSchemas":{"zip":{"required":["card"]}}}`,
			want: `{"type":"object","properties":{"card":{"type":["string","null"]},"cvv":{"type":["string","null"]},"zip":{"type":["string","null"]}},
				"description":"when \"card\" is given, \"cvv\" and \"zip\" must be given too; when \"cvv\" is given, \"card\" must be given too",
				"required":["card","cvv","zip"],"additionalProperties":false}`,
		},
		{
			name: "draft-07 dependencies: names in words, schemas left out",
			in:   `{"type":"object","description":"Payment.","properties":{"a":{"type":"string"},"b":{"type":"string"}},"required":["a","b"],"dependencies":{"a":["b"],"b":{"required":["a"]}}}`,
			want: `{"type":"object","description":"Payment. (when \"a\" is given, \"b\" must be given too)","properties":{"a":{"type":"string"},"b":{"type":"string"}},"required":["a","b"],"additionalProperties":false}`,
		},
		{
			name: "oneOf is sent as anyOf",
			in:   `{"type":"object","properties":{"v":{"oneOf":[{"type":"string"},{"type":"integer"}]}},"required":["v"]}`,
			want: `{"type":"object","properties":{"v":{"anyOf":[{"type":"string"},{"type":"integer"}]}},"required":["v"],"additionalProperties":false}`,
		},
		{
			name: "allOf of objects is merged into its parent",
			in: `{"type":"object","description":"A person.","allOf":[
				{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]},
				{"properties":{"age":{"type":"integer","minimum":0}},"description":"ignored: the parent says it"}]}`,
			want: `{"type":"object","description":"A person.","properties":{"name":{"type":"string"},"age":{"type":["integer","null"],"minimum":0}},
				"required":["name","age"],"additionalProperties":false}`,
		},
		{
			name: "allOf with a reference is inlined, the definitions kept",
			in: `{"type":"object","properties":{"p":{"allOf":[{"$ref":"#/$defs/base"},{"properties":{"extra":{"type":"string","maxLength":3}},"required":["extra"]}]}},"required":["p"],
				"$defs":{"base":{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}}}`,
			want: `{"type":"object","properties":{"p":{"type":"object","properties":{"id":{"type":"string"},"extra":{"type":"string","description":"at most 3 characters"}},"required":["id","extra"],"additionalProperties":false}},"required":["p"],
				"$defs":{"base":{"type":"object","properties":{"id":{"type":"string"}},"required":["id"],"additionalProperties":false}},"additionalProperties":false}`,
		},
		{
			name: "allOf properties declared twice are merged, the first value of a keyword kept",
			in:   `{"type":"object","properties":{"x":{"type":"string","description":"X."}},"required":["x"],"allOf":[{"properties":{"x":{"type":"integer","pattern":"^a"}}}]}`,
			want: `{"type":"object","properties":{"x":{"type":"string","description":"X.","pattern":"^a"}},"required":["x"],"additionalProperties":false}`,
		},
		{
			name: "an allOf that refers to the schema around it ends",
			in:   `{"type":"object","properties":{"n":{"$ref":"#/$defs/node"}},"required":["n"],"$defs":{"node":{"allOf":[{"$ref":"#/$defs/node"},{"type":"object","properties":{"v":{"type":"string"}},"required":["v"]}]}}}`,
			want: `{"type":"object","properties":{"n":{"$ref":"#/$defs/node"}},"required":["n"],"$defs":{"node":{"type":"object","properties":{"v":{"type":"string"}},"required":["v"],"additionalProperties":false}},"additionalProperties":false}`,
		},
		{
			name: "a described reference in allOf becomes a reference",
			in: `{"type":"object","properties":{"tree":{"$ref":"#/$defs/node"}},"required":["tree"],"$defs":{"node":{"type":"object",
				"properties":{"v":{"type":"string"},"child":{"description":"The child.","allOf":[{"$ref":"#/$defs/node"}]}},"required":["v","child"]}}}`,
			want: `{"type":"object","properties":{"tree":{"$ref":"#/$defs/node"}},"required":["tree"],"$defs":{"node":{"type":"object",
				"properties":{"v":{"type":"string"},"child":{"description":"The child.","$ref":"#/$defs/node"}},"required":["v","child"],"additionalProperties":false}},
				"additionalProperties":false}`,
		},
		{
			name: "a recursive type merged through allOf is copied once, then referred to",
			in: `{"type":"object","properties":{"v":{"type":"string"},"child":{"allOf":[{"$ref":"#"},{"properties":{"w":{"type":"integer"}},"required":["w"]}]}},
				"required":["v","child"]}`,
			want: `{"type":"object","properties":{"v":{"type":"string"},"child":{
				"type":"object","properties":{"v":{"type":"string"},"child":{"$ref":"#","properties":{"w":{"type":"integer"}},"required":["w"],"additionalProperties":false},
					"w":{"type":"integer"}},"required":["v","child","w"],"additionalProperties":false}},
				"required":["v","child"],"additionalProperties":false}`,
		},
		{
			name: "supported keywords stay",
			in: `{"type":"object","properties":{
				"s":{"type":"string","pattern":"^[a-z]+$","format":"email"},
				"n":{"type":"number","minimum":0,"exclusiveMaximum":10,"multipleOf":0.5},
				"a":{"type":"array","items":{"$ref":"#/$defs/d"},"minItems":1,"maxItems":3},
				"e":{"enum":["x","y"]},"k":{"const":"z"},"u":{"anyOf":[{"type":"string"},{"type":"null"}]}},
				"required":["s","n","a","e","k","u"],"$defs":{"d":{"type":"string","title":"D"}}}`,
			want: `{"type":"object","properties":{
				"s":{"type":"string","pattern":"^[a-z]+$","format":"email"},
				"n":{"type":"number","minimum":0,"exclusiveMaximum":10,"multipleOf":0.5},
				"a":{"type":"array","items":{"$ref":"#/$defs/d"},"minItems":1,"maxItems":3},
				"e":{"enum":["x","y"]},"k":{"const":"z"},"u":{"anyOf":[{"type":"string"},{"type":"null"}]}},
				"required":["s","n","a","e","k","u"],"$defs":{"d":{"type":"string","title":"D"}},"additionalProperties":false}`,
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

// FuzzStrictSchema rewrites arbitrary schemas for strict mode: whatever
// allOf, references and keywords they hold, the rewrite ends, never
// panics, and gives JSON.
func FuzzStrictSchema(f *testing.F) {
	for _, seed := range []string{
		`{"type":"object","properties":{"a":{"allOf":[{"$ref":"#"},{"properties":{"b":{"default":1}}}]}}}`,
		`{"$defs":{"x":{"allOf":[{"$ref":"#/$defs/y"}]},"y":{"allOf":[{"$ref":"#/$defs/x"},{"not":{"const":1}}]}},"allOf":[{"$ref":"#/$defs/x"}]}`,
		`{"oneOf":[{"dependentRequired":{"a":["b"]}}],"anyOf":[true]}`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, schema string) {
		if _, err := parseOrdered([]byte(schema)); err != nil {
			return
		}
		got, err := strictSchema([]byte(schema))
		if err != nil {
			t.Fatalf("strictSchema(%s): %v", schema, err)
		}
		if _, err := parseOrdered(got); err != nil {
			t.Fatalf("strictSchema(%s) = %s, not JSON: %v", schema, got, err)
		}
	})
}
