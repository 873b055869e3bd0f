package vfs

import (
	"io"
	"io/fs"
	"path"
	"strings"
	"time"

	"github.com/offshoot-dev/offshoot/session"
)

// FS returns a read-only io/fs view of the session's files as they are at
// the call: later writes do not show in it (call FS again to see them). It
// passes testing/fstest.TestFS (which, for any fs.FS, cannot check a tree
// whose directory names hold glob metacharacters such as "*": fs.Sub's
// Glob reads them as patterns). Directories exist through the files below
// them; files have mode 0444, directories 0555, and a directory's
// modification time is the latest of the files below it.
func FS(s *session.Session) fs.FS { return Files(s).FS() }

// FS returns a read-only io/fs view of t (see the package function FS).
// It implements fs.ReadFileFS, fs.ReadDirFS and fs.StatFS.
func (t Table) FS() fs.FS { return fsView{t: t} }

type fsView struct{ t Table }

// lookup resolves an fs path to a file or a directory of the view.
func (v fsView) lookup(op, name string) (*File, bool, error) {
	if !fs.ValidPath(name) {
		return nil, false, &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	if name == "." {
		return nil, true, nil
	}
	if f, ok := v.t.get(name); ok {
		return f, false, nil
	}
	if v.t.IsDir(name) {
		return nil, true, nil
	}
	return nil, false, &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
}

// Open opens the named file or directory.
func (v fsView) Open(name string) (fs.File, error) {
	f, dir, err := v.lookup("open", name)
	switch {
	case err != nil:
		return nil, err
	case dir:
		return &openDir{v: v, name: name, info: v.dirInfo(name)}, nil
	}
	return &openFile{Reader: strings.NewReader(f.Content), info: fileInfo{f: f}}, nil
}

// Stat describes the named file or directory.
func (v fsView) Stat(name string) (fs.FileInfo, error) {
	f, dir, err := v.lookup("stat", name)
	switch {
	case err != nil:
		return nil, err
	case dir:
		return v.dirInfo(name), nil
	}
	return fileInfo{f: f}, nil
}

// ReadFile returns a copy of the named file's content.
func (v fsView) ReadFile(name string) ([]byte, error) {
	f, dir, err := v.lookup("read", name)
	switch {
	case err != nil:
		return nil, err
	case dir:
		return nil, &fs.PathError{Op: "read", Path: name, Err: errIsDir}
	}
	return []byte(f.Content), nil
}

// ReadDir lists the named directory, sorted by name.
func (v fsView) ReadDir(name string) ([]fs.DirEntry, error) {
	_, dir, err := v.lookup("readdir", name)
	switch {
	case err != nil:
		return nil, err
	case !dir:
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: errNotDir}
	}
	return v.entries(name), nil
}

var (
	errIsDir  = &fsError{"is a directory"}
	errNotDir = &fsError{"not a directory"}
)

type fsError struct{ msg string }

func (e *fsError) Error() string { return e.msg }

// tableDir maps an fs directory name to a table directory path.
func tableDir(name string) string {
	if name == "." {
		return ""
	}
	return name
}

func (v fsView) entries(name string) []fs.DirEntry {
	list := v.t.List(tableDir(name))
	out := make([]fs.DirEntry, len(list))
	for i, e := range list {
		if e.Kind == kindFile {
			f, _ := v.t.get(e.Path)
			out[i] = fs.FileInfoToDirEntry(fileInfo{f: f})
		} else {
			out[i] = fs.FileInfoToDirEntry(dirInfo{name: path.Base(e.Path), mod: e.UpdatedAt})
		}
	}
	return out
}

// dirInfo describes the named directory: its modification time is the
// latest of the files below it.
func (v fsView) dirInfo(name string) dirInfo {
	var mod time.Time
	for f := range v.t.under(prefixOf(tableDir(name))) {
		if f.UpdatedAt.After(mod) {
			mod = f.UpdatedAt
		}
	}
	return dirInfo{name: path.Base(name), mod: mod}
}

// prefixOf returns the key prefix of the files below dir.
func prefixOf(dir string) string {
	if dir == "" {
		return ""
	}
	return dir + "/"
}

type fileInfo struct{ f *File }

func (i fileInfo) Name() string       { return baseName(i.f.Path) }
func (i fileInfo) Size() int64        { return int64(len(i.f.Content)) }
func (i fileInfo) Mode() fs.FileMode  { return 0o444 }
func (i fileInfo) ModTime() time.Time { return i.f.UpdatedAt }
func (i fileInfo) IsDir() bool        { return false }
func (i fileInfo) Sys() any           { return nil }

type dirInfo struct {
	name string
	mod  time.Time
}

func (i dirInfo) Name() string       { return i.name }
func (i dirInfo) Size() int64        { return 0 }
func (i dirInfo) Mode() fs.FileMode  { return fs.ModeDir | 0o555 }
func (i dirInfo) ModTime() time.Time { return i.mod }
func (i dirInfo) IsDir() bool        { return true }
func (i dirInfo) Sys() any           { return nil }

// openFile is an open file: a reader over its content.
type openFile struct {
	*strings.Reader
	info fileInfo
}

func (f *openFile) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *openFile) Close() error               { return nil }

// openDir is an open directory, read with ReadDir.
type openDir struct {
	v       fsView
	name    string
	info    dirInfo
	entries []fs.DirEntry
	read    bool
}

func (d *openDir) Stat() (fs.FileInfo, error) { return d.info, nil }
func (d *openDir) Close() error               { return nil }

func (d *openDir) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.name, Err: errIsDir}
}

// ReadDir returns the next n entries (all the rest when n <= 0), as
// fs.ReadDirFile specifies.
func (d *openDir) ReadDir(n int) ([]fs.DirEntry, error) {
	if !d.read {
		d.entries, d.read = d.v.entries(d.name), true
	}
	if n <= 0 {
		out := d.entries
		d.entries = nil
		return out, nil
	}
	if len(d.entries) == 0 {
		return nil, io.EOF
	}
	n = min(n, len(d.entries))
	out := d.entries[:n:n]
	d.entries = d.entries[n:]
	return out, nil
}
