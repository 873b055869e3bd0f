package tools

import "reflect"

// hasReferences reports whether values of t can share memory when copied by
// assignment: whether t holds pointers, slices, maps or interfaces.
func hasReferences(t reflect.Type, seen map[reflect.Type]bool) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface, reflect.Chan, reflect.Func, reflect.UnsafePointer:
		return true
	case reflect.Array:
		return hasReferences(t.Elem(), seen)
	case reflect.Struct:
		if seen[t] {
			return false
		}
		seen[t] = true
		for i := range t.NumField() {
			if hasReferences(t.Field(i).Type, seen) {
				return true
			}
		}
	}
	return false
}
