// Package sessiontest holds helpers for testing code built on sessions, as
// httptest does for handlers: snapshot parity after a fork, "nothing
// changed" checks for isolation, and JSON round trips for your own slice
// types. Every helper fails with a readable diff.
package sessiontest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/offshoot-dev/offshoot/session"
)

// maxItemLines caps how many differing items Diff lists per slice.
const maxItemLines = 10

// Diff compares the slices of two snapshots and returns "" when they are
// equal, otherwise one paragraph per differing slice type. Identity fields —
// ids, children, tags, times — are not compared. Two slices are equal when
// they are the same version (O(1), as after a fork), else item by item: with
// the item type's Equal method when it has one, else by canonical JSON.
func Diff(a, b session.Snapshot, opts ...Option) string { return diff(a, b, ignoring(opts)) }

// Option adjusts a comparison of the assertions.
type Option func(ignored map[reflect.Type]bool)

// Ignore leaves slices of type T out of a comparison — for records a
// check expects to change, such as the runner.ChildUsage a parent receives
// from a child run.
func Ignore[T any]() Option {
	return func(ignored map[reflect.Type]bool) { ignored[reflect.TypeFor[T]()] = true }
}

func ignoring(opts []Option) map[reflect.Type]bool {
	if len(opts) == 0 {
		return nil
	}
	m := map[reflect.Type]bool{}
	for _, o := range opts {
		o(m)
	}
	return m
}

func diff(a, b session.Snapshot, ignored map[reflect.Type]bool) string {
	var out strings.Builder
	for _, t := range unionTypes(a, b) {
		if ignored[t] || a.Same(b, t) {
			continue
		}
		if d := diffSlice(a, b, t); d != "" {
			out.WriteString(d)
		}
	}
	return out.String()
}

func unionTypes(a, b session.Snapshot) []reflect.Type {
	seen := map[reflect.Type]bool{}
	var ts []reflect.Type
	for _, t := range append(a.Types(), b.Types()...) {
		if !seen[t] {
			seen[t] = true
			ts = append(ts, t)
		}
	}
	return ts
}

func diffSlice(a, b session.Snapshot, t reflect.Type) string {
	xs, ys := collect(a, t), collect(b, t)
	var lines []string
	n := max(len(xs), len(ys))
	for i := 0; i < n && len(lines) < maxItemLines; i++ {
		switch {
		case i >= len(xs):
			lines = append(lines, fmt.Sprintf("  + [%d] %s", i, show(ys[i])))
		case i >= len(ys):
			lines = append(lines, fmt.Sprintf("  - [%d] %s", i, show(xs[i])))
		case !Equal(xs[i], ys[i]):
			lines = append(lines, fmt.Sprintf("  - [%d] %s\n  + [%d] %s", i, show(xs[i]), i, show(ys[i])))
		}
	}
	if len(lines) == 0 && len(xs) == len(ys) {
		return ""
	}
	head := fmt.Sprintf("slice %s: %d items vs %d items\n", t, len(xs), len(ys))
	if !a.Has(t) {
		head = fmt.Sprintf("slice %s: missing vs %d items\n", t, len(ys))
	} else if !b.Has(t) {
		head = fmt.Sprintf("slice %s: %d items vs missing\n", t, len(xs))
	}
	return head + strings.Join(lines, "\n") + "\n"
}

func collect(s session.Snapshot, t reflect.Type) []any {
	var out []any
	for x := range s.Items(t) {
		out = append(out, x)
	}
	return out
}

// Equal reports whether two slice items are equal, as Diff compares them:
// identical values, else the type's Equal method (func (T) Equal(T) bool),
// else canonical JSON, else reflect.DeepEqual for values JSON cannot encode.
func Equal(x, y any) bool {
	tx, ty := reflect.TypeOf(x), reflect.TypeOf(y)
	if tx != ty {
		return false
	}
	if tx != nil && tx.Comparable() && x == y {
		return true
	}
	if m, ok := tx.MethodByName("Equal"); ok && m.Type.NumIn() == 2 && m.Type.In(1) == tx &&
		m.Type.NumOut() == 1 && m.Type.Out(0).Kind() == reflect.Bool {
		return m.Func.Call([]reflect.Value{reflect.ValueOf(x), reflect.ValueOf(y)})[0].Bool()
	}
	jx, errx := json.Marshal(x)
	jy, erry := json.Marshal(y)
	if errx == nil && erry == nil {
		return bytes.Equal(jx, jy)
	}
	return reflect.DeepEqual(x, y)
}

func show(x any) string {
	if b, err := json.Marshal(x); err == nil {
		return string(b)
	}
	return fmt.Sprintf("%#v", x)
}
