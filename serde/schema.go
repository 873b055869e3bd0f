package serde

import (
	"encoding"
	"encoding/json"
	"fmt"
	"log/slog"
	"reflect"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
)

// SchemaOptions tunes SchemaFor.
type SchemaOptions struct {
	// Defaults, when not nil, is a value of the schema's type (or a pointer
	// to one) whose non-zero fields appear as "default" in the schema. Nested
	// structs are followed, so each non-zero leaf field gets its own default;
	// slices, maps and other values appear whole.
	Defaults any
}

// Schema returns the JSON Schema of T; see SchemaFor.
func Schema[T any]() (*jsonschema.Schema, error) {
	return SchemaFor(reflect.TypeFor[T](), SchemaOptions{})
}

// SchemaFor returns the JSON Schema that describes the JSON encoding of t,
// as Decode accepts it, for a model or any other client:
//
//   - Struct fields appear under their JSON names, with encoding/json's rules
//     for `json` tags and embedded structs (whose fields are promoted). A
//     field's `jsonschema:"…"` tag text is its description. Every object has
//     "additionalProperties": false, and properties keep the Go field order.
//   - Required are the fields without `omitempty`/`omitzero` in their json
//     tag, and those with `validate:"required"`.
//   - Validator tags with a JSON Schema form are shown: min, max, len, gt,
//     gte, lt, lte (lengths for strings, item counts for slices and maps,
//     bounds for numbers), oneof (enum), required (also minLength 1 for a
//     string), unique, email, url, uri, uuid, hostname, ipv4, ipv6 (format),
//     ascii, printascii, alphanum, alpha (pattern). Tags after `dive` apply
//     to the items of a slice or the values of a map. Rules behind validator's
//     omitempty are shown as if a value were given, so the schema may be
//     stricter than validation about empty values.
//   - Pointers are nullable: *T has the type of T plus "null", since Decode
//     accepts null for them; a pointer field with validator rules that reject
//     nil (rules without omitempty) stays non-null. Slices and maps are plain
//     arrays and objects: Decode accepts null for them too, but a model
//     should send [] or {}.
//   - Maps are objects whose additionalProperties is the value schema;
//     []byte is a base64 string; time.Time a string with format date-time;
//     json.RawMessage and interfaces accept any value; other types that
//     marshal as text (encoding.TextMarshaler) are strings. Scalars use
//     jsonschema-go's inference (integers of fixed size get their range).
//   - Recursive types, channels, functions and complex numbers are errors.
//
// Schemas are built once per type and cached; each call returns a deep copy
// the caller may change freely.
func SchemaFor(t reflect.Type, opts SchemaOptions) (*jsonschema.Schema, error) {
	if t == nil {
		return nil, fmt.Errorf("serde: SchemaFor needs a type, got nil")
	}
	cached, err := cachedSchema(t)
	if err != nil {
		return nil, err
	}
	s := cloneSchema(cached)
	if opts.Defaults != nil {
		if err := applyDefaults(s, t, opts.Defaults); err != nil {
			return nil, err
		}
	}
	return s, nil
}

type schemaEntry struct {
	schema *jsonschema.Schema
	err    error
}

var schemaCache sync.Map // reflect.Type -> schemaEntry

func cachedSchema(t reflect.Type) (*jsonschema.Schema, error) {
	if e, ok := schemaCache.Load(t); ok {
		return e.(schemaEntry).schema, e.(schemaEntry).err
	}
	b := &schemaBuilder{inProgress: map[reflect.Type]bool{}}
	s, err := b.build(t)
	if err != nil {
		err = fmt.Errorf("serde: schema of %s: %w", t, err)
	}
	e, _ := schemaCache.LoadOrStore(t, schemaEntry{schema: s, err: err})
	return e.(schemaEntry).schema, e.(schemaEntry).err
}

// schemaBuilder infers a schema for one root type. It walks containers and
// structs itself rather than calling jsonschema.For on the root, because
// For resolves struct members differently from encoding/json (embedded
// structs with a json name, JSON name conflicts between depths, embedded
// non-struct types), and Decode follows encoding/json; jsonschema-go still
// supplies the Schema type and the scalar schemas.
type schemaBuilder struct {
	inProgress map[reflect.Type]bool // struct types being built: cycle guard
}

var (
	jsonMarshalerType = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
	rawMessageType    = reflect.TypeFor[json.RawMessage]()
	jsonNumberType    = reflect.TypeFor[json.Number]()
	slogLevelType     = reflect.TypeFor[slog.Level]()
)

// build returns the schema of t, following pointers (and making the result
// nullable when there was one).
func (b *schemaBuilder) build(t reflect.Type) (*jsonschema.Schema, error) {
	nullable := false
	for t.Kind() == reflect.Pointer {
		nullable, t = true, t.Elem()
	}
	s, err := b.buildValue(t)
	if err != nil || !nullable {
		return s, err
	}
	makeNullable(s)
	return s, nil
}

// shape says how encoding/json renders a type, as far as schemas care.
type shape uint8

const (
	shapeKind     shape = iota // by its reflect.Kind
	shapeAny                   // anything (interfaces, json.RawMessage)
	shapeDateTime              // time.Time
	shapeText                  // a string, through encoding.TextMarshaler
	shapeNumber                // json.Number
	shapeBytes                 // []byte: a base64 string
)

func shapeOf(t reflect.Type) shape {
	switch {
	case t == timeType:
		return shapeDateTime
	case t == rawMessageType || t.Kind() == reflect.Interface:
		return shapeAny
	case t == jsonNumberType:
		return shapeNumber
	case t == slogLevelType:
		return shapeText
	}
	marshalsJSON := t.Implements(jsonMarshalerType) || reflect.PointerTo(t).Implements(jsonMarshalerType)
	if !marshalsJSON && (t.Implements(textMarshalerType) || reflect.PointerTo(t).Implements(textMarshalerType)) {
		return shapeText
	}
	if t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8 && !marshalsJSON {
		e := t.Elem()
		if !reflect.PointerTo(e).Implements(jsonMarshalerType) && !reflect.PointerTo(e).Implements(textMarshalerType) {
			return shapeBytes
		}
	}
	return shapeKind
}

// isObjectStruct reports whether t (pointers followed) is a struct that
// encodes as a JSON object of its fields.
func isObjectStruct(t reflect.Type) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Kind() == reflect.Struct && shapeOf(t) == shapeKind
}

func (b *schemaBuilder) buildValue(t reflect.Type) (*jsonschema.Schema, error) {
	switch shapeOf(t) {
	case shapeAny:
		return &jsonschema.Schema{}, nil
	case shapeDateTime:
		return &jsonschema.Schema{Type: "string", Format: "date-time"}, nil
	case shapeText:
		return &jsonschema.Schema{Type: "string"}, nil
	case shapeNumber:
		return &jsonschema.Schema{Type: "number"}, nil
	case shapeBytes:
		return &jsonschema.Schema{Type: "string", ContentEncoding: "base64"}, nil
	}
	switch t.Kind() {
	case reflect.Struct:
		return b.buildStruct(t)
	case reflect.Slice, reflect.Array:
		items, err := b.build(t.Elem())
		if err != nil {
			return nil, err
		}
		s := &jsonschema.Schema{Type: "array", Items: items}
		if t.Kind() == reflect.Array {
			s.MinItems, s.MaxItems = jsonschema.Ptr(t.Len()), jsonschema.Ptr(t.Len())
		}
		return s, nil
	case reflect.Map:
		k := t.Key()
		switch {
		case k.Kind() == reflect.String, k.Implements(textMarshalerType),
			k.Kind() >= reflect.Int && k.Kind() <= reflect.Uintptr:
		default:
			return nil, fmt.Errorf("map key type %s has no JSON form; use string keys", k)
		}
		values, err := b.build(t.Elem())
		if err != nil {
			return nil, err
		}
		return &jsonschema.Schema{Type: "object", AdditionalProperties: values}, nil
	case reflect.Bool, reflect.String, reflect.Float32, reflect.Float64,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return jsonschema.ForType(t, nil)
	}
	return nil, fmt.Errorf("type %s (%s) has no JSON form", t, t.Kind())
}

func (b *schemaBuilder) buildStruct(t reflect.Type) (*jsonschema.Schema, error) {
	if b.inProgress[t] {
		return nil, fmt.Errorf("type %s is recursive; JSON Schemas of recursive types are not supported", t)
	}
	b.inProgress[t] = true
	defer delete(b.inProgress, t)

	fields := fieldsOf(t).list
	s := &jsonschema.Schema{
		Type:                 "object",
		Properties:           make(map[string]*jsonschema.Schema, len(fields)),
		AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
		PropertyOrder:        make([]string, 0, len(fields)),
	}
	for _, f := range fields {
		var (
			fs  *jsonschema.Schema
			err error
		)
		if f.quoted {
			fs = &jsonschema.Schema{Type: "string"}
			if f.field.Type.Kind() == reflect.Pointer {
				makeNullable(fs)
			}
		} else if fs, err = b.build(f.field.Type); err != nil {
			return nil, fmt.Errorf("field %s: %w", f.name, err)
		}
		if desc := f.field.Tag.Get("jsonschema"); desc != "" {
			fs.Description = desc
		}
		rules := parseRules(f.field.Tag.Get("validate"))
		if !f.quoted {
			rules.apply(fs, f.field.Type)
		}
		s.Properties[f.name] = fs
		s.PropertyOrder = append(s.PropertyOrder, f.name)
		if !f.omitEmpty || rules.required {
			s.Required = append(s.Required, f.name)
		}
	}
	return s, nil
}

// makeNullable adds "null" to the types s accepts.
func makeNullable(s *jsonschema.Schema) {
	switch {
	case s.Type != "":
		s.Types, s.Type = []string{"null", s.Type}, ""
	case len(s.Types) > 0:
		for _, ty := range s.Types {
			if ty == "null" {
				return
			}
		}
		s.Types = append([]string{"null"}, s.Types...)
	}
	// An empty schema (any value) already accepts null.
}
