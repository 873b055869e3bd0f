// Package deepcopy copies values so that the copy shares no memory with
// the original.
package deepcopy

import "reflect"

// Of returns a deep copy of v that shares no pointers, slices or maps
// with it — for decoding over a value (see serde.DecodeInto) without
// changing the original, such as a tool's defaults. Unexported fields are
// copied by assignment; channels and functions are shared. v must not be
// cyclic.
func Of[T any](v T) T {
	var out T
	reflect.ValueOf(&out).Elem().Set(Value(reflect.ValueOf(&v).Elem()))
	return out
}

// Value returns a copy of v that shares no pointers, slices or maps with
// it, so that decoding into the copy cannot change v. Unexported fields are
// copied by assignment; channels and functions are shared.
func Value(v reflect.Value) reflect.Value {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return v
		}
		c := reflect.New(v.Type().Elem())
		c.Elem().Set(Value(v.Elem()))
		return c
	case reflect.Interface:
		if v.IsNil() {
			return v
		}
		c := reflect.New(v.Type()).Elem()
		c.Set(Value(v.Elem()))
		return c
	case reflect.Slice:
		if v.IsNil() {
			return v
		}
		c := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for i := range v.Len() {
			c.Index(i).Set(Value(v.Index(i)))
		}
		return c
	case reflect.Map:
		if v.IsNil() {
			return v
		}
		c := reflect.MakeMapWithSize(v.Type(), v.Len())
		for it := v.MapRange(); it.Next(); {
			c.SetMapIndex(it.Key(), Value(it.Value()))
		}
		return c
	case reflect.Array:
		c := reflect.New(v.Type()).Elem()
		for i := range v.Len() {
			c.Index(i).Set(Value(v.Index(i)))
		}
		return c
	case reflect.Struct:
		c := reflect.New(v.Type()).Elem()
		c.Set(v)
		for i := range v.NumField() {
			if f := c.Field(i); f.CanSet() {
				f.Set(Value(v.Field(i)))
			}
		}
		return c
	}
	return v
}
