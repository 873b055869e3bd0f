package serde

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"sync"
)

// Decode decodes exactly one JSON value from data into a new T, strictly,
// and validates it with Validate.
//
// Strict means: unknown object members, data after the value, a JSON null
// where T is a struct, and values of the wrong JSON type are errors. A
// struct's members are matched by their exact JSON names ("PATH" is not
// "path", unlike encoding/json), and an object may give a key only once.
// Wrong values are reported as *ValidationError with the JSON path (an
// unknown member: Path is the member, Reason lists the allowed ones; a
// repeated key: Reason "appears twice"); malformed
// JSON is a plain error giving the byte offset. When T (or *T) has a
// method Validate() error, it is called last and its error returned as is
// (see the package documentation). On error the zero T is returned.
func Decode[T any](data []byte) (T, error) {
	var v T
	if err := decode(data, &v, infoOf(reflect.TypeFor[T]())); err != nil {
		var zero T
		return zero, err
	}
	return v, nil
}

// DecodeInto is Decode into the value v points to. It decodes over the
// existing value, so defaults set beforehand survive wherever the JSON does
// not mention them. As with encoding/json, maps are merged into and slice
// elements reused, so a caller that keeps a template of defaults should pass
// a deep copy of it. v must be a non-nil pointer; *v is left partly
// written when an error is returned.
func DecodeInto(data []byte, v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return fmt.Errorf("serde: DecodeInto needs a non-nil pointer, got %T; pass &value", v)
	}
	return decode(data, v, infoOf(rv.Type().Elem()))
}

// DecodeValue is Decode for a type known only at run time: it returns a
// value of type t (not a pointer to one) holding the decoded JSON.
func DecodeValue(data []byte, t reflect.Type) (any, error) {
	if t == nil {
		return nil, errors.New("serde: DecodeValue needs a type, got nil")
	}
	p := reflect.New(t)
	if err := decode(data, p.Interface(), infoOf(t)); err != nil {
		return nil, err
	}
	return p.Elem().Interface(), nil
}

// selfValidator is implemented by types that check their own values; see
// the package documentation.
type selfValidator interface {
	Validate() error
}

// decode is the strict decode + validate of data into ptr, a pointer to a
// value of info.typ.
func decode(data []byte, ptr any, info *typeInfo) error {
	if info.rejectNull && isNull(data) {
		return &ValidationError{Reason: "must be a JSON object, not null"}
	}
	if err := decodeStrict(data, ptr, info.typ); err != nil {
		var ve *ValidationError
		if errors.As(err, &ve) {
			// A key problem comes first: a value under a misspelled key
			// is the key's fault.
			if kerr := checkKeys(data, info.keys); kerr != nil {
				return kerr
			}
		}
		return err
	}
	if err := checkKeys(data, info.keys); err != nil {
		return err
	}
	if info.mode != validateNone {
		if err := validatePointer(ptr, info); err != nil {
			return err
		}
	}
	if info.selfValidating {
		return ptr.(selfValidator).Validate()
	}
	return nil
}

// decodeStrict decodes exactly one JSON value from data into ptr, with
// unknown members and trailing data rejected.
//
// json.Decoder is the only encoding/json API that rejects unknown members,
// and a fresh one costs more than the decoding itself, so decoders are
// pooled: each reads a stream that is fed one input at a time, which is
// the use a Decoder is made for (a stream of values). A decoder goes back
// to the pool only after it consumed its whole input without error; errors
// are worked out again on a fresh decoder, whose offsets are those of the
// input alone.
func decodeStrict(data []byte, ptr any, t reflect.Type) error {
	data = bytes.TrimRight(data, " \t\r\n")
	if len(data) == 0 || len(data) > maxPooledInput {
		return decodeFresh(data, ptr, t)
	}
	sd := decoderPool.Get().(*streamDecoder)
	sd.src.data = data
	base := sd.dec.InputOffset()
	if err := sd.dec.Decode(ptr); err != nil {
		return decodeFresh(data, reflect.New(t).Interface(), t, err)
	}
	if end := sd.dec.InputOffset() - base; end != int64(len(data)) {
		return trailingData(data, end)
	}
	sd.src.data = nil
	decoderPool.Put(sd)
	return nil
}

// decodeFresh decodes with a new decoder and words its error. When it
// unexpectedly succeeds, the error of the pooled attempt, if any, is used.
func decodeFresh(data []byte, ptr any, t reflect.Type, pooled ...error) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	err := dec.Decode(ptr)
	if err == nil {
		if off := dec.InputOffset(); off != int64(len(data)) {
			return trailingData(data, off)
		}
		if len(pooled) == 0 {
			return nil
		}
		err = pooled[0]
	}
	return decodeError(data, t, err)
}

// trailingData reports the first non-space byte after the value, which
// ends at off.
func trailingData(data []byte, off int64) error {
	if off >= 0 && off <= int64(len(data)) {
		off += int64(len(data[off:]) - len(bytes.TrimLeft(data[off:], " \t\r\n")))
	}
	return fmt.Errorf("serde: unexpected data after the JSON value at byte %d; send exactly one JSON value", off)
}

// maxPooledInput bounds the inputs a pooled decoder reads, so that the
// pool does not keep large buffers alive.
const maxPooledInput = 64 << 10

// streamDecoder is a json.Decoder over a source that is refilled for
// every input.
type streamDecoder struct {
	src refillReader
	dec *json.Decoder
}

var decoderPool = sync.Pool{New: func() any {
	sd := new(streamDecoder)
	sd.dec = json.NewDecoder(&sd.src)
	sd.dec.DisallowUnknownFields()
	return sd
}}

// refillReader hands out data once, then reports io.EOF until refilled.
type refillReader struct{ data []byte }

func (r *refillReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

// isNull reports whether data is the JSON literal null, give or take
// surrounding white space.
func isNull(data []byte) bool {
	data = bytes.TrimLeft(data, " \t\r\n")
	if !bytes.HasPrefix(data, []byte("null")) {
		return false
	}
	return len(bytes.TrimLeft(data[4:], " \t\r\n")) == 0
}

// decodeError turns an encoding/json error into a serde error.
func decodeError(data []byte, t reflect.Type, err error) error {
	var (
		syn *json.SyntaxError
		typ *json.UnmarshalTypeError
	)
	switch {
	case errors.Is(err, io.EOF):
		return errors.New("serde: empty input; send one JSON value")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("serde: unexpected end of JSON input at byte %d; the value is incomplete", len(data))
	case errors.As(err, &syn):
		return fmt.Errorf("serde: invalid JSON at byte %d: %w", syn.Offset, err)
	case errors.As(err, &typ):
		return &ValidationError{Path: mismatchPath(data, t, typ), Reason: mismatchReason(typ)}
	}
	if key, ok := unknownFieldName(err); ok {
		if path, allowed, found := locateUnknown(data, t); found {
			if allowed == "" {
				return &ValidationError{Path: path, Reason: "unknown field; this object takes no fields"}
			}
			return &ValidationError{Path: path, Reason: "unknown field; allowed: " + allowed}
		}
		return &ValidationError{Path: key, Reason: "unknown field"}
	}
	return fmt.Errorf("serde: %w", err)
}

// unknownFieldName recognizes encoding/json's DisallowUnknownFields error,
// which has no type of its own.
func unknownFieldName(err error) (string, bool) {
	const prefix = "json: unknown field "
	msg := err.Error()
	if !strings.HasPrefix(msg, prefix) {
		return "", false
	}
	name, uerr := strconv.Unquote(msg[len(prefix):])
	if uerr != nil {
		return msg[len(prefix):], true
	}
	return name, true
}

// mismatchReason words a JSON type mismatch: what the Go type needs and what
// the JSON had.
func mismatchReason(e *json.UnmarshalTypeError) string {
	got, literal, _ := strings.Cut(e.Value, " ")
	gotWord := map[string]string{
		"string": "a string", "number": "a number", "bool": "a boolean",
		"array": "an array", "object": "an object",
	}[got]
	if gotWord == "" {
		gotWord = e.Value
	}
	t := e.Type
	if t == nil {
		return "has the wrong type, got " + gotWord
	}
	var want string
	switch t.Kind() {
	case reflect.String:
		want = "a string"
	case reflect.Bool:
		want = "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		want = "an integer"
		if literal != "" && isIntegerLiteral(literal) {
			return fmt.Sprintf("must be an integer that fits in %d bits, got %s", t.Bits(), literal)
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		want = "a non-negative integer"
		if literal != "" && isIntegerLiteral(literal) && !strings.HasPrefix(literal, "-") {
			return fmt.Sprintf("must be a non-negative integer that fits in %d bits, got %s", t.Bits(), literal)
		}
	case reflect.Float32, reflect.Float64:
		want = "a number"
		if literal != "" {
			return fmt.Sprintf("must be a number that fits in %d bits, got %s", t.Bits(), literal)
		}
	case reflect.Slice:
		want = "an array"
		if t.Elem().Kind() == reflect.Uint8 {
			want = "a base64 string"
		}
	case reflect.Array:
		want = "an array"
	case reflect.Struct, reflect.Map:
		want = "an object"
	default:
		want = "a JSON value for " + t.String()
	}
	if literal != "" {
		gotWord += " (" + literal + ")"
	}
	return "must be " + want + ", got " + gotWord
}

func isIntegerLiteral(s string) bool {
	return !strings.ContainsAny(s, ".eE")
}
