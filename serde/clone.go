package serde

import (
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/offshoot-dev/offshoot/internal/deepcopy"
)

// cloneSchema returns a deep copy of s: unlike Schema.CloneSchemas, which
// shares slices such as Required and Enum and pointers such as Minimum, the
// copy shares nothing with s, so the cached original cannot be changed
// through it.
func cloneSchema(s *jsonschema.Schema) *jsonschema.Schema {
	if s == nil {
		return nil
	}
	return deepcopy.Value(reflect.ValueOf(s)).Interface().(*jsonschema.Schema)
}
