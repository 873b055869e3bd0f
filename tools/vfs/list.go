package vfs

import (
	"strings"
	"time"
)

// The kinds of Entry.
const (
	kindFile      = "file"
	kindDirectory = "directory"
)

// Entry is one item of a directory listing: a file, or a directory that
// holds files (directories exist only through the files below them).
type Entry struct {
	// Path is the entry's canonical path.
	Path string `json:"path"`
	// Kind is "file" or "directory".
	Kind string `json:"kind"`
	// SizeBytes is a file's size, or the total size of the files below a
	// directory.
	SizeBytes int `json:"size_bytes"`
	// Version is a file's version; 0 (left out of JSON) for a directory.
	Version int `json:"version,omitempty"`
	// UpdatedAt is when a file was last written, or the latest such time
	// among the files below a directory.
	UpdatedAt time.Time `json:"updated_at"`
}

// List returns the entries directly inside the directory dir (a canonical
// path, or "" for the root), in path order: each file, and each
// subdirectory with the totals of the files below it. A directory with no
// files below it has no entries. List walks the files below dir once and
// never sorts.
func (t Table) List(dir string) []Entry {
	prefix := ""
	if dir != "" {
		prefix = dir + "/"
	}
	entries := []Entry{}
	for f := range t.under(prefix) {
		rest := f.Path[len(prefix):]
		name, _, nested := strings.Cut(rest, "/")
		if !nested {
			entries = append(entries, Entry{Path: f.Path, Kind: kindFile, SizeBytes: f.SizeBytes(), Version: f.Version, UpdatedAt: f.UpdatedAt})
			continue
		}
		// The files below one subdirectory are contiguous, so a
		// subdirectory is always the last entry while its files come.
		if n := len(entries); n > 0 && entries[n-1].Kind == kindDirectory && entries[n-1].Path[len(prefix):] == name {
			e := &entries[n-1]
			e.SizeBytes += f.SizeBytes()
			if f.UpdatedAt.After(e.UpdatedAt) {
				e.UpdatedAt = f.UpdatedAt
			}
			continue
		}
		entries = append(entries, Entry{Path: prefix + name, Kind: kindDirectory, SizeBytes: f.SizeBytes(), UpdatedAt: f.UpdatedAt})
	}
	return entries
}
