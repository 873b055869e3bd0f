package sessiontest

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"strconv"
)

var (
	rawMessageType = reflect.TypeFor[json.RawMessage]()
	numberType     = reflect.TypeFor[json.Number]()
)

// rawEqual reports whether two pieces of raw JSON hold the same JSON:
// empty is null, and insignificant spaces do not count. Bytes that are no
// valid JSON are compared as they are.
func rawEqual(a, b []byte) bool {
	if len(bytes.TrimSpace(a)) == 0 {
		a = []byte("null")
	}
	if len(bytes.TrimSpace(b)) == 0 {
		b = []byte("null")
	}
	var ca, cb bytes.Buffer
	if json.Compact(&ca, a) != nil || json.Compact(&cb, b) != nil {
		return bytes.Equal(a, b)
	}
	return bytes.Equal(ca.Bytes(), cb.Bytes())
}

// numberEqual reports whether x and y are a Go number and a json.Number
// (in either order) that JSON carries as the same number: the text parses
// back to exactly that value.
func numberEqual(x, y reflect.Value) bool {
	if y.Type() == numberType {
		x, y = y, x
	}
	if x.Type() != numberType {
		return false
	}
	text := x.String()
	switch y.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, err := strconv.ParseInt(text, 10, 64)
		return err == nil && n == y.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		n, err := strconv.ParseUint(text, 10, 64)
		return err == nil && n == y.Uint()
	case reflect.Float32:
		f, err := strconv.ParseFloat(text, 32)
		return err == nil && float32(f) == float32(y.Float())
	case reflect.Float64:
		f, err := strconv.ParseFloat(text, 64)
		return err == nil && f == y.Float()
	}
	return false
}

// equal reports whether two slice items are equal, as the assertions
// compare them: the type's Equal method (func (T) Equal(T) bool) when it
// has one, else field by field, unexported fields included, with nested
// values' Equal methods honoured and a nil slice or map equal to an empty
// one. It judges what snapshot JSON carries, so that a faithful round
// trip is no change: a json.RawMessage is compared as the JSON it holds
// (nil is null; spacing does not count), and a number held in an interface
// value equals the json.Number a snapshot restores it as when the text
// reads back as that very number (float64(0.1) and "0.1", int64(7) and
// "7", never 7 and "7.5"). It never panics.
func equal(x, y any) bool {
	return deepEqual(reflect.ValueOf(x), reflect.ValueOf(y), map[visit]bool{})
}

// visit is a pair of pointers, maps or slices being compared, to stop on
// cycles: a pair met again is taken as equal, as reflect.DeepEqual does. A
// slice's length is part of it (s and s[:1] share an address).
type visit struct {
	a, b uintptr
	t    reflect.Type
	n    int
}

// seenBefore records v and reports whether it was recorded already.
func seenBefore(seen map[visit]bool, v visit) bool {
	if seen[v] {
		return true
	}
	seen[v] = true
	return false
}

var boolType = reflect.TypeFor[bool]()

// equalMethod returns t's method Equal(t) bool, if it has one.
func equalMethod(t reflect.Type) (reflect.Method, bool) {
	m, ok := t.MethodByName("Equal")
	if !ok || m.Type.NumIn() != 2 || m.Type.In(1) != t || m.Type.NumOut() != 1 || m.Type.Out(0) != boolType {
		return reflect.Method{}, false
	}
	return m, true
}

// callEqual calls x.Equal(y); ok is false when it cannot be called (values
// reached through unexported fields) or it panicked.
func callEqual(m reflect.Method, x, y reflect.Value) (eq, ok bool) {
	if !x.CanInterface() || !y.CanInterface() {
		return false, false
	}
	defer func() {
		if recover() != nil {
			eq, ok = false, false
		}
	}()
	return m.Func.Call([]reflect.Value{x, y})[0].Bool(), true
}

func deepEqual(x, y reflect.Value, seen map[visit]bool) bool {
	if !x.IsValid() || !y.IsValid() {
		return x.IsValid() == y.IsValid()
	}
	if x.Type() != y.Type() {
		return numberEqual(x, y)
	}
	if x.Type() == rawMessageType {
		return rawEqual(x.Bytes(), y.Bytes())
	}
	if m, ok := equalMethod(x.Type()); ok {
		if eq, called := callEqual(m, x, y); called {
			return eq
		}
	}
	switch x.Kind() {
	case reflect.Bool:
		return x.Bool() == y.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return x.Int() == y.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return x.Uint() == y.Uint()
	case reflect.Float32, reflect.Float64:
		a, b := x.Float(), y.Float()
		return a == b || (math.IsNaN(a) && math.IsNaN(b))
	case reflect.Complex64, reflect.Complex128:
		return x.Complex() == y.Complex()
	case reflect.String:
		return x.String() == y.String()
	case reflect.Pointer:
		if x.IsNil() || y.IsNil() {
			return x.IsNil() == y.IsNil()
		}
		if x.Pointer() == y.Pointer() {
			return true
		}
		if seenBefore(seen, visit{x.Pointer(), y.Pointer(), x.Type(), 0}) {
			return true
		}
		return deepEqual(x.Elem(), y.Elem(), seen)
	case reflect.Interface:
		if x.IsNil() || y.IsNil() {
			return x.IsNil() == y.IsNil()
		}
		return deepEqual(x.Elem(), y.Elem(), seen)
	case reflect.Struct:
		for i := range x.NumField() {
			if !deepEqual(x.Field(i), y.Field(i), seen) {
				return false
			}
		}
		return true
	case reflect.Slice, reflect.Array:
		if x.Len() != y.Len() {
			return false
		}
		if x.Kind() == reflect.Slice && x.Len() > 0 {
			if x.Pointer() == y.Pointer() || seenBefore(seen, visit{x.Pointer(), y.Pointer(), x.Type(), x.Len()}) {
				return true
			}
		}
		for i := range x.Len() {
			if !deepEqual(x.Index(i), y.Index(i), seen) {
				return false
			}
		}
		return true
	case reflect.Map:
		if x.Len() != y.Len() {
			return false
		}
		if x.Len() > 0 && (x.Pointer() == y.Pointer() || seenBefore(seen, visit{x.Pointer(), y.Pointer(), x.Type(), 0})) {
			return true
		}
		for it := x.MapRange(); it.Next(); {
			yv := y.MapIndex(it.Key())
			if !yv.IsValid() || !deepEqual(it.Value(), yv, seen) {
				return false
			}
		}
		return true
	case reflect.Func, reflect.Chan, reflect.UnsafePointer:
		return x.Pointer() == y.Pointer()
	}
	return false
}
