package serde

import (
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"
)

// applyDefaults records the non-zero values of defaults (a value of t, or a
// pointer to one) as "default" in s, the schema of t.
func applyDefaults(s *jsonschema.Schema, t reflect.Type, defaults any) error {
	v := reflect.ValueOf(defaults)
	for v.Type() != t && v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return nil
		}
		v = v.Elem()
	}
	if v.Type() != t {
		return fmt.Errorf("serde: SchemaOptions.Defaults is a %T, want a %s or a pointer to one", defaults, t)
	}
	return setDefaults(s, v, false)
}

// setDefaults sets the default of s, the schema of v's type, from v: field
// by field for a struct, whole otherwise. quoted is the `,string` option.
func setDefaults(s *jsonschema.Schema, v reflect.Value, quoted bool) error {
	if s == nil || v.IsZero() {
		return nil
	}
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return nil
		}
		v = v.Elem()
	}
	if !quoted && isObjectStruct(v.Type()) {
		for _, f := range fieldsOf(v.Type()).list {
			fv, ok := fieldByIndex(v, f.index)
			if !ok {
				continue
			}
			if err := setDefaults(s.Properties[f.name], fv, f.quoted); err != nil {
				return fmt.Errorf("%s: %w", f.name, err)
			}
		}
		return nil
	}
	raw, err := json.Marshal(v.Interface())
	if err != nil {
		return fmt.Errorf("serde: default value: %w", err)
	}
	if quoted {
		// `,string` encodes the JSON text of the value as a JSON string.
		if raw, err = json.Marshal(string(raw)); err != nil {
			return fmt.Errorf("serde: default value: %w", err)
		}
	}
	s.Default = raw
	return nil
}
