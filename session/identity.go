package session

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// The members of snapshot JSON that say which session it is: its version,
// ids, creation time, children and tags.

// identity checks the members other than slices and builds the snapshot.
func (r *reader) identity(raw map[string]json.RawMessage, st *state) (Snapshot, error) {
	v, ok := raw["version"]
	if !ok {
		return Snapshot{}, restoreErr("version", `missing; this build reads version "1"`, nil)
	}
	var version string
	if err := json.Unmarshal(v, &version); err != nil {
		return Snapshot{}, restoreErr("version", fmt.Sprintf(`must be the string "1", got %s`, v), nil)
	}
	if version != SchemaVersion {
		return Snapshot{}, restoreErr("version", fmt.Sprintf(`unsupported version %q; this build reads version "1"`, version), nil)
	}
	if _, ok := raw["slices"]; !ok {
		return Snapshot{}, restoreErr("slices", "missing; write [] for none", nil)
	}
	var sn Snapshot
	var err error
	if sn.sessionID, err = decodeID(raw["session_id"], "session_id", false); err != nil {
		return Snapshot{}, err
	}
	if sn.parentID, err = decodeID(raw["parent_id"], "parent_id", true); err != nil {
		return Snapshot{}, err
	}
	if sn.parentID == sn.sessionID {
		return Snapshot{}, restoreErr("parent_id", fmt.Sprintf("%q is the session's own id; a session cannot be its own parent", sn.parentID), nil)
	}
	if sn.createdAt, err = decodeTime(raw["created_at"], "created_at"); err != nil {
		return Snapshot{}, err
	}
	children := raw["children_ids"]
	delete(raw, "children_ids") // its text is garbage once decoded
	ids, err := decodeChildren(children, sn.sessionID, sn.parentID)
	if err != nil {
		return Snapshot{}, err
	}
	if ids != nil {
		sn.restored = &ids
	}
	if t := raw["tags"]; len(t) > 0 && !isNull(t) {
		if err := json.Unmarshal(t, &sn.tags); err != nil {
			return Snapshot{}, restoreErr("tags", "must be an object of strings", nil)
		}
	}
	sn.st = st
	return sn, nil
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

// decodeChildren decodes children_ids: distinct ids, none of them the
// session's own or its parent's.
func decodeChildren(raw json.RawMessage, self, parent string) ([]string, error) {
	if raw == nil || isNull(raw) {
		return nil, nil
	}
	// Room for every id at once (json.Unmarshal appends to it): at most
	// one per comma, and at most one per four bytes ("a",).
	if firstByte(raw) != '[' {
		return nil, restoreErr("children_ids", "must be a list of ids", nil)
	}
	ids := make([]string, 0, min(bytes.Count(raw, []byte{','}), len(raw)/4)+1)
	if err := json.Unmarshal(raw, &ids); err != nil {
		return nil, restoreErr("children_ids", "must be a list of ids", nil)
	}
	raw = nil // garbage from here: the peak holds the ids, not their text too
	if len(ids) > math.MaxInt32 {
		return nil, restoreErr("children_ids", fmt.Sprintf("has %d ids; at most %d are read", len(ids), math.MaxInt32), nil)
	}
	for i, id := range ids {
		path := func() string { return fmt.Sprintf("children_ids[%d]", i) }
		if err := checkID(id); err != nil {
			return nil, restoreErr(path(), err.Error(), nil)
		}
		switch id {
		case self:
			return nil, restoreErr(path(), fmt.Sprintf("%q is the session's own id; a session cannot be its own child", id), nil)
		case parent:
			return nil, restoreErr(path(), fmt.Sprintf("%q is the session's parent; a session cannot be its parent's parent", id), nil)
		}
	}
	// Duplicates, found in the ids' order when sorted: 4 bytes an id (a
	// set of 100,000 strings would cost several times the input).
	order := make([]int32, len(ids))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int { return cmp.Or(strings.Compare(ids[a], ids[b]), int(a-b)) })
	for k := 1; k < len(order); k++ {
		if ids[order[k]] == ids[order[k-1]] {
			return nil, restoreErr(fmt.Sprintf("children_ids[%d]", order[k]), fmt.Sprintf("%q appears twice", ids[order[k]]), nil)
		}
	}
	return ids, nil
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

// tokenKind names the JSON kind of a value's first token.
func tokenKind(tok json.Token) string {
	switch v := tok.(type) {
	case json.Delim:
		return jsonKind(byte(v))
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	default:
		return "a number"
	}
}
