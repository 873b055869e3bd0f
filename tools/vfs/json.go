package vfs

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// tableJSON is the JSON form of a Table.
type tableJSON struct {
	Files []File `json:"files"`
}

// MarshalJSON encodes t as {"files":[…]}, the files in path order, so
// equal tables encode to equal bytes (snapshot JSON relies on it).
func (t Table) MarshalJSON() ([]byte, error) {
	files := make([]File, 0, t.Len())
	for f := range t.All() {
		files = append(files, f)
	}
	return json.Marshal(tableJSON{Files: files})
}

// UnmarshalJSON decodes the form MarshalJSON writes, strictly (unknown
// members are errors), and checks every file as a write would: canonical
// path, UTF-8 content within maxContentChars, version at least 1, no path
// twice and no file where another needs a directory. A table decoded from
// untrusted snapshot JSON is therefore as safe to Export as one built by
// the tools.
func (t *Table) UnmarshalJSON(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var in tableJSON
	if err := dec.Decode(&in); err != nil {
		return fmt.Errorf("vfs: decoding a file table: %w", err)
	}
	var out Table
	for i, f := range in.Files {
		if !isCanonical(f.Path) {
			if _, err := normalizePath(f.Path); err != nil {
				return fmt.Errorf("vfs: files[%d]: %w", i, err)
			}
			return fmt.Errorf("vfs: files[%d]: path %q is not canonical (it normalizes differently)", i, clip(f.Path))
		}
		if f.Version < 1 {
			return fmt.Errorf("vfs: files[%d] (%s): version %d; versions start at 1", i, clip(f.Path), f.Version)
		}
		if err := checkContent("load", f.Path, f.Content); err != nil {
			return fmt.Errorf("vfs: files[%d]: %w", i, err)
		}
		if _, dup := out.get(f.Path); dup {
			return fmt.Errorf("vfs: files[%d]: %s appears twice", i, clip(f.Path))
		}
		if err := out.checkPlace("load", f.Path); err != nil {
			return fmt.Errorf("vfs: files[%d]: %w", i, err)
		}
		f := f
		out = out.set(&f)
	}
	*t = out
	return nil
}
