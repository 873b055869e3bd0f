package prompt

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/offshoot-dev/offshoot/serde"
)

// OutputSpec is a prompt's structured-output declaration: the Go type the
// model's final answer is parsed into (see ParseOutput) and its JSON
// Schema. It is immutable.
type OutputSpec struct {
	typ        reflect.Type
	array      bool
	allowExtra bool
	schema     json.RawMessage // indented, as shown to the model
	text       []byte          // the body of the Response Format section
}

// Type returns the output's Go type, O in WithOutput[O].
func (o *OutputSpec) Type() reflect.Type { return o.typ }

// Array reports whether the output is a JSON array (O is a slice).
func (o *OutputSpec) Array() bool { return o.array }

// AllowsExtraKeys reports whether objects in the output may carry keys the
// schema does not list (see AllowExtraKeys).
func (o *OutputSpec) AllowsExtraKeys() bool { return o.allowExtra }

// Schema returns the JSON Schema the model is asked to follow, as the
// prompt shows it: the schema of O for a struct; for a slice, an object
// whose one property "items" is the array (providers' strict structured
// output accepts only an object at the root).
func (o *OutputSpec) Schema() json.RawMessage { return bytes.Clone(o.schema) }

// AllowExtraKeys lets the model's output objects carry keys the schema does
// not list: ParseOutput ignores them, and the prompt does not tell the
// model "Do not add extra keys". Give it to New beside WithOutput; without
// WithOutput it is an error.
func AllowExtraKeys() Part {
	return partFunc(func(b *builder) { b.allowExtra = true })
}

// responseFormatTitle is the title of the section that rendering appends
// to a prompt with structured output.
const responseFormatTitle = "Response Format"

// WithOutput declares that the model's final answer is one JSON value of
// type O: a struct (a JSON object) or a slice (a JSON array, asked for as
// {"items": [...]}). Rendering then appends a "Response Format" section
// telling the model to return only that value, showing its schema; parse
// the answer with ParseOutput.
func WithOutput[O any]() Part {
	return partFunc(func(b *builder) { b.outputType = reflect.TypeFor[O]() })
}

func newOutputSpec(t reflect.Type, allowExtraKeys bool) (*OutputSpec, error) {
	o := &OutputSpec{typ: t, allowExtra: allowExtraKeys}
	switch t.Kind() {
	case reflect.Struct:
	case reflect.Slice:
		o.array = true
	default:
		return nil, fmt.Errorf("prompt: WithOutput[%s]: the output must be a struct (a JSON object) or a slice (a JSON array)", t)
	}
	s, err := serde.SchemaFor(t, serde.SchemaOptions{})
	if err != nil {
		return nil, fmt.Errorf("prompt: WithOutput[%s]: %w", t, err)
	}
	if o.array {
		s = &jsonschema.Schema{
			Type:                 "object",
			Properties:           map[string]*jsonschema.Schema{"items": s},
			Required:             []string{"items"},
			AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
		}
	}
	if o.allowExtra {
		allowExtra(s)
	}
	if o.schema, err = json.MarshalIndent(s, "", "  "); err != nil {
		return nil, fmt.Errorf("prompt: WithOutput[%s]: %w", t, err)
	}
	o.text = []byte(o.instructions())
	return o, nil
}

// allowExtra removes "additionalProperties": false from the objects of s.
func allowExtra(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if ap := s.AdditionalProperties; ap != nil && ap.Not != nil && reflect.ValueOf(*ap.Not).IsZero() {
		s.AdditionalProperties = nil
	}
	for _, p := range s.Properties {
		allowExtra(p)
	}
	allowExtra(s.Items)
	allowExtra(s.AdditionalProperties)
}

// instructions is the body of the Response Format section.
func (o *OutputSpec) instructions() string {
	var b strings.Builder
	b.WriteString("Return only one JSON object that matches this JSON Schema, with no other text before or after it")
	if o.array {
		b.WriteString(`; its "items" array holds your answer`)
	}
	b.WriteString(":\n\n")
	b.WriteString("```json\n")
	b.Write(o.schema)
	b.WriteString("\n```")
	if !o.allowExtra {
		b.WriteString("\n\nDo not add extra keys.")
	}
	return b.String()
}
