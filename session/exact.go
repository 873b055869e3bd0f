package session

import (
	"bytes"
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"unicode/utf8"
)

// What MarshalSnapshot writes, UnmarshalSnapshot must restore so that it
// encodes to the same bytes again. For most item types encoding/json
// guarantees that by itself. Two kinds of item need a check:
//
//   - an interface value (any) decodes as a map, list, string, number or
//     bool: a struct held there comes back as a map with sorted keys;
//   - a MarshalJSON or MarshalText method may write text that is not valid
//     UTF-8, which encoding/json passes on or replaces.
//
// jsonShape says, per slice type, which of them its items can hold, so
// that items of plain types keep the fast path.
type jsonShape struct {
	// iface: a value of the type can hold an interface value that
	// encoding/json encodes.
	iface bool
	// marshaler: a value of the type can hold a value with its own
	// MarshalJSON or MarshalText method.
	marshaler bool
}

var (
	jsonMarshaler = reflect.TypeFor[json.Marshaler]()
	textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()
)

// shapeOf returns what values of t can hold, following what encoding/json
// encodes: exported and embedded fields (not those tagged "-"), elements,
// map keys and values, pointees.
func shapeOf(t reflect.Type) jsonShape {
	var sh jsonShape
	seen := map[reflect.Type]bool{}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		if seen[t] || (sh.iface && sh.marshaler) {
			return
		}
		seen[t] = true
		pt := reflect.PointerTo(t)
		if t.Implements(jsonMarshaler) || pt.Implements(jsonMarshaler) || t.Implements(textMarshaler) || pt.Implements(textMarshaler) {
			sh.marshaler = true
			if t.Kind() != reflect.Interface {
				return // encoding/json does not look inside
			}
		}
		switch t.Kind() {
		case reflect.Interface:
			sh.iface = true
		case reflect.Pointer, reflect.Slice, reflect.Array:
			walk(t.Elem())
		case reflect.Map:
			walk(t.Key())
			walk(t.Elem())
		case reflect.Struct:
			for i := range t.NumField() {
				f := t.Field(i)
				if (f.IsExported() || f.Anonymous) && f.Tag.Get("json") != "-" {
					walk(f.Type)
				}
			}
		}
	}
	walk(t)
	return sh
}

// checkRestores returns why b, the JSON of an item of type t, would not
// encode to the same bytes after UnmarshalSnapshot decoded it (as it
// decodes items: numbers in interface values kept as json.Number, unknown
// fields refused), or nil.
func checkRestores(b []byte, t reflect.Type) error {
	if !utf8.Valid(b) {
		return fmt.Errorf("its JSON, written by a MarshalJSON method, is not valid UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	dec.DisallowUnknownFields()
	ptr := reflect.New(t)
	if err := dec.Decode(ptr.Interface()); err != nil {
		return fmt.Errorf("its JSON does not decode again (%v)", err)
	}
	again, err := json.Marshal(ptr.Elem().Interface())
	if err != nil {
		return fmt.Errorf("it does not encode again after decoding (%v)", err)
	}
	if !bytes.Equal(b, again) {
		if replacedInvalidUTF8(b) {
			return fmt.Errorf("its text, written by a MarshalText or MarshalJSON method, is not valid UTF-8, which JSON changes (%s would come back as %s)", excerpt(b, again), excerpt(again, b))
		}
		return fmt.Errorf("it would not restore as written: %s would come back as %s", excerpt(b, again), excerpt(again, b))
	}
	return nil
}

// excerpt shows a, from shortly before where it first differs from b, cut
// to a readable length.
func excerpt(a, b []byte) string {
	const before, length = 20, 60
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	start := max(0, i-before)
	end := min(len(a), start+length)
	s := string(bytes.ToValidUTF8(a[start:end], []byte("\uFFFD")))
	if start > 0 {
		s = "…" + s
	}
	if end < len(a) {
		s += "…"
	}
	return s
}
