package serde

import (
	"reflect"
	"strconv"

	"github.com/offshoot-dev/offshoot/internal/jsontok"
)

// This file checks the keys of JSON objects, which encoding/json does too
// leniently for input from a model: it matches a key to a struct field
// ignoring case ("PATH" fills the field named "path") and lets a repeated
// key overwrite the first. serde accepts a struct's members under their
// exact JSON names only, and each key once per object. The check is one
// pass over the bytes, guided by a plan of the type worked out once per
// type, and allocates nothing on valid input.

// keyNode is what the key check does with a JSON value at a place of some
// Go type. A nil *keyNode skips the value: scalars, and types that decode
// themselves (json.RawMessage, time.Time, …), whose bytes are their own
// business.
type keyNode struct {
	kind    keyKind
	fields  *structFields // keyStruct: the members allowed
	byField []*keyNode    // keyStruct: the plan of each member, by position in fields.list
	elem    *keyNode      // keyList, keyMap: the plan of the elements or values
}

type keyKind uint8

const (
	keyStruct keyKind = iota // an object of a struct's members
	keyMap                   // an object of a Go map: any keys, once each
	keyList                  // an array or slice
	keyAny                   // an interface: any JSON, each object's keys once
)

// keyPlan returns the plan for values of type t, or nil when no object can
// occur there that the check would look at.
func keyPlan(t reflect.Type) *keyNode {
	return buildKeyNode(t, map[reflect.Type]*keyNode{})
}

func buildKeyNode(t reflect.Type, memo map[reflect.Type]*keyNode) *keyNode {
	t = decodeTarget(t)
	if t == nil {
		return nil
	}
	if n, ok := memo[t]; ok {
		return n // a recursive type: the node being built
	}
	switch t.Kind() {
	case reflect.Struct:
		n := &keyNode{kind: keyStruct, fields: fieldsOf(t)}
		memo[t] = n
		n.byField = make([]*keyNode, len(n.fields.list))
		for i, f := range n.fields.list {
			if !f.quoted {
				n.byField[i] = buildKeyNode(f.field.Type, memo)
			}
		}
		return n
	case reflect.Map:
		n := &keyNode{kind: keyMap}
		memo[t] = n
		n.elem = buildKeyNode(t.Elem(), memo)
		return n
	case reflect.Slice, reflect.Array:
		if t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8 {
			return nil // []byte is a base64 string
		}
		n := &keyNode{kind: keyList}
		memo[t] = n
		n.elem = buildKeyNode(t.Elem(), memo)
		if n.elem == nil {
			delete(memo, t)
			return nil
		}
		return n
	case reflect.Interface:
		return &keyNode{kind: keyAny}
	}
	return nil
}

// maxKeyDepth bounds the nesting the check follows; encoding/json refuses
// deeper input before the check runs.
const maxKeyDepth = 10000

// checkKeys reports the first key of data, in document order, that plan
// does not accept: a key that is not the exact JSON name of a member of
// its struct ("unknown field; allowed: …"), or a key given twice in one
// object ("appears twice"). data is expected to be valid JSON (it has
// been decoded); on anything else the check stops without an error and
// leaves the wording to the decoder.
func checkKeys(data []byte, plan *keyNode) error {
	if plan == nil {
		return nil
	}
	var s keyScanner
	s.r.Reset(data)
	first, ok := s.next()
	if !ok {
		return nil
	}
	if err := s.value(first, plan, 0); err != nil {
		return err
	}
	return nil
}

// keyScanner walks JSON bytes token by token.
type keyScanner struct {
	r   jsontok.Reader
	bad bool // the input was not what valid JSON would be: stop
}

// next reads the next token; false when the input is not valid JSON.
func (s *keyScanner) next() (jsontok.Token, bool) {
	t, err := s.r.Next()
	if err != nil {
		s.bad = true
		return jsontok.Token{}, false
	}
	return t, true
}

// skip moves past the value whose first token is t without looking into it.
func (s *keyScanner) skip(t jsontok.Token) {
	if _, err := s.r.Skip(t); err != nil {
		s.bad = true
	}
}

// value checks the value whose first token is t against n.
func (s *keyScanner) value(t jsontok.Token, n *keyNode, depth int) *ValidationError {
	if depth > maxKeyDepth {
		s.bad = true
		return nil
	}
	switch {
	case n == nil:
		s.skip(t)
		return nil
	case t.Kind == jsontok.ObjectStart:
		return s.object(n, depth)
	case t.Kind == jsontok.ArrayStart && (n.kind == keyList || n.kind == keyAny):
		elem := n.elem
		if n.kind == keyAny {
			elem = n
		}
		for k := 0; !s.bad; k++ {
			el, ok := s.next()
			if !ok || el.Kind == jsontok.ArrayEnd {
				return nil
			}
			if err := s.value(el, elem, depth+1); err != nil {
				return prefixIndex(err, k)
			}
		}
		return nil
	}
	s.skip(t)
	return nil
}

// object checks the object whose '{' was just read against n.
func (s *keyScanner) object(n *keyNode, depth int) *ValidationError {
	var (
		seen    uint64 // keyStruct: members given, by position (the first 64)
		seenBig []bool // keyStruct: all of them, for structs of more members
		small   [8][]byte
		keys    = small[:0] // keyMap, keyAny: the keys given so far
		keySet  map[string]struct{}
	)
	if n.kind == keyStruct && len(n.fields.list) > 64 {
		seenBig = make([]bool, len(n.fields.list))
	}
	for !s.bad {
		kt, ok := s.next()
		if !ok || kt.Kind != jsontok.Key {
			return nil // the end of the object, or bad input
		}
		key := s.key(kt)
		var child *keyNode
		switch n.kind {
		case keyStruct:
			pos, known := n.fields.byName[string(key)]
			if !known {
				reason := "unknown field; allowed: " + n.fields.allowed
				if n.fields.allowed == "" {
					reason = "unknown field; this object takes no fields"
				}
				return &ValidationError{Path: string(key), Reason: reason}
			}
			if seenBig != nil {
				if seenBig[pos] {
					return &ValidationError{Path: string(key), Reason: "appears twice"}
				}
				seenBig[pos] = true
			} else {
				if seen&(1<<pos) != 0 {
					return &ValidationError{Path: string(key), Reason: "appears twice"}
				}
				seen |= 1 << pos
			}
			child = n.byField[pos]
		default:
			if keySet == nil && len(keys) < 32 {
				for _, k := range keys {
					if string(k) == string(key) {
						return repeated(n, key)
					}
				}
				keys = append(keys, key)
				if len(keys) == 32 {
					keySet = make(map[string]struct{}, 64)
					for _, k := range keys {
						keySet[string(k)] = struct{}{}
					}
				}
			} else {
				if _, dup := keySet[string(key)]; dup {
					return repeated(n, key)
				}
				keySet[string(key)] = struct{}{}
			}
			child = n.elem
			if n.kind == keyAny {
				child = n
			}
		}
		vt, ok := s.next()
		if !ok {
			return nil
		}
		if err := s.value(vt, child, depth+1); err != nil {
			return prefixKey(err, n, key)
		}
	}
	return nil
}

// key returns the value of a key token: the bytes between the quotes when
// there are no escapes (no allocation), else the decoded string.
func (s *keyScanner) key(t jsontok.Token) []byte {
	if !t.Escaped {
		raw := s.r.Bytes(t)
		return raw[1 : len(raw)-1]
	}
	return []byte(s.r.Unquote(t))
}

// repeated is the error of a key given twice in an object of a map or an
// interface.
func repeated(n *keyNode, key []byte) *ValidationError {
	return prefixKey(&ValidationError{Reason: "appears twice"}, n, key)
}

// prefixKey puts the member key of an object of kind n in front of err's
// path: "key.rest" for a struct member, "[key]rest" for a map key, as the
// other decode errors name them.
func prefixKey(err *ValidationError, n *keyNode, key []byte) *ValidationError {
	if n.kind == keyStruct || n.kind == keyAny {
		switch {
		case err.Path == "":
			err.Path = string(key)
		case err.Path[0] == '[':
			err.Path = string(key) + err.Path
		default:
			err.Path = string(key) + "." + err.Path
		}
		return err
	}
	seg := "[" + string(key) + "]"
	if err.Path == "" || err.Path[0] == '[' {
		err.Path = seg + err.Path
	} else {
		err.Path = seg + "." + err.Path
	}
	return err
}

// prefixIndex puts the array index k in front of err's path.
func prefixIndex(err *ValidationError, k int) *ValidationError {
	seg := "[" + strconv.Itoa(k) + "]"
	if err.Path == "" || err.Path[0] == '[' {
		err.Path = seg + err.Path
	} else {
		err.Path = seg + "." + err.Path
	}
	return err
}
