package session

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

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

// MarshalSnapshot encodes snap as versioned JSON: stable bytes for equal
// snapshots, slices sorted by their type names from reg (see
// serde.Registry.Name), struct fields as encoding/json writes them. It fails,
// naming the slice and type, when an item cannot be encoded (a channel, a
// func) or two slice types share one name.
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
		for x := range st.get(n.t).All() {
			if j > 0 {
				buf.WriteByte(',')
			}
			b, err := json.Marshal(x)
			if err != nil {
				return nil, fmt.Errorf("session: cannot encode item %d of slice %q (%s): %w", j, n.name, n.t, err)
			}
			buf.Write(b)
			j++
		}
		buf.WriteString("]}")
	}
	buf.WriteString("]}")
	return buf.Bytes(), nil
}

// writeJSON writes a value that always encodes (strings, string slices and
// maps).
func writeJSON(buf *bytes.Buffer, v any) {
	b, _ := json.Marshal(v)
	buf.Write(b)
}

type snapshotWire struct {
	Version     json.RawMessage `json:"version"`
	SessionID   json.RawMessage `json:"session_id"`
	CreatedAt   json.RawMessage `json:"created_at"`
	ParentID    json.RawMessage `json:"parent_id"`
	ChildrenIDs json.RawMessage `json:"children_ids"`
	Tags        json.RawMessage `json:"tags"`
	Slices      json.RawMessage `json:"slices"`
}

type sliceWire struct {
	SliceType json.RawMessage `json:"slice_type"`
	ItemType  json.RawMessage `json:"item_type"`
	Items     json.RawMessage `json:"items"`
}

// UnmarshalSnapshot decodes snapshot JSON written by MarshalSnapshot,
// resolving type names through reg. It validates everything — the shape,
// the version, timestamps, ids, type names, and every item with strict
// decoding and its validate tags — and fails with a *RestoreError that says
// what is wrong. Restore the result into a session with Rollback or
// New(WithSnapshot(snap)).
func UnmarshalSnapshot(data []byte, reg *serde.Registry) (Snapshot, error) {
	if reg == nil {
		reg = serde.DefaultRegistry
	}
	if !json.Valid(data) {
		return Snapshot{}, restoreErr("", "invalid JSON", nil)
	}
	var w snapshotWire
	if err := strictUnmarshal(data, &w); err != nil {
		if t := firstByte(data); t != '{' {
			return Snapshot{}, restoreErr("", "a snapshot is a JSON object, got "+jsonKind(t), nil)
		}
		return Snapshot{}, restoreErr("", "unexpected shape", err)
	}
	if w.Version == nil {
		return Snapshot{}, restoreErr("version", `missing; this build reads version "1"`, nil)
	}
	var version string
	if err := json.Unmarshal(w.Version, &version); err != nil {
		return Snapshot{}, restoreErr("version", fmt.Sprintf(`must be the string "1", got %s`, w.Version), nil)
	}
	if version != SchemaVersion {
		return Snapshot{}, restoreErr("version", fmt.Sprintf(`unsupported version %q; this build reads version "1"`, version), nil)
	}
	var sn Snapshot
	var err error
	if sn.sessionID, err = decodeID(w.SessionID, "session_id", false); err != nil {
		return Snapshot{}, err
	}
	if sn.parentID, err = decodeID(w.ParentID, "parent_id", true); err != nil {
		return Snapshot{}, err
	}
	if sn.createdAt, err = decodeTime(w.CreatedAt, "created_at"); err != nil {
		return Snapshot{}, err
	}
	if sn.children, err = decodeChildren(w.ChildrenIDs); err != nil {
		return Snapshot{}, err
	}
	if len(w.Tags) > 0 && !isNull(w.Tags) {
		if err := json.Unmarshal(w.Tags, &sn.tags); err != nil {
			return Snapshot{}, restoreErr("tags", "must be an object of strings", nil)
		}
	}
	if sn.st, err = decodeSlices(w.Slices, reg); err != nil {
		return Snapshot{}, err
	}
	return sn, nil
}

func decodeSlices(raw json.RawMessage, reg *serde.Registry) (*state, error) {
	if raw == nil {
		return nil, restoreErr("slices", "missing; write [] for none", nil)
	}
	var list []json.RawMessage
	if firstByte(raw) != '[' || json.Unmarshal(raw, &list) != nil {
		return nil, restoreErr("slices", "must be a list, got "+jsonKind(firstByte(raw)), nil)
	}
	d := newDraft(emptyState)
	for i, item := range list {
		path := fmt.Sprintf("slices[%d]", i)
		var sw sliceWire
		if firstByte(item) != '{' {
			return nil, restoreErr(path, "must be an object, got "+jsonKind(firstByte(item)), nil)
		}
		if err := strictUnmarshal(item, &sw); err != nil {
			return nil, restoreErr(path, "unexpected shape", err)
		}
		t, name, err := resolveType(sw.SliceType, path+".slice_type", reg)
		if err != nil {
			return nil, err
		}
		if sw.ItemType != nil {
			it, itemName, err := resolveType(sw.ItemType, path+".item_type", reg)
			if err != nil {
				return nil, err
			}
			if it != t {
				return nil, restoreErr(path+".item_type", fmt.Sprintf("%q does not match slice_type %q; a slice holds values of its own type", itemName, name), nil)
			}
		}
		if _, dup := d.layout.index[t]; dup {
			return nil, restoreErr(path+".slice_type", fmt.Sprintf("%q appears twice", name), nil)
		}
		vec, err := decodeItems(sw.Items, t, path+".items")
		if err != nil {
			return nil, err
		}
		d.set(t, vec)
	}
	return &state{layout: d.layout, vecs: d.vecs}, nil
}

func decodeItems(raw json.RawMessage, t reflect.Type, path string) (*pvec.Vector, error) {
	var items []json.RawMessage
	if raw == nil || firstByte(raw) != '[' || json.Unmarshal(raw, &items) != nil {
		return nil, restoreErr(path, "must be a list of "+itemKind(t), nil)
	}
	wantObject := expectsObject(t)
	var vec *pvec.Vector
	for j, item := range items {
		ipath := fmt.Sprintf("%s[%d]", path, j)
		if wantObject && firstByte(item) != '{' {
			return nil, restoreErr(ipath, "must be an object, got "+jsonKind(firstByte(item)), nil)
		}
		v, err := serde.DecodeValue(item, t)
		if err != nil {
			return nil, restoreErr(ipath, "invalid "+t.String(), err)
		}
		vec = pvec.Append(vec, v)
	}
	return vec, nil
}

func expectsObject(t reflect.Type) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Kind() == reflect.Struct || t.Kind() == reflect.Map
}

func itemKind(t reflect.Type) string {
	if expectsObject(t) {
		return "objects"
	}
	return "values of " + t.String()
}

func resolveType(raw json.RawMessage, path string, reg *serde.Registry) (reflect.Type, string, error) {
	var name string
	if raw == nil || json.Unmarshal(raw, &name) != nil || name == "" {
		return nil, "", restoreErr(path, "must be a non-empty type name", nil)
	}
	t, ok := reg.Lookup(name)
	if !ok {
		return nil, name, restoreErr(path, fmt.Sprintf("type %q is not in the registry; register it with serde.Register[T](reg, %q) or dispatch it on a session using this registry before restoring", name, name), nil)
	}
	return t, name, nil
}

func decodeID(raw json.RawMessage, path string, nullable bool) (string, error) {
	if raw == nil || isNull(raw) {
		if nullable {
			return "", nil
		}
		return "", restoreErr(path, "missing", nil)
	}
	var id string
	if err := json.Unmarshal(raw, &id); err != nil {
		return "", restoreErr(path, "must be a string", nil)
	}
	if err := checkID(id); err != nil {
		return "", restoreErr(path, err.Error(), nil)
	}
	return id, nil
}

// checkID accepts ids of 1–256 printable ASCII characters without spaces.
func checkID(id string) error {
	if id == "" || len(id) > 256 {
		return fmt.Errorf("an id must have 1 to 256 characters, got %d", len(id))
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; c <= ' ' || c > '~' {
			return fmt.Errorf("an id must be printable ASCII without spaces, got %q", id)
		}
	}
	return nil
}

func decodeTime(raw json.RawMessage, path string) (time.Time, error) {
	var s string
	if raw == nil {
		return time.Time{}, restoreErr(path, "missing", nil)
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return time.Time{}, restoreErr(path, "must be an RFC 3339 timestamp string", nil)
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, restoreErr(path, fmt.Sprintf("%q is not an RFC 3339 timestamp", s), nil)
	}
	return t.UTC(), nil
}

func decodeChildren(raw json.RawMessage) (childView, error) {
	if raw == nil || isNull(raw) {
		return childView{}, nil
	}
	var ids []string
	if err := json.Unmarshal(raw, &ids); err != nil || firstByte(raw) != '[' {
		return childView{}, restoreErr("children_ids", "must be a list of ids", nil)
	}
	var c children
	for i, id := range ids {
		if err := checkID(id); err != nil {
			return childView{}, restoreErr(fmt.Sprintf("children_ids[%d]", i), err.Error(), nil)
		}
		c.add(id)
	}
	return c.view(), nil
}

func strictUnmarshal(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

func firstByte(data []byte) byte {
	data = bytes.TrimLeft(data, " \t\r\n")
	if len(data) == 0 {
		return 0
	}
	return data[0]
}

func isNull(raw json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(raw), []byte("null")) }

func jsonKind(b byte) string {
	switch {
	case b == '{':
		return "an object"
	case b == '[':
		return "a list"
	case b == '"':
		return "a string"
	case b == 't' || b == 'f':
		return "a boolean"
	case b == 'n':
		return "null"
	case b == '-' || (b >= '0' && b <= '9'):
		return "a number"
	}
	return "nothing"
}
