package prompt

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/offshoot-dev/offshoot/serde"
)

// ParseOutput reads the structured output of a model's answer text to the
// prompt rendered as r, which must declare output type O (WithOutput[O]).
//
// It takes the first ```json fenced block, else the whole text, else the
// first balanced {…} or […] in the text (see extractJSON); for an
// object output, the first balanced {…} even after a bracketed fragment of
// prose (extractJSONObject). An array output is accepted as the
// object {"items": […]} it is asked for, or as a bare array. The value is decoded
// strictly: keys the schema does not list are rejected unless the output
// allows extra keys, and wrong types and failed `validate` tags are
// reported. Every failure is an *OutputError giving the JSON path and what
// was expected there.
func ParseOutput[O any](text string, r *Rendered) (O, error) {
	var zero O
	t := reflect.TypeFor[O]()
	if r == nil || r.Output == nil {
		return zero, &OutputError{Reason: fmt.Sprintf("the prompt declares no structured output; declare it with prompt.WithOutput[%s]()", t)}
	}
	if r.Output.typ != t {
		return zero, &OutputError{Reason: fmt.Sprintf("the prompt's output type is %s; call ParseOutput[%s]", r.Output.typ, r.Output.typ)}
	}
	v, err := r.Output.Parse(text)
	if err != nil {
		return zero, err
	}
	return v.(O), nil
}

// Parse is ParseOutput for callers that know the output type only at run
// time, such as the runner: it returns a value of o.Type() (not a pointer),
// or an *OutputError.
func (o *OutputSpec) Parse(text string) (any, error) {
	expected := "a JSON object"
	if o.array {
		expected = "a JSON array"
	}
	extract := extractJSONObject
	if o.array {
		extract = extractJSON
	}
	raw, err := extract(text)
	if err != nil {
		return nil, &OutputError{Reason: "expected " + expected + "; " + strings.TrimPrefix(err.Error(), "serde: "), Err: err}
	}
	raw = bytes.TrimSpace(raw)
	if bytes.Equal(raw, []byte("null")) {
		return nil, &OutputError{Reason: "expected " + expected + ", got null"}
	}
	prefix := ""
	if o.array && len(raw) > 0 && raw[0] == '{' {
		if raw, err = unwrapItems(raw, o.allowExtra); err != nil {
			return nil, err
		}
		prefix = "items"
	}
	var out any
	if o.allowExtra {
		out, err = decodeLenient(raw, o.typ)
	} else {
		out, err = serde.DecodeValue(raw, o.typ)
	}
	if err != nil {
		return nil, outputError(err, prefix)
	}
	return out, nil
}

// unwrapItems returns the array of an {"items": […]} answer.
func unwrapItems(raw json.RawMessage, allowExtra bool) (json.RawMessage, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, &OutputError{Reason: "expected a JSON array, or an object whose \"items\" is the array", Err: err}
	}
	items, ok := obj["items"]
	if !ok {
		return nil, &OutputError{Reason: "expected a JSON array, or an object whose \"items\" is the array; got an object without \"items\""}
	}
	if !allowExtra {
		for k := range obj {
			if k != "items" {
				return nil, &OutputError{Path: k, Reason: "unknown field; allowed: items"}
			}
		}
	}
	if t := bytes.TrimSpace(items); len(t) == 0 || t[0] != '[' {
		return nil, &OutputError{Path: "items", Reason: "must be a JSON array"}
	}
	return items, nil
}

// decodeLenient decodes raw into a new value of t ignoring unknown keys,
// then validates it.
func decodeLenient(raw json.RawMessage, t reflect.Type) (any, error) {
	ptr := reflect.New(t)
	if err := json.Unmarshal(raw, ptr.Interface()); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return nil, &serde.ValidationError{Path: te.Field, Reason: mismatch(te)}
		}
		return nil, err
	}
	if err := serde.Validate(ptr.Interface()); err != nil {
		return nil, err
	}
	return ptr.Elem().Interface(), nil
}

// outputError turns a decoding error into an *OutputError, with prefix in
// front of every JSON path.
func outputError(err error, prefix string) *OutputError {
	var list []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		list = j.Unwrap()
	} else {
		list = []error{err}
	}
	var first *serde.ValidationError
	prefixed := make([]error, 0, len(list))
	for _, e := range list {
		var ve *serde.ValidationError
		if !errors.As(e, &ve) {
			prefixed = append(prefixed, e)
			continue
		}
		ve = &serde.ValidationError{Path: prefixPath(prefix, ve.Path), Reason: ve.Reason}
		if first == nil {
			first = ve
		}
		prefixed = append(prefixed, ve)
	}
	cause := prefixed[0]
	if len(prefixed) > 1 {
		cause = errors.Join(prefixed...)
	}
	if first == nil {
		return &OutputError{Path: prefix, Reason: strings.TrimPrefix(err.Error(), "serde: "), Err: err}
	}
	return &OutputError{Path: first.Path, Reason: first.Reason, Err: cause}
}

func prefixPath(prefix, path string) string {
	switch {
	case prefix == "":
		return path
	case path == "" || path[0] == '[':
		return prefix + path
	}
	return prefix + "." + path
}

// mismatch words a JSON type mismatch found by encoding/json.
func mismatch(e *json.UnmarshalTypeError) string {
	want := "a JSON value of Go type " + e.Type.String()
	switch e.Type.Kind() {
	case reflect.Bool:
		want = "a boolean"
	case reflect.String:
		want = "a string"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		want = "an integer"
	case reflect.Float32, reflect.Float64:
		want = "a number"
	case reflect.Slice, reflect.Array:
		want = "an array"
	case reflect.Struct, reflect.Map:
		want = "an object"
	}
	got, _, _ := strings.Cut(e.Value, " ")
	if got == "bool" {
		got = "boolean"
	}
	article := "a "
	if strings.HasPrefix(got, "a") || strings.HasPrefix(got, "o") {
		article = "an "
	}
	return "must be " + want + ", got " + article + got
}
