package sessiontest

import (
	"bytes"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"

	"github.com/offshoot-dev/offshoot/session"
)

// Captured is a session's state recorded deeply at one moment (see
// Capture): it shares no memory with the session, so later changes — even
// ones made through maps, slices or pointers that a child shares with its
// parent — cannot change it.
type Captured struct {
	sessionID string
	snap      session.Snapshot
	slices    map[reflect.Type][][]byte // canonical encoding of each item
}

// Snapshot returns the snapshot the capture was taken from, for
// AssertParity or Diff: it shares memory with the session it came from.
func (c Captured) Snapshot() session.Snapshot { return c.snap }

// Capture records the state of s deeply, for AssertUnchanged: a canonical
// encoding of every item (every field, unexported ones included), taken
// now. It costs one pass over the items.
func Capture(s *session.Session) Captured { return CaptureSnapshot(s.Snapshot()) }

// CaptureSnapshot is Capture of a snapshot: the snapshot's items encoded
// now. Capture right when the snapshot is taken, before anything else can
// change what its items point to.
func CaptureSnapshot(snap session.Snapshot) Captured {
	c := Captured{sessionID: snap.SessionID(), snap: snap, slices: map[reflect.Type][][]byte{}}
	for _, t := range snap.Types() {
		var items [][]byte
		for x := range snap.Items(t) {
			items = append(items, canonical(x))
		}
		c.slices[t] = items
	}
	return c
}

// canonical returns a deterministic encoding of x: equal for equal values,
// whatever they share or point to. Values of types with an Equal method are
// encoded field by field like others (Equal is applied when two captured
// items differ, see unchanged).
func canonical(x any) []byte {
	var buf bytes.Buffer
	(&encoder{}).encode(&buf, reflect.ValueOf(x))
	return buf.Bytes()
}

// canonicalUpTo is canonical cut short ("…") after limit values: for
// showing a value, however large or shared.
func canonicalUpTo(x any, limit int) []byte {
	var buf bytes.Buffer
	(&encoder{limit: limit}).encode(&buf, reflect.ValueOf(x))
	return buf.Bytes()
}

// encoder writes canonical encodings. It tracks the pointers, maps and
// slices it is inside, so a value that reaches itself is written once,
// with "<cycle>" where it recurs.
type encoder struct {
	inside map[ref]bool
	limit  int // values to encode at most; 0: no limit
	used   int // values encoded
}

// ref identifies a pointer, map or slice by what it points to. A slice's
// length is part of it: s and s[:1] share their first element's address.
type ref struct {
	p uintptr
	t reflect.Type
	n int
}

// enter marks r as being encoded; it reports false when r is already being
// encoded further up, a cycle.
func (e *encoder) enter(r ref) bool {
	if e.inside[r] {
		return false
	}
	if e.inside == nil {
		e.inside = map[ref]bool{}
	}
	e.inside[r] = true
	return true
}

func (e *encoder) leave(r ref) { delete(e.inside, r) }

// full reports whether the limit is reached.
func (e *encoder) full() bool { return e.limit > 0 && e.used >= e.limit }

func (e *encoder) encode(buf *bytes.Buffer, v reflect.Value) {
	if e.full() {
		buf.WriteString("…")
		return
	}
	e.used++
	if !v.IsValid() {
		buf.WriteString("nil")
		return
	}
	switch v.Kind() {
	case reflect.Bool:
		buf.WriteString(strconv.FormatBool(v.Bool()))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		buf.WriteString(strconv.FormatInt(v.Int(), 10))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		buf.WriteString(strconv.FormatUint(v.Uint(), 10))
	case reflect.Float32, reflect.Float64:
		f := v.Float()
		if math.IsNaN(f) {
			buf.WriteString("NaN")
		} else {
			buf.WriteString(strconv.FormatFloat(f, 'g', -1, 64))
		}
	case reflect.Complex64, reflect.Complex128:
		buf.WriteString(strconv.FormatComplex(v.Complex(), 'g', -1, 128))
	case reflect.String:
		buf.WriteString(strconv.Quote(v.String()))
	case reflect.Pointer:
		if v.IsNil() {
			buf.WriteString("nil")
			return
		}
		r := ref{p: v.Pointer(), t: v.Type()}
		if !e.enter(r) {
			buf.WriteString("<cycle>")
			return
		}
		defer e.leave(r)
		buf.WriteByte('&')
		e.encode(buf, v.Elem())
	case reflect.Interface:
		if v.IsNil() {
			buf.WriteString("nil")
			return
		}
		buf.WriteString(v.Elem().Type().String())
		buf.WriteByte('(')
		e.encode(buf, v.Elem())
		buf.WriteByte(')')
	case reflect.Struct:
		buf.WriteByte('{')
		for i := range v.NumField() {
			if i > 0 {
				buf.WriteByte(',')
			}
			buf.WriteString(v.Type().Field(i).Name)
			buf.WriteByte(':')
			e.encode(buf, v.Field(i))
		}
		buf.WriteByte('}')
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.Len() > 0 {
			r := ref{p: v.Pointer(), t: v.Type(), n: v.Len()}
			if !e.enter(r) {
				buf.WriteString("<cycle>")
				return
			}
			defer e.leave(r)
		}
		buf.WriteByte('[')
		for i := range v.Len() {
			if i > 0 {
				buf.WriteByte(',')
			}
			if e.full() {
				buf.WriteString("…")
				break
			}
			e.encode(buf, v.Index(i))
		}
		buf.WriteByte(']')
	case reflect.Map:
		if v.IsNil() {
			buf.WriteString("map[]")
			return
		}
		r := ref{p: v.Pointer(), t: v.Type()}
		if !e.enter(r) {
			buf.WriteString("<cycle>")
			return
		}
		defer e.leave(r)
		type entry struct{ k, v []byte }
		entries := make([]entry, 0, v.Len())
		for it := v.MapRange(); it.Next() && !e.full(); {
			var k, ev bytes.Buffer
			e.encode(&k, it.Key())
			e.encode(&ev, it.Value())
			entries = append(entries, entry{k.Bytes(), ev.Bytes()})
		}
		slices.SortFunc(entries, func(a, b entry) int { return bytes.Compare(a.k, b.k) })
		buf.WriteString("map[")
		for i, en := range entries {
			if i > 0 {
				buf.WriteByte(',')
			}
			buf.Write(en.k)
			buf.WriteByte(':')
			buf.Write(en.v)
		}
		if len(entries) < v.Len() {
			buf.WriteString(",…")
		}
		buf.WriteByte(']')
	case reflect.Func, reflect.Chan, reflect.UnsafePointer:
		if v.IsNil() {
			buf.WriteString("nil")
		} else {
			fmt.Fprintf(buf, "%s@%x", v.Kind(), v.Pointer())
		}
	}
}

// valueOnly reports whether values of t hold no references (maps, slices,
// pointers, interfaces, funcs, channels): then a slice that is the very
// same version as a captured one still holds what was captured.
func valueOnly(t reflect.Type) bool { return valueOnlyOf(t, map[reflect.Type]bool{}) }

func valueOnlyOf(t reflect.Type, seen map[reflect.Type]bool) bool {
	switch t.Kind() {
	case reflect.Map, reflect.Slice, reflect.Pointer, reflect.Interface, reflect.Func, reflect.Chan, reflect.UnsafePointer:
		return false
	case reflect.Array:
		return valueOnlyOf(t.Elem(), seen)
	case reflect.Struct:
		if seen[t] {
			return true
		}
		seen[t] = true
		for i := range t.NumField() {
			if !valueOnlyOf(t.Field(i).Type, seen) {
				return false
			}
		}
	}
	return true
}
