package session

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/offshoot-dev/offshoot/serde"
)

// MarshalSnapshot encodes snap as versioned JSON: stable bytes for equal
// snapshots, slices sorted by their type names from reg (see
// serde.Registry.Name), struct fields as encoding/json writes them. It fails,
// naming the slice and the item, when an item cannot be encoded (a channel,
// a func), when it holds a string that is not valid UTF-8 (JSON would
// replace its bytes, so it could not be restored as it was), when it would
// not restore to the same bytes (a struct held in an interface field comes
// back as a map with sorted keys; a MarshalText or MarshalJSON method writes
// invalid UTF-8), or when two slice types share one name. What it writes,
// UnmarshalSnapshot restores so that it encodes to the same bytes again:
// items of types that can hold interface values are checked by decoding and
// encoding them again; items of other types need no check.
func MarshalSnapshot(snap Snapshot, reg *serde.Registry) ([]byte, error) {
	if reg == nil {
		reg = serde.DefaultRegistry
	}
	st := snap.state()
	type named struct {
		name string
		t    reflect.Type
	}
	list := make([]named, 0, len(st.layout.types))
	for _, t := range st.layout.types {
		list = append(list, named{reg.Name(t), t})
	}
	slices.SortFunc(list, func(a, b named) int { return strings.Compare(a.name, b.name) })
	for i := 1; i < len(list); i++ {
		if list[i].name == list[i-1].name {
			return nil, fmt.Errorf("session: slice types %s and %s are both named %q; give one a name with serde.Register", list[i-1].t, list[i].t, list[i].name)
		}
	}
	for k, v := range snap.tags {
		if !utf8.ValidString(k) || !utf8.ValidString(v) {
			return nil, fmt.Errorf("session: tag %q holds text that is not valid UTF-8; snapshot JSON could not restore it", k)
		}
	}

	var buf bytes.Buffer
	items := 0
	for _, v := range st.vecs {
		items += v.Len()
	}
	buf.Grow(256 + 128*len(list) + 96*items)
	buf.WriteString(`{"version":"1","session_id":`)
	writeJSON(&buf, snap.sessionID)
	buf.WriteString(`,"created_at":`)
	writeJSON(&buf, snap.createdAt.UTC().Format(time.RFC3339Nano))
	buf.WriteString(`,"parent_id":`)
	if snap.parentID == "" {
		buf.WriteString("null")
	} else {
		writeJSON(&buf, snap.parentID)
	}
	buf.WriteString(`,"children_ids":`)
	writeJSON(&buf, snap.ChildIDs())
	buf.WriteString(`,"tags":`)
	if snap.tags == nil {
		buf.WriteString("{}")
	} else {
		writeJSON(&buf, snap.tags) // encoding/json sorts map keys
	}
	buf.WriteString(`,"slices":[`)
	for i, n := range list {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.WriteString(`{"slice_type":`)
		writeJSON(&buf, n.name)
		buf.WriteString(`,"item_type":`)
		writeJSON(&buf, n.name)
		buf.WriteString(`,"items":[`)
		j := 0
		var shape *jsonShape // worked out at the first item
		for x := range st.get(n.t).All() {
			if j > 0 {
				buf.WriteByte(',')
			}
			b, err := json.Marshal(x)
			if err != nil {
				return nil, fmt.Errorf("session: cannot encode item %d of slice %q (%s): %w", j, n.name, n.t, err)
			}
			if shape == nil {
				sh := shapeOf(n.t)
				shape = &sh
			}
			check := shape.iface || (shape.marshaler && !utf8.Valid(b))
			if replacedInvalidUTF8(b) {
				if path, bad := invalidUTF8(reflect.ValueOf(x), ""); bad {
					return nil, fmt.Errorf("session: cannot encode item %d of slice %q (%s): %s holds text that is not valid UTF-8, which JSON would change; store bytes as []byte", j, n.name, n.t, describePath(path))
				}
				check = true // text from a MarshalText or MarshalJSON method
			}
			if check {
				if err := checkRestores(b, n.t); err != nil {
					return nil, fmt.Errorf("session: cannot encode item %d of slice %q (%s): %w; %s", j, n.name, n.t, err, restoreAdvice(*shape, b))
				}
			}
			buf.Write(b)
			j++
		}
		buf.WriteString("]}")
	}
	buf.WriteString("]}")
	return buf.Bytes(), nil
}

// restoreAdvice says what to change in an item type whose item would not
// restore as written.
func restoreAdvice(sh jsonShape, b []byte) string {
	if replacedInvalidUTF8(b) || !utf8.Valid(b) {
		return "text in snapshot JSON must be valid UTF-8: make the method write valid UTF-8, or store bytes as []byte"
	}
	if sh.iface {
		return "a value in an interface field (any) restores as a map, list, string, number or bool, so a struct there comes back as a map with its keys sorted: use a concrete type for the field, or a map with sorted keys"
	}
	return "make the type's JSON or text methods write what they read"
}

// writeJSON writes a value that always encodes (strings, string slices and
// maps).
func writeJSON(buf *bytes.Buffer, v any) {
	b, _ := json.Marshal(v)
	buf.Write(b)
}

// replacedInvalidUTF8 reports whether encoding/json may have replaced
// invalid UTF-8 in b: it writes such bytes as the escape \ufffd, which it
// never writes for valid text (a real U+FFFD is written as is).
func replacedInvalidUTF8(b []byte) bool {
	for {
		i := bytes.Index(b, []byte(`\ufffd`))
		if i < 0 {
			return false
		}
		backslashes := 0
		for j := i - 1; j >= 0 && b[j] == '\\'; j-- {
			backslashes++
		}
		if backslashes%2 == 0 {
			return true
		}
		b = b[i+1:]
	}
}

// invalidUTF8 looks for a string in v that is not valid UTF-8 and returns
// where it is. It follows what encoding/json encodes: exported fields,
// elements, map keys and values, pointers and interfaces.
func invalidUTF8(v reflect.Value, path string) (string, bool) {
	switch v.Kind() {
	case reflect.String:
		return path, !utf8.ValidString(v.String())
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return "", false
		}
		return invalidUTF8(v.Elem(), path)
	case reflect.Struct:
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if !f.IsExported() {
				continue
			}
			if p, bad := invalidUTF8(v.Field(i), path+"."+f.Name); bad {
				return p, true
			}
		}
	case reflect.Slice, reflect.Array:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return "", false // base64
		}
		for i := range v.Len() {
			if p, bad := invalidUTF8(v.Index(i), fmt.Sprintf("%s[%d]", path, i)); bad {
				return p, true
			}
		}
	case reflect.Map:
		for it := v.MapRange(); it.Next(); {
			key := fmt.Sprintf("%s[%q]", path, fmt.Sprint(it.Key().Interface()))
			if p, bad := invalidUTF8(it.Key(), key); bad {
				return p, true
			}
			if p, bad := invalidUTF8(it.Value(), key); bad {
				return p, true
			}
		}
	}
	return "", false
}

func describePath(path string) string {
	if path == "" {
		return "the item"
	}
	return "field " + strings.TrimPrefix(path, ".")
}
