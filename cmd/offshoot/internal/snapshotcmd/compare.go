package snapshotcmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"github.com/offshoot-dev/offshoot/session"
)

// runFields are the JSON field names of offshoot's records that say which
// run an item belongs to or when it happened, not what it holds: two runs
// of the same script differ in them and nothing else. compare leaves them
// out of every item, at any depth.
var runFields = map[string]bool{
	// identity: made up anew by every run
	"evaluation":        true, // runner records: the evaluation's id
	"session_id":        true,
	"parent_id":         true,
	"parent_session_id": true,
	"agent_id":          true, // a subagent's id
	"source_id":         true, // who spent tokens (runner.Spent)
	"task_id":           true, // a background task's id (its agent's)
	"uuid":              true, // a task notification's id
	"call_id":           true, // a tool call's id, which a model makes up
	"tool_call_id":      true,
	"id":                true, // a tool call's id in a message
	"output_file":       true, // a task's output file, named after its ids
	// timing
	"duration":   true, // runner records, a subagent's run
	"time_ms":    true,
	"created_at": true, // files
	"updated_at": true,
	"started_at": true,
	"ended_at":   true,
}

// fieldList names the fields of runFields, sorted, for the help.
func fieldList() string {
	names := make([]string, 0, len(runFields))
	for k := range runFields {
		names = append(names, k)
	}
	slices.Sort(names)
	// Indented lines of at most 78 columns, for the command's help.
	var lines []string
	line := " "
	for i, n := range names {
		if i < len(names)-1 {
			n += ","
		}
		if len(line)+1+len(n) > 78 {
			lines = append(lines, line)
			line = " "
		}
		line += " " + n
	}
	return strings.Join(append(lines, line), "\n")
}

// idFields are the fields of runFields whose values are ids: where such a
// value appears inside a text — a tool's result naming a task, a
// notification naming its output file — it is replaced by <id>.
var idFields = []string{"evaluation", "session_id", "parent_id", "parent_session_id", "agent_id", "source_id", "task_id", "uuid", "call_id", "tool_call_id", "id"}

// minIDLength is the shortest id replaced inside texts: a shorter value
// ("e1") could as well be a word of the text.
const minIDLength = 8

// timestamp matches an RFC 3339 time inside a text, such as the
// updated_at of a file a tool's result lists.
var timestamp = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)`)

// maxItemLines bounds the items a paragraph of compare shows.
const maxItemLines = 20

// compare returns "" when a and b hold the same state, otherwise one
// paragraph per slice type that differs: the items only a has (-), those
// only b has (+) and those that changed, as they were compared (see
// runFields). A missing slice equals an empty one.
func compare(a, b session.Snapshot, name func(reflect.Type) string) (string, error) {
	types := slices.Concat(a.Types(), b.Types())
	slices.SortFunc(types, func(x, y reflect.Type) int { return strings.Compare(name(x), name(y)) })
	types = slices.Compact(types)
	na, err := newNormalizer(a)
	if err != nil {
		return "", err
	}
	nb, err := newNormalizer(b)
	if err != nil {
		return "", err
	}
	var out strings.Builder
	for _, t := range types {
		xs, err := na.items(t)
		if err != nil {
			return "", err
		}
		ys, err := nb.items(t)
		if err != nil {
			return "", err
		}
		out.WriteString(paragraph(name(t), xs, ys))
	}
	return out.String(), nil
}

// paragraph is what compare says of one slice type: nothing when its
// items are equal.
func paragraph(name string, xs, ys []string) string {
	if slices.Equal(xs, ys) {
		return ""
	}
	var lines []string
	for i := 0; i < max(len(xs), len(ys)) && len(lines) < maxItemLines; i++ {
		switch {
		case i >= len(xs):
			lines = append(lines, fmt.Sprintf("  + [%d] %s", i, ys[i]))
		case i >= len(ys):
			lines = append(lines, fmt.Sprintf("  - [%d] %s", i, xs[i]))
		case xs[i] != ys[i]:
			lines = append(lines, fmt.Sprintf("  - [%d] %s\n  + [%d] %s", i, xs[i], i, ys[i]))
		}
	}
	if len(lines) == maxItemLines {
		lines = append(lines, "  …")
	}
	return fmt.Sprintf("slice %s: %s vs %s\n%s\n", name, plural(len(xs), "item", "items"), plural(len(ys), "item", "items"), strings.Join(lines, "\n"))
}

// normalizer turns the items of one snapshot into the JSON compare
// compares.
type normalizer struct {
	snap session.Snapshot
	// ids replaces the snapshot's ids inside texts, longest first.
	ids *strings.Replacer
}

func newNormalizer(snap session.Snapshot) (*normalizer, error) {
	seen := map[string]bool{}
	for _, id := range append([]string{snap.SessionID(), snap.ParentID()}, snap.ChildIDs()...) {
		if len(id) >= minIDLength {
			seen[id] = true
		}
	}
	for _, t := range snap.Types() {
		for v := range snap.Items(t) {
			doc, err := decode(v)
			if err != nil {
				return nil, err
			}
			collectIDs(doc, seen)
		}
	}
	ids := make([]string, 0, len(seen))
	for id := range seen {
		ids = append(ids, id)
	}
	// Longest first, so an id that holds another is replaced whole.
	slices.SortFunc(ids, func(x, y string) int { return len(y) - len(x) })
	pairs := make([]string, 0, 2*len(ids))
	for _, id := range ids {
		pairs = append(pairs, id, "<id>")
	}
	return &normalizer{snap: snap, ids: strings.NewReplacer(pairs...)}, nil
}

// items returns the items of type t as compare shows them.
func (n *normalizer) items(t reflect.Type) ([]string, error) {
	var out []string
	for v := range n.snap.Items(t) {
		doc, err := decode(v)
		if err != nil {
			return nil, err
		}
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(n.normalize(doc)); err != nil {
			return nil, fmt.Errorf("cannot encode an item of %s: %w", t, err)
		}
		out = append(out, strings.TrimSuffix(buf.String(), "\n"))
	}
	return out, nil
}

// normalize returns doc without the fields of runFields, with ids and
// times inside its texts replaced.
func (n *normalizer) normalize(doc any) any {
	switch d := doc.(type) {
	case map[string]any:
		out := make(map[string]any, len(d))
		for k, v := range d {
			if !runFields[k] {
				out[k] = n.normalize(v)
			}
		}
		return out
	case []any:
		out := make([]any, len(d))
		for i, v := range d {
			out[i] = n.normalize(v)
		}
		return out
	case string:
		return timestamp.ReplaceAllString(n.ids.Replace(d), "<time>")
	default:
		return doc
	}
}

// decode returns an item as JSON values.
func decode(v any) (any, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("cannot encode an item of %T: %w", v, err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("cannot decode an item of %T: %w", v, err)
	}
	return doc, nil
}

// collectIDs adds to seen the values of doc's id fields long enough to be
// told from words.
func collectIDs(doc any, seen map[string]bool) {
	switch d := doc.(type) {
	case map[string]any:
		for k, v := range d {
			if s, ok := v.(string); ok && len(s) >= minIDLength && slices.Contains(idFields, k) {
				seen[s] = true
			}
			collectIDs(v, seen)
		}
	case []any:
		for _, v := range d {
			collectIDs(v, seen)
		}
	}
}
