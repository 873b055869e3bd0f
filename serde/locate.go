package serde

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"

	"github.com/offshoot-dev/offshoot/internal/jsontok"
)

// This file finds JSON paths for decode errors. encoding/json reports an
// unknown member without saying in which object, and a type mismatch with a
// dotted path that leaves out slice indexes, so after a failed decode (the
// slow path only) serde walks the input again, token by token, alongside
// the Go type.

// walkEvent is one step of walkJSON.
type walkEvent struct {
	path    string       // JSON path of the value or member
	typ     reflect.Type // Go type expected there; nil when unknown
	end     int64        // input offset just after the value's first token
	unknown bool         // path names a member that struct type typ lacks
}

var (
	jsonUnmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// walkJSON calls fn for every value (and every unknown struct member) of
// data in document order until fn returns true. It reports whether fn did.
// Malformed input simply ends the walk.
func walkJSON(data []byte, t reflect.Type, fn func(walkEvent) bool) bool {
	r := jsontok.NewReader(data)
	tok, err := r.Next()
	if err != nil {
		return false
	}
	stop, _ := walkValue(r, tok, "", t, fn)
	return stop
}

// walkValue walks the value whose first token tok was just read.
func walkValue(r *jsontok.Reader, tok jsontok.Token, path string, t reflect.Type, fn func(walkEvent) bool) (bool, error) {
	t = decodeTarget(t)
	if fn(walkEvent{path: path, typ: t, end: int64(tok.End)}) {
		return true, nil
	}
	switch tok.Kind {
	case jsontok.ObjectStart:
		for {
			kt, err := r.Next()
			if err != nil || kt.Kind == jsontok.ObjectEnd {
				return false, err
			}
			child, childPath, known := member(t, path, r.Unquote(kt))
			if !known && fn(walkEvent{path: childPath, typ: t, unknown: true}) {
				return true, nil
			}
			vt, err := r.Next()
			if err != nil {
				return false, err
			}
			if stop, err := walkValue(r, vt, childPath, child, fn); stop || err != nil {
				return stop, err
			}
		}
	case jsontok.ArrayStart:
		var elem reflect.Type
		if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
			elem = t.Elem()
		}
		for i := 0; ; i++ {
			et, err := r.Next()
			if err != nil || et.Kind == jsontok.ArrayEnd {
				return false, err
			}
			if stop, err := walkValue(r, et, path+"["+strconv.Itoa(i)+"]", elem, fn); stop || err != nil {
				return stop, err
			}
		}
	}
	return false, nil
}

// decodeTarget is the type encoding/json decodes into at a place declared
// as t: pointers followed, and nil for types that decode themselves (their
// members are none of serde's business) or when t is unknown.
func decodeTarget(t reflect.Type) reflect.Type {
	for t != nil {
		if t.Implements(jsonUnmarshalerType) || reflect.PointerTo(t).Implements(jsonUnmarshalerType) ||
			t.Implements(textUnmarshalerType) || reflect.PointerTo(t).Implements(textUnmarshalerType) {
			return nil
		}
		if t.Kind() != reflect.Pointer {
			return t
		}
		t = t.Elem()
	}
	return nil
}

// member resolves an object key against t: the Go type of the member, its
// JSON path (with the field's own JSON name), and whether t has it.
func member(t reflect.Type, path, key string) (reflect.Type, string, bool) {
	if t == nil {
		return nil, joinPath(path, key), true
	}
	switch t.Kind() {
	case reflect.Struct:
		if f, ok := fieldsOf(t).lookup(key); ok {
			return f.field.Type, joinPath(path, f.name), true
		}
		return nil, joinPath(path, key), false
	case reflect.Map:
		return t.Elem(), path + "[" + key + "]", true
	}
	return nil, joinPath(path, key), true
}

func joinPath(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// locateUnknown finds the first object member of data that its struct type
// lacks, and lists the members that struct allows.
func locateUnknown(data []byte, t reflect.Type) (path, allowed string, found bool) {
	walkJSON(data, t, func(ev walkEvent) bool {
		if !ev.unknown {
			return false
		}
		path, allowed, found = ev.path, fieldsOf(ev.typ).allowed, true
		return true
	})
	return path, allowed, found
}

// mismatchPath finds the JSON path of the value a type mismatch is about.
// encoding/json reports the offset just past the offending literal, or just
// past the '[' or '{' that opens the offending array or object; the walk
// finds the value whose first token ends there. It falls back to the dotted
// path encoding/json gives.
func mismatchPath(data []byte, t reflect.Type, e *json.UnmarshalTypeError) string {
	var path string
	found := walkJSON(data, t, func(ev walkEvent) bool {
		if ev.unknown || ev.end != e.Offset {
			return false
		}
		path = ev.path
		return true
	})
	if found && sameFields(path, e.Field) {
		return path
	}
	return e.Field
}

// sameFields reports whether path, with its [i] indexes removed, names the
// same members as encoding/json's dotted field path (which has no indexes).
// When encoding/json gives no field path there is nothing to compare.
func sameFields(path, field string) bool {
	if field == "" {
		return true
	}
	var b strings.Builder
	depth := 0
	for _, r := range path {
		switch {
		case r == '[':
			depth++
		case r == ']':
			depth--
		case depth == 0:
			b.WriteRune(r)
		}
	}
	stripped := strings.Trim(strings.ReplaceAll(b.String(), "..", "."), ".")
	return strings.EqualFold(stripped, field)
}
