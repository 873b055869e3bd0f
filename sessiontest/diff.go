package sessiontest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/offshoot-dev/offshoot/session"
)

// maxItemLines caps how many differing items a diff lists per slice.
const maxItemLines = 10

// Option adjusts a comparison of the assertions.
type Option func(ignored map[reflect.Type]bool)

// Ignore leaves slices of type T out of a comparison — for records a
// check expects to change, such as the runner.Spent record a parent receives
// from a child run.
func Ignore[T any]() Option {
	return func(ignored map[reflect.Type]bool) { ignored[reflect.TypeFor[T]()] = true }
}

func ignoring(opts []Option) map[reflect.Type]bool {
	m := map[reflect.Type]bool{}
	for _, o := range opts {
		o(m)
	}
	return m
}

// Diff compares the slices of two snapshots and returns "" when they are
// equal, otherwise one paragraph per differing slice type. Identity fields —
// ids, children, tags, times — are not compared. Two slices are equal when
// they are the same version (O(1), as after a fork: they are then the very
// same items), else item by item (see the package doc). A missing slice equals an
// empty one.
func Diff(a, b session.Snapshot, opts ...Option) string {
	ignored := ignoring(opts)
	var out strings.Builder
	for _, t := range unionTypes(a.Types(), b.Types()) {
		if ignored[t] || a.Same(b, t) {
			continue
		}
		xs, ys := collect(a, t), collect(b, t)
		out.WriteString(diffItems(t, a.Has(t), b.Has(t), len(xs), len(ys), func(i int) (string, string, bool) {
			return show(at(xs, i)), show(at(ys, i)), i < len(xs) && i < len(ys) && equal(xs[i], ys[i])
		}))
	}
	return out.String()
}

// diffItems writes the paragraph for one slice type: nothing when every
// item is equal. item(i) shows the i-th items of both sides and whether
// they are equal.
func diffItems(t reflect.Type, hasA, hasB bool, na, nb int, item func(i int) (a, b string, equal bool)) string {
	var lines []string
	differ := na != nb
	for i := 0; i < max(na, nb); i++ {
		a, b, eq := item(i)
		switch {
		case i >= na:
			differ = true
			lines = appendCapped(lines, fmt.Sprintf("  + [%d] %s", i, b))
		case i >= nb:
			differ = true
			lines = appendCapped(lines, fmt.Sprintf("  - [%d] %s", i, a))
		case !eq:
			differ = true
			if a == b {
				a, b = a+"  (differs in fields JSON does not show)", b+"  (differs in fields JSON does not show)"
			}
			lines = appendCapped(lines, fmt.Sprintf("  - [%d] %s\n  + [%d] %s", i, a, i, b))
		}
	}
	if !differ {
		return ""
	}
	head := fmt.Sprintf("slice %s: %d items vs %d items\n", t, na, nb)
	if !hasA {
		head = fmt.Sprintf("slice %s: missing vs %d items\n", t, nb)
	} else if !hasB {
		head = fmt.Sprintf("slice %s: %d items vs missing\n", t, na)
	}
	if len(lines) > maxItemLines {
		lines = append(lines[:maxItemLines], "  …")
	}
	return head + strings.Join(lines, "\n") + "\n"
}

func appendCapped(lines []string, l string) []string {
	if len(lines) > maxItemLines {
		return lines
	}
	return append(lines, l)
}

func unionTypes(a, b []reflect.Type) []reflect.Type {
	seen := map[reflect.Type]bool{}
	var ts []reflect.Type
	for _, t := range append(a, b...) {
		if !seen[t] {
			seen[t] = true
			ts = append(ts, t)
		}
	}
	return ts
}

func collect(s session.Snapshot, t reflect.Type) []any {
	var out []any
	for x := range s.Items(t) {
		out = append(out, x)
	}
	return out
}

func at(xs []any, i int) any {
	if i < len(xs) {
		return xs[i]
	}
	return nil
}

// show renders an item for a diff: its JSON, or, when JSON cannot encode
// it (a func, a channel, a cycle), the canonical encoding cut short. It
// never panics and always ends.
func show(x any) (s string) {
	defer func() {
		if recover() != nil {
			s = fmt.Sprintf("<%T>", x)
		}
	}()
	if b, err := json.Marshal(x); err == nil {
		return string(b)
	}
	return showCanonical(canonicalUpTo(x, maxShownValues))
}

// maxShownValues caps how many values show encodes when JSON cannot.
const maxShownValues = 200

// showCanonical renders a captured item whose value is gone.
func showCanonical(b []byte) string {
	const max = 300
	if len(b) > max {
		return string(bytes.ToValidUTF8(b[:max], nil)) + "…"
	}
	return string(b)
}
