package serde

import (
	"encoding/json"
	"errors"
	"net/netip"
	"reflect"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type sStep struct {
	Title string `json:"title" jsonschema:"Short imperative title." validate:"required,max=160"`
	Kind  string `json:"kind" validate:"oneof=plan_step ad_hoc"`
	Done  bool   `json:"done,omitempty"`
}

type sPlan struct {
	Goal  string  `json:"goal" validate:"min=3,max=200"`
	Steps []sStep `json:"steps" validate:"min=1,max=20,dive"`
	Owner *sOwner `json:"owner,omitempty"`
}

type sOwner struct {
	Name string `json:"name"`
}

type sAudit struct {
	CreatedAt time.Time `json:"created_at"`
	By        string    `json:"by,omitempty"`
}

type sDoc struct {
	sAudit
	*sOwner
	Title string `json:"title"`
}

type sOptional struct {
	Note     *string `json:"note"`
	Level    *int    `json:"level,omitempty" validate:"omitempty,oneof=1 2 3"`
	Must     *string `json:"must" validate:"max=3"`
	Due      *time.Time
	Required string `json:"required,omitempty" validate:"required"`
}

type sMisc struct {
	Labels  map[string]int   `json:"labels"`
	Steps   map[string]sStep `json:"steps" validate:"max=3,dive"`
	Tags    []string         `json:"tags" validate:"unique,dive,alphanum,len=4"`
	Grid    [2][2]int        `json:"grid"`
	Blob    []byte           `json:"blob"`
	Any     any              `json:"any"`
	Raw     json.RawMessage  `json:"raw" jsonschema:"Anything."`
	Addr    netip.Addr       `json:"addr"`
	Small   int8             `json:"small" validate:"min=0"`
	Count   int              `json:"count,string"`
	Ratio   float64          `json:"ratio" validate:"gt=0,lte=1"`
	Email   string           `json:"email" validate:"email"`
	Letters string           `json:"letters" validate:"ascii"`
}

func TestSchema(t *testing.T) {
	tests := []struct {
		name string
		typ  reflect.Type
		opts SchemaOptions
		want string
	}{
		{
			name: "nested structs, slices, enums, descriptions",
			typ:  reflect.TypeFor[sPlan](),
			want: `{
				"type": "object",
				"properties": {
					"goal": {"type": "string", "minLength": 3, "maxLength": 200},
					"steps": {
						"type": "array",
						"minItems": 1, "maxItems": 20,
						"items": {
							"type": "object",
							"properties": {
								"title": {"type": "string", "description": "Short imperative title.", "minLength": 1, "maxLength": 160},
								"kind": {"type": "string", "enum": ["plan_step", "ad_hoc"]},
								"done": {"type": "boolean"}
							},
							"required": ["title", "kind"],
							"additionalProperties": false
						}
					},
					"owner": {
						"type": ["null", "object"],
						"properties": {"name": {"type": "string"}},
						"required": ["name"],
						"additionalProperties": false
					}
				},
				"required": ["goal", "steps"],
				"additionalProperties": false
			}`,
		},
		{
			name: "defaults, recursively",
			typ:  reflect.TypeFor[sPlan](),
			opts: SchemaOptions{Defaults: sPlan{Goal: "ship it", Owner: &sOwner{Name: "ann"}, Steps: []sStep{{Title: "a"}}}},
			want: `{
				"type": "object",
				"properties": {
					"goal": {"type": "string", "minLength": 3, "maxLength": 200, "default": "ship it"},
					"steps": {
						"type": "array",
						"minItems": 1, "maxItems": 20,
						"default": [{"title": "a", "kind": ""}],
						"items": {
							"type": "object",
							"properties": {
								"title": {"type": "string", "description": "Short imperative title.", "minLength": 1, "maxLength": 160},
								"kind": {"type": "string", "enum": ["plan_step", "ad_hoc"]},
								"done": {"type": "boolean"}
							},
							"required": ["title", "kind"],
							"additionalProperties": false
						}
					},
					"owner": {
						"type": ["null", "object"],
						"properties": {"name": {"type": "string", "default": "ann"}},
						"required": ["name"],
						"additionalProperties": false
					}
				},
				"required": ["goal", "steps"],
				"additionalProperties": false
			}`,
		},
		{
			name: "embedded structs and time",
			typ:  reflect.TypeFor[sDoc](),
			opts: SchemaOptions{Defaults: &sDoc{sAudit: sAudit{CreatedAt: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)}}},
			want: `{
				"type": "object",
				"properties": {
					"created_at": {"type": "string", "format": "date-time", "default": "2025-01-02T03:04:05Z"},
					"by": {"type": "string"},
					"name": {"type": "string"},
					"title": {"type": "string"}
				},
				"required": ["created_at", "name", "title"],
				"additionalProperties": false
			}`,
		},
		{
			name: "pointers",
			typ:  reflect.TypeFor[sOptional](),
			want: `{
				"type": "object",
				"properties": {
					"note": {"type": ["null", "string"]},
					"level": {"type": ["null", "integer"], "enum": [1, 2, 3, null]},
					"must": {"type": "string", "maxLength": 3},
					"Due": {"type": ["null", "string"], "format": "date-time"},
					"required": {"type": "string", "minLength": 1}
				},
				"required": ["note", "must", "Due", "required"],
				"additionalProperties": false
			}`,
		},
		{
			name: "maps, arrays, bytes, any, text, numbers",
			typ:  reflect.TypeFor[sMisc](),
			opts: SchemaOptions{Defaults: sMisc{Count: 5, Small: 1}},
			want: `{
				"type": "object",
				"properties": {
					"labels": {"type": "object", "additionalProperties": {"type": "integer"}},
					"steps": {
						"type": "object",
						"maxProperties": 3,
						"additionalProperties": {
							"type": "object",
							"properties": {
								"title": {"type": "string", "description": "Short imperative title.", "minLength": 1, "maxLength": 160},
								"kind": {"type": "string", "enum": ["plan_step", "ad_hoc"]},
								"done": {"type": "boolean"}
							},
							"required": ["title", "kind"],
							"additionalProperties": false
						}
					},
					"tags": {
						"type": "array",
						"uniqueItems": true,
						"items": {"type": "string", "pattern": "^[a-zA-Z0-9]+$", "minLength": 4, "maxLength": 4}
					},
					"grid": {
						"type": "array", "minItems": 2, "maxItems": 2,
						"items": {"type": "array", "minItems": 2, "maxItems": 2, "items": {"type": "integer"}}
					},
					"blob": {"type": "string", "contentEncoding": "base64"},
					"any": true,
					"raw": {"description": "Anything."},
					"addr": {"type": "string"},
					"small": {"type": "integer", "minimum": 0, "maximum": 127, "default": 1},
					"count": {"type": "string", "default": "5"},
					"ratio": {"type": "number", "exclusiveMinimum": 0, "maximum": 1},
					"email": {"type": "string", "format": "email"},
					"letters": {"type": "string", "pattern": "^[\\x00-\\x7F]*$"}
				},
				"required": ["labels", "steps", "tags", "grid", "blob", "any", "raw", "addr", "small", "count", "ratio", "email", "letters"],
				"additionalProperties": false
			}`,
		},
		{
			name: "not a struct",
			typ:  reflect.TypeFor[[]*sOwner](),
			want: `{
				"type": "array",
				"items": {
					"type": ["null", "object"],
					"properties": {"name": {"type": "string"}},
					"required": ["name"],
					"additionalProperties": false
				}
			}`,
		},
		{
			name: "scalar with a default",
			typ:  reflect.TypeFor[uint16](),
			opts: SchemaOptions{Defaults: uint16(8)},
			want: `{"type": "integer", "minimum": 0, "maximum": 65535, "default": 8}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := SchemaFor(tt.typ, tt.opts)
			require.NoError(t, err)
			got, err := json.Marshal(s)
			require.NoError(t, err)
			assert.JSONEq(t, tt.want, string(got))
		})
	}
}

func TestSchemaPropertyOrderFollowsFields(t *testing.T) {
	s, err := Schema[sStep]()
	require.NoError(t, err)
	got, err := json.Marshal(s)
	require.NoError(t, err)
	assert.Equal(t, `{"type":"object","properties":{"title":{"type":"string","description":"Short imperative title.","minLength":1,"maxLength":160},"kind":{"type":"string","enum":["plan_step","ad_hoc"]},"done":{"type":"boolean"}},"required":["title","kind"],"additionalProperties":false}`, string(got))
}

type sNode struct {
	Name     string  `json:"name"`
	Children []sNode `json:"children"`
}

func TestSchemaErrors(t *testing.T) {
	type withChan struct{ C chan int }
	type withFunc struct{ F func() }
	type withKey struct{ M map[sOwner]int }
	type withComplex struct{ C complex128 }
	tests := []struct {
		name string
		typ  reflect.Type
		opts SchemaOptions
		msg  string
	}{
		{"nil type", nil, SchemaOptions{}, "needs a type"},
		{"recursive", reflect.TypeFor[sNode](), SchemaOptions{}, "is recursive"},
		{"channel", reflect.TypeFor[withChan](), SchemaOptions{}, "field C: type chan int (chan) has no JSON form"},
		{"func", reflect.TypeFor[withFunc](), SchemaOptions{}, "has no JSON form"},
		{"complex", reflect.TypeFor[withComplex](), SchemaOptions{}, "has no JSON form"},
		{"map key", reflect.TypeFor[withKey](), SchemaOptions{}, "use string keys"},
		{"defaults of another type", reflect.TypeFor[sPlan](), SchemaOptions{Defaults: sStep{}}, "SchemaOptions.Defaults is a serde.sStep"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := SchemaFor(tt.typ, tt.opts)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.msg)
		})
	}
}

func TestSchemaReturnsIndependentCopies(t *testing.T) {
	first, err := Schema[sPlan]()
	require.NoError(t, err)
	want, err := json.Marshal(first)
	require.NoError(t, err)

	// Change everything reachable in the copy.
	first.Required[0] = "changed"
	first.Properties["goal"].MinLength = jsonschema.Ptr(99)
	*first.Properties["steps"].MaxItems = 1
	first.Properties["steps"].Items.Properties["kind"].Enum[0] = "changed"
	first.Properties["steps"].Items.PropertyOrder[0] = "changed"
	delete(first.Properties, "owner")

	second, err := Schema[sPlan]()
	require.NoError(t, err)
	got, err := json.Marshal(second)
	require.NoError(t, err)
	assert.JSONEq(t, string(want), string(got))
}

func TestSchemaNilDefaultsPointer(t *testing.T) {
	s, err := SchemaFor(reflect.TypeFor[sPlan](), SchemaOptions{Defaults: (*sPlan)(nil)})
	require.NoError(t, err)
	assert.Nil(t, s.Properties["goal"].Default)
}

// TestSchemaAgreesWithDecode checks that a value the schema shows as valid
// decodes, and that the schema's property names are the ones Decode takes.
func TestSchemaAgreesWithDecode(t *testing.T) {
	s, err := Schema[sDoc]()
	require.NoError(t, err)
	for name := range s.Properties {
		_, err := Decode[sDoc]([]byte(`{"` + name + `": null}`))
		var ve *ValidationError
		if errors.As(err, &ve) {
			assert.NotContains(t, ve.Reason, "unknown field", name)
		}
	}
}
