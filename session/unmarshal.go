package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"

	"github.com/offshoot-dev/offshoot/internal/pvec"
	"github.com/offshoot-dev/offshoot/serde"
)

// RestoreError says why snapshot JSON could not be decoded. Path locates
// the problem ("version", "slices[2].items[0]"); nothing partial is ever
// returned alongside it.
type RestoreError struct {
	Path   string
	Reason string
	Err    error
}

// Error says where the snapshot JSON is wrong and how.
func (e *RestoreError) Error() string {
	msg := "session: cannot restore snapshot: "
	if e.Path != "" {
		msg += e.Path + ": "
	}
	msg += e.Reason
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Unwrap returns the underlying decode or validation error, if any.
func (e *RestoreError) Unwrap() error { return e.Err }

func restoreErr(path, reason string, err error) error {
	return &RestoreError{Path: path, Reason: reason, Err: err}
}

// UnmarshalSnapshot decodes snapshot JSON written by MarshalSnapshot,
// resolving type names through reg. It validates everything — the shape,
// the version, timestamps, ids (a session cannot be its own parent or
// child), type names, and every item with strict decoding, its validate tags
// and its Validate method (see serde) — and fails with a *RestoreError that
// says what is wrong. Items of any type that encoding/json round-trips are
// restored: structs, maps, and values that encode as strings, numbers or
// lists (time.Time, netip.Addr, encoding.TextMarshaler types, named string
// types). A number held in an interface value (any) restores as a
// json.Number, its exact text, so large integers keep every digit; typed
// fields decode as usual. Decoding streams: a snapshot of S bytes needs about its decoded
// items' size in memory, not copies of S. Restore the result into a session
// with Rollback or New(WithSnapshot(snap)).
func UnmarshalSnapshot(data []byte, reg *serde.Registry) (Snapshot, error) {
	if reg == nil {
		reg = serde.DefaultRegistry
	}
	if t := firstByte(data); t != '{' {
		if t == '[' || t == '"' || t == 'n' || t == 't' || t == 'f' || t == '-' || (t >= '0' && t <= '9') {
			if json.Valid(data) {
				return Snapshot{}, restoreErr("", "a snapshot is a JSON object, got "+jsonKind(t), nil)
			}
		}
		return Snapshot{}, restoreErr("", "invalid JSON", nil)
	}
	r := &reader{dec: json.NewDecoder(bytes.NewReader(data)), src: data, reg: reg}
	r.dec.DisallowUnknownFields()
	r.dec.UseNumber() // a number in an interface value keeps its exact text
	snap, err := r.snapshot()
	if err == nil {
		if _, end := r.dec.Token(); end != io.EOF {
			r.err = fmt.Errorf("data after the snapshot object")
		}
	}
	if r.err != nil {
		return Snapshot{}, restoreErr("", "invalid JSON", r.err)
	}
	if err != nil {
		return Snapshot{}, err
	}
	return snap, nil
}

// reader decodes one snapshot from a stream of JSON tokens. A syntax error
// stops it: the first one is kept in err, and the tokens read after it are
// nil.
type reader struct {
	dec *json.Decoder
	src []byte // what dec reads
	reg *serde.Registry
	err error
}

// token returns the next token, or nil after a syntax error.
func (r *reader) token() json.Token { return tokenOf(r.dec, &r.err) }

func tokenOf(dec *json.Decoder, errp *error) json.Token {
	if *errp != nil {
		return nil
	}
	tok, err := dec.Token()
	if err != nil {
		*errp = err
		return nil
	}
	return tok
}

// errSyntax stands for a syntax error already kept in reader.err.
var errSyntax = errors.New("invalid JSON")

// topLevel are the members of a snapshot object; each appears once.
var topLevel = []string{"version", "session_id", "created_at", "parent_id", "children_ids", "tags", "slices"}

func (r *reader) snapshot() (Snapshot, error) {
	r.token() // {
	raw := map[string]json.RawMessage{}
	var st *state
	for r.dec.More() {
		key, _ := r.token().(string)
		if !slices.Contains(topLevel, key) {
			return Snapshot{}, restoreErr(key, "unknown member; a snapshot has "+fmt.Sprint(topLevel), nil)
		}
		if _, dup := raw[key]; dup {
			return Snapshot{}, restoreErr(key, "appears twice", nil)
		}
		if key == "slices" {
			raw[key] = nil
			var err error
			if st, err = r.slices(); err != nil {
				return Snapshot{}, err
			}
			continue
		}
		var v json.RawMessage
		if err := r.dec.Decode(&v); err != nil {
			r.err = err
			return Snapshot{}, errSyntax
		}
		raw[key] = v
	}
	if r.err != nil {
		return Snapshot{}, errSyntax
	}
	r.token() // }
	return r.identity(raw, st)
}

// slices decodes the slices list from the stream.
func (r *reader) slices() (*state, error) {
	if tok := r.token(); tok != json.Delim('[') {
		if r.err != nil {
			return nil, errSyntax
		}
		return nil, restoreErr("slices", "must be a list, got "+tokenKind(tok), nil)
	}
	d := draft{layout: emptyLayout}
	for i := 0; r.dec.More(); i++ {
		path := fmt.Sprintf("slices[%d]", i)
		t, vec, err := r.slice(path)
		if err != nil {
			return nil, err
		}
		if _, dup := d.layout.index[t]; dup {
			return nil, restoreErr(path+".slice_type", fmt.Sprintf("%q appears twice", r.reg.Name(t)), nil)
		}
		d.set(t, vec)
	}
	if r.token(); r.err != nil { // ]
		return nil, errSyntax
	}
	return d.state(emptyTable, 0, 0), nil
}

// slice decodes one {"slice_type", "item_type", "items"} object. Items are
// decoded as they stream by when the type is known first (as
// MarshalSnapshot writes it); otherwise they are kept raw until it is.
func (r *reader) slice(path string) (reflect.Type, pvec.Vector, error) {
	tok := r.token()
	if tok != json.Delim('{') {
		if r.err != nil {
			return nil, pvec.Vector{}, errSyntax
		}
		r.skipRest(tok)
		return nil, pvec.Vector{}, restoreErr(path, "must be an object, got "+tokenKind(tok), nil)
	}
	var (
		t, itemType  reflect.Type
		name         string
		vec          pvec.Vector
		haveItems    bool
		pendingItems json.RawMessage
	)
	for r.dec.More() {
		key, _ := r.token().(string)
		switch key {
		case "slice_type", "item_type":
			var err error
			var typ reflect.Type
			var n string
			if typ, n, err = r.typeName(path + "." + key); err != nil {
				return nil, pvec.Vector{}, err
			}
			if key == "slice_type" {
				t, name = typ, n
			} else {
				itemType = typ
			}
		case "items":
			haveItems = true
			if t == nil {
				if err := r.dec.Decode(&pendingItems); err != nil {
					r.err = err
					return nil, pvec.Vector{}, errSyntax
				}
				continue
			}
			var err error
			if vec, err = r.items(r.dec, r.src, t, path+".items", &r.err); err != nil {
				return nil, pvec.Vector{}, err
			}
		default:
			if r.err != nil {
				return nil, pvec.Vector{}, errSyntax
			}
			return nil, pvec.Vector{}, restoreErr(path+"."+key, `unknown member; a slice has "slice_type", "item_type" and "items"`, nil)
		}
	}
	if r.token(); r.err != nil { // }
		return nil, pvec.Vector{}, errSyntax
	}
	if t == nil {
		return nil, pvec.Vector{}, restoreErr(path+".slice_type", "must be a non-empty type name", nil)
	}
	if itemType != nil && itemType != t {
		return nil, pvec.Vector{}, restoreErr(path+".item_type", fmt.Sprintf("%q does not match slice_type %q; a slice holds values of its own type", r.reg.Name(itemType), name), nil)
	}
	if !haveItems {
		return nil, pvec.Vector{}, restoreErr(path+".items", "missing; write [] for none", nil)
	}
	if pendingItems != nil {
		dec := json.NewDecoder(bytes.NewReader(pendingItems))
		dec.DisallowUnknownFields()
		dec.UseNumber()
		var err error
		if vec, err = r.items(dec, pendingItems, t, path+".items", &r.err); err != nil {
			return nil, pvec.Vector{}, err
		}
	}
	return t, vec, nil
}

// items decodes a list of items of type t from dec, which reads src.
// Each item is decoded straight from the stream and validated (serde's
// rules); only an item that fails is decoded again on its own, for serde's
// wording of the failure.
func (r *reader) items(dec *json.Decoder, src []byte, t reflect.Type, path string, errp *error) (pvec.Vector, error) {
	if tok := tokenOf(dec, errp); tok != json.Delim('[') {
		if *errp != nil {
			return pvec.Vector{}, errSyntax
		}
		return pvec.Vector{}, restoreErr(path, "must be a list, got "+tokenKind(tok), nil)
	}
	var vec pvec.Vector
	ptr := reflect.New(t) // decoded into, zeroed before each item, copied out
	for j := 0; dec.More(); j++ {
		start := dec.InputOffset()
		ptr.Elem().SetZero()
		decodeErr := dec.Decode(ptr.Interface())
		if isSyntax(decodeErr) {
			*errp = decodeErr
			return pvec.Vector{}, errSyntax
		}
		raw := bytes.TrimLeft(src[start:dec.InputOffset()], " \t\r\n,")
		var err error
		if decodeErr != nil || isNull(raw) {
			// serde words the failure (and refuses null where the type
			// does).
			if _, err = serde.DecodeValue(raw, t); err == nil {
				err = decodeErr
			}
		} else if err = serde.Validate(ptr.Interface()); err == nil {
			if v, ok := ptr.Interface().(interface{ Validate() error }); ok {
				err = v.Validate() // as serde's decoding does: see its package doc
			}
		}
		if err != nil {
			return pvec.Vector{}, restoreErr(fmt.Sprintf("%s[%d]", path, j), "invalid "+t.String(), err)
		}
		vec = vec.Append(ptr.Elem().Interface())
	}
	if tokenOf(dec, errp); *errp != nil { // ]
		return pvec.Vector{}, errSyntax
	}
	return vec, nil
}

// typeName reads a type name and resolves it through the registry.
func (r *reader) typeName(path string) (reflect.Type, string, error) {
	tok := r.token()
	name, ok := tok.(string)
	if !ok || name == "" {
		if r.err != nil {
			return nil, "", errSyntax
		}
		r.skipRest(tok)
		return nil, "", restoreErr(path, "must be a non-empty type name", nil)
	}
	t, ok := r.reg.Lookup(name)
	if !ok {
		return nil, name, restoreErr(path, fmt.Sprintf("type %q is not in the registry; register it with serde.Register[T](reg, %q) or dispatch it on a session using this registry before restoring", name, name), nil)
	}
	return t, name, nil
}

// skipRest consumes the rest of a value whose first token was tok.
func (r *reader) skipRest(tok json.Token) {
	if d, ok := tok.(json.Delim); ok && (d == '{' || d == '[') {
		for depth := 1; depth > 0; {
			t := r.token()
			if r.err != nil {
				return
			}
			if d, ok := t.(json.Delim); ok {
				if d == '{' || d == '[' {
					depth++
				} else {
					depth--
				}
			}
		}
	}
}

// isSyntax reports whether err says the input is not JSON.
func isSyntax(err error) bool {
	var se *json.SyntaxError
	return errors.As(err, &se) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF)
}
