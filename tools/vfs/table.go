package vfs

import (
	"iter"
	"strings"
	"time"

	"github.com/benbjohnson/immutable"
)

// File is one file of the virtual filesystem, as readers get it. Values are
// copies: changing one changes nothing in any session.
type File struct {
	// Path is the file's canonical path (see normalizePath).
	Path string `json:"path"`
	// Content is the file's text (valid UTF-8).
	Content string `json:"content"`
	// Version is 1 when the file is created and grows by one with each
	// write or edit.
	Version int `json:"version"`
	// CreatedAt is when the file was created: UTC, millisecond precision,
	// from the session bus's clock (the host file's modification time for
	// mounted files).
	CreatedAt time.Time `json:"created_at"`
	// UpdatedAt is when the file was last written, as CreatedAt.
	UpdatedAt time.Time `json:"updated_at"`
}

// SizeBytes returns the size of the content in bytes.
func (f File) SizeBytes() int { return len(f.Content) }

// Table is the immutable table of a virtual filesystem's files: a
// persistent B+tree (github.com/benbjohnson/immutable's SortedMap) keyed by
// canonical path. A change returns a new Table that shares all but
// O(log n) nodes with the old one, so keeping old versions — snapshots,
// forks — costs nothing, and no change copies the whole table. The zero
// Table is empty and ready to use.
//
// Paths are ordered segment by segment ("a/b" before "a.txt", since the
// segment "a" sorts before "a.txt"): the order of fs.WalkDir, in which the
// files of a directory are contiguous. Every listing in this package comes
// out in that order without sorting.
//
// A session holds its files as the latest value of its Table slice; read
// it with Files or FilesOf. A Table is safe for concurrent use.
type Table struct {
	m *immutable.SortedMap[string, *File]
}

// pathOrder compares canonical paths segment by segment: as bytes, with
// '/' below every other byte. (NUL, the only byte below '/' in the
// comparison, never occurs in a path.)
type pathOrder struct{}

func (pathOrder) Compare(a, b string) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		x, y := a[i], b[i]
		if x == y {
			continue
		}
		switch {
		case x == '/':
			return -1
		case y == '/':
			return 1
		case x < y:
			return -1
		default:
			return 1
		}
	}
	switch {
	case len(a) < len(b):
		return -1
	case len(a) > len(b):
		return 1
	}
	return 0
}

// newMap returns an empty map with the path order.
func newMap() *immutable.SortedMap[string, *File] {
	return immutable.NewSortedMap[string, *File](pathOrder{})
}

// Len returns the number of files.
func (t Table) Len() int {
	if t.m == nil {
		return 0
	}
	return t.m.Len()
}

// Get returns the file at the canonical path p.
func (t Table) Get(p string) (File, bool) {
	if f, ok := t.get(p); ok {
		return *f, true
	}
	return File{}, false
}

func (t Table) get(p string) (*File, bool) {
	if t.m == nil {
		return nil, false
	}
	return t.m.Get(p)
}

// IsDir reports whether the canonical path p is a directory: the root
// ("") always is, and any other path when some file lies below it.
func (t Table) IsDir(p string) bool {
	if p == "" {
		return true
	}
	for range t.under(p + "/") {
		return true
	}
	return false
}

// All yields every file in path order.
func (t Table) All() iter.Seq[File] {
	return func(yield func(File) bool) {
		for f := range t.under("") {
			if !yield(*f) {
				return
			}
		}
	}
}

// Under yields, in path order, the files below the directory dir (a
// canonical path, or "" for the root). It costs O(log n) to start and
// O(1) per file.
func (t Table) Under(dir string) iter.Seq[File] {
	prefix := ""
	if dir != "" {
		prefix = dir + "/"
	}
	return func(yield func(File) bool) {
		for f := range t.under(prefix) {
			if !yield(*f) {
				return
			}
		}
	}
}

// under yields the files whose path starts with prefix ("" or a directory
// path ending in "/"). They are contiguous in path order.
func (t Table) under(prefix string) iter.Seq[*File] {
	return func(yield func(*File) bool) {
		if t.m == nil {
			return
		}
		it := t.m.Iterator()
		if prefix == "" {
			it.First()
		} else {
			it.Seek(prefix)
		}
		for !it.Done() {
			k, f, _ := it.Next()
			if !strings.HasPrefix(k, prefix) || !yield(f) {
				return
			}
		}
	}
}

// set returns t with f stored at f.Path.
func (t Table) set(f *File) Table {
	m := t.m
	if m == nil {
		m = newMap()
	}
	return Table{m: m.Set(f.Path, f)}
}

// without returns t without the files at p and below p, and how many it
// removed.
func (t Table) without(p string) (Table, int) {
	if t.m == nil {
		return t, 0
	}
	m := t.m
	n := 0
	if _, ok := m.Get(p); ok {
		m = m.Delete(p)
		n++
	}
	var below []string
	for f := range t.under(p + "/") {
		below = append(below, f.Path)
	}
	for _, k := range below {
		m = m.Delete(k)
	}
	return Table{m: m}, n + len(below)
}

// Equal reports whether t and o hold the same files with the same
// contents, versions and times. It is O(1) when they are the same version
// of a table.
func (t Table) Equal(o Table) bool {
	if t.m == o.m || t.Len() == 0 && o.Len() == 0 {
		return true
	}
	if t.Len() != o.Len() {
		return false
	}
	a, b := t.m.Iterator(), o.m.Iterator()
	for !a.Done() {
		_, x, _ := a.Next()
		_, y, _ := b.Next()
		if x != y && !x.equal(y) {
			return false
		}
	}
	return true
}

func (f *File) equal(o *File) bool {
	return f.Path == o.Path && f.Content == o.Content && f.Version == o.Version &&
		f.CreatedAt.Equal(o.CreatedAt) && f.UpdatedAt.Equal(o.UpdatedAt)
}

// stamp is how a table records a time: UTC, millisecond precision.
func stamp(t time.Time) time.Time { return t.UTC().Truncate(time.Millisecond) }
