package serde

import (
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"
)

// cloneSchema returns a deep copy of s: unlike Schema.CloneSchemas, which
// shares slices such as Required and Enum and pointers such as Minimum, the
// copy shares nothing with s, so the cached original cannot be changed
// through it.
func cloneSchema(s *jsonschema.Schema) *jsonschema.Schema {
	if s == nil {
		return nil
	}
	return deepCopy(reflect.ValueOf(s)).Interface().(*jsonschema.Schema)
}

// Clone returns a deep copy of v that shares no pointers, slices or maps
// with it — for decoding over a value (see DecodeInto) without changing the
// original, such as a tool's defaults. Unexported fields are copied by
// assignment; channels and functions are shared. v must not be cyclic.
func Clone[T any](v T) T {
	var out T
	reflect.ValueOf(&out).Elem().Set(deepCopy(reflect.ValueOf(&v).Elem()))
	return out
}

// deepCopy returns a copy of v that shares no pointers, slices or maps with
// it, so that decoding into the copy cannot change v. Unexported fields are
// copied by assignment; channels and functions are shared.
func deepCopy(v reflect.Value) reflect.Value {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return v
		}
		c := reflect.New(v.Type().Elem())
		c.Elem().Set(deepCopy(v.Elem()))
		return c
	case reflect.Interface:
		if v.IsNil() {
			return v
		}
		c := reflect.New(v.Type()).Elem()
		c.Set(deepCopy(v.Elem()))
		return c
	case reflect.Slice:
		if v.IsNil() {
			return v
		}
		c := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for i := range v.Len() {
			c.Index(i).Set(deepCopy(v.Index(i)))
		}
		return c
	case reflect.Map:
		if v.IsNil() {
			return v
		}
		c := reflect.MakeMapWithSize(v.Type(), v.Len())
		for it := v.MapRange(); it.Next(); {
			c.SetMapIndex(it.Key(), deepCopy(it.Value()))
		}
		return c
	case reflect.Array:
		c := reflect.New(v.Type()).Elem()
		for i := range v.Len() {
			c.Index(i).Set(deepCopy(v.Index(i)))
		}
		return c
	case reflect.Struct:
		c := reflect.New(v.Type()).Elem()
		c.Set(v)
		for i := range v.NumField() {
			if f := c.Field(i); f.CanSet() {
				f.Set(deepCopy(v.Field(i)))
			}
		}
		return c
	}
	return v
}
