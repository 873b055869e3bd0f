package openai

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/offshoot-dev/offshoot/internal/jsontok"
)

// object is a JSON object that keeps its keys in document order, so that
// rewriting a schema (or a model's answer) does not reorder properties:
// models generate keys in schema order, and that order often matters
// ("reasoning" before "answer").
type object struct {
	keys []string
	vals map[string]any
}

func newObject() *object { return &object{vals: map[string]any{}} }

func (o *object) get(key string) any { return o.vals[key] }

func (o *object) has(key string) bool {
	_, ok := o.vals[key]
	return ok
}

func (o *object) set(key string, v any) {
	if _, ok := o.vals[key]; !ok {
		o.keys = append(o.keys, key)
	}
	o.vals[key] = v
}

func (o *object) del(key string) {
	if _, ok := o.vals[key]; !ok {
		return
	}
	delete(o.vals, key)
	for i, k := range o.keys {
		if k == key {
			o.keys = append(o.keys[:i], o.keys[i+1:]...)
			return
		}
	}
}

// rename renames key old to key, keeping its place; o must not have key.
func (o *object) rename(old, key string) {
	v, ok := o.vals[old]
	if !ok {
		return
	}
	delete(o.vals, old)
	o.vals[key] = v
	for i, k := range o.keys {
		if k == old {
			o.keys[i] = key
			return
		}
	}
}

// maxDepth bounds the nesting parseOrdered accepts.
const maxDepth = 512

// parseOrdered decodes one JSON value: objects become *object, arrays
// []any, numbers json.Number (exact), and the rest as encoding/json does.
// Trailing data is an error.
func parseOrdered(data []byte) (any, error) {
	r := jsontok.NewReader(data)
	v, err := parseValue(r, 0)
	if err != nil {
		return nil, err
	}
	if _, err := r.Next(); !errors.Is(err, io.EOF) {
		return nil, errors.New("invalid JSON: data after the top-level value")
	}
	return v, nil
}

func parseValue(r *jsontok.Reader, depth int) (any, error) {
	if depth > maxDepth {
		return nil, errors.New("invalid JSON: nested too deeply")
	}
	tok, err := r.Next()
	if err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	switch tok.Kind {
	case jsontok.ObjectStart:
		o := newObject()
		for r.More() {
			kt, err := r.Next()
			if err != nil {
				return nil, err
			}
			if kt.Kind != jsontok.Key {
				return nil, fmt.Errorf("invalid JSON: object key %s", kt.Kind)
			}
			key := r.Unquote(kt)
			v, err := parseValue(r, depth+1)
			if err != nil {
				return nil, err
			}
			o.set(key, v)
		}
		if _, err := r.Next(); err != nil {
			return nil, err
		}
		return o, nil
	case jsontok.ArrayStart:
		arr := []any{}
		for r.More() {
			v, err := parseValue(r, depth+1)
			if err != nil {
				return nil, err
			}
			arr = append(arr, v)
		}
		if _, err := r.Next(); err != nil {
			return nil, err
		}
		return arr, nil
	case jsontok.String:
		return r.Unquote(tok), nil
	case jsontok.Number:
		return json.Number(r.Bytes(tok)), nil
	case jsontok.True, jsontok.False:
		return tok.Kind == jsontok.True, nil
	case jsontok.Null:
		return nil, nil
	}
	return nil, fmt.Errorf("invalid JSON: unexpected %s", tok.Kind)
}

// marshalOrdered encodes a value built by parseOrdered (or by the schema
// rewriter) compactly, without HTML escaping.
func marshalOrdered(v any) ([]byte, error) {
	var buf bytes.Buffer
	if err := writeOrdered(&buf, v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func writeOrdered(buf *bytes.Buffer, v any) error {
	switch t := v.(type) {
	case *object:
		buf.WriteByte('{')
		for i, k := range t.keys {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := writeLeaf(buf, k); err != nil {
				return err
			}
			buf.WriteByte(':')
			if err := writeOrdered(buf, t.vals[k]); err != nil {
				return err
			}
		}
		buf.WriteByte('}')
	case []any:
		buf.WriteByte('[')
		for i, e := range t {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := writeOrdered(buf, e); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
	default:
		return writeLeaf(buf, t)
	}
	return nil
}

func writeLeaf(buf *bytes.Buffer, v any) error {
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	buf.Truncate(buf.Len() - 1) // Encode appends a newline
	return nil
}
