package vfs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// A write-back's replacements: a path whose kind the session changed, a
// file that became a directory (the file deleted, files created below
// its path) or a directory that became a file (the files below it
// deleted, a file created at its path). Each is written whole — the old
// removed, the new written — or left whole, the disk untouched: written
// one change at a time, the deletion would go through and the creation,
// whose place the old kind still holds on disk, would not.

// replacement is a path whose kind a write-back changes.
type replacement struct {
	path    string
	toDir   bool  // a file becomes a directory; else a directory becomes a file
	members []int // indexes in WriteBack.Changes: the deletions, then the creations
	deleted map[string]bool
}

// replacementsOf finds the replacements among changes (sorted by path):
// each change belongs to the outermost one whose path is its own or one
// of its directories.
func replacementsOf(changes []Change) []*replacement {
	deleted, created := map[string]bool{}, map[string]bool{}
	for _, c := range changes {
		switch c.Op {
		case opDeleted:
			deleted[c.Path] = true
		case opCreated:
			created[c.Path] = true
		}
	}
	// points are the paths whose kind changes: file → directory when
	// true.
	points := map[string]bool{}
	for _, c := range changes {
		for dir := range dirsOf(c.Path) {
			switch {
			case deleted[dir]:
				points[dir] = true
			case created[dir] && c.Op == opDeleted:
				points[dir] = false
			}
		}
	}
	if len(points) == 0 {
		return nil
	}
	byPath := map[string]*replacement{}
	var out []*replacement
	for i, c := range changes {
		point, ok := outermost(c.Path, points)
		if !ok {
			continue
		}
		r := byPath[point]
		if r == nil {
			r = &replacement{path: point, toDir: points[point], deleted: map[string]bool{}}
			byPath[point] = r
			out = append(out, r)
		}
		r.members = append(r.members, i)
		if c.Op == opDeleted {
			r.deleted[c.Path] = true
		}
	}
	for _, r := range out {
		slices.SortStableFunc(r.members, func(a, b int) int {
			return boolOrder(changes[a].Op != opDeleted) - boolOrder(changes[b].Op != opDeleted)
		})
	}
	return out
}

// boolOrder is 1 for true, 0 for false.
func boolOrder(b bool) int {
	if b {
		return 1
	}
	return 0
}

// dirsOf yields the directories of the path p, shortest first.
func dirsOf(p string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for i := 0; i < len(p); i++ {
			if p[i] == '/' && !yield(p[:i]) {
				return
			}
		}
	}
}

// outermost returns the shortest of p and its directories that is one
// of points.
func outermost(p string, points map[string]bool) (string, bool) {
	for dir := range dirsOf(p) {
		if _, ok := points[dir]; ok {
			return dir, true
		}
	}
	_, ok := points[p]
	return p, ok
}

// leftWithRest is why a change of r is left when another of its changes
// is.
func (r *replacement) leftWithRest() string {
	if r.toDir {
		return fmt.Sprintf("left with the rest of %s, a file that becomes a directory", clip(r.path))
	}
	return fmt.Sprintf("left with the rest of %s, a directory that becomes a file", clip(r.path))
}

// becomes says what r does, for the summary: "conf becomes a directory".
func (r *replacement) becomes() string {
	if r.toDir {
		return clip(r.path) + " becomes a directory"
	}
	return clip(r.path) + " becomes a file"
}

// inspect is the package's inspect for the change c of r: a creation
// below a file that becomes a directory lands where nothing will be once
// the file is removed; a creation where a directory becomes a file does
// too, provided the directory holds nothing but files r deletes. A
// deletion whose path already has the new kind (the replacement applied
// before) is on disk already.
func (r *replacement) inspect(root *os.Root, c Change) onHost {
	rel, ok := hostPath(r.path)
	if !ok {
		return onHost{left: leftNeverWritten}
	}
	info, err := root.Lstat(rel)
	switch {
	case err != nil || info.Mode()&fs.ModeSymlink != 0:
		return inspect(root, c) // gone, or a link: as any change
	case c.Op == opDeleted:
		if h := inspectDirs(root, r.path); h.left == "" && (r.toDir && c.Path == r.path && info.IsDir() || !r.toDir && info.Mode().IsRegular()) {
			return onHost{done: true}
		}
		return inspect(root, c)
	case c.Op != opCreated:
		return inspect(root, c)
	case r.toDir && c.Path != r.path && info.Mode().IsRegular():
		if h := inspectDirs(root, r.path); h.left != "" {
			return h
		}
		return onHost{}
	case !r.toDir && c.Path == r.path && info.IsDir():
		if other := r.foreign(root); other != "" {
			return onHost{left: fmt.Sprintf("%s is a directory on disk that holds %s, which the session did not delete", clip(r.path), clip(other))}
		}
		return onHost{}
	}
	return inspect(root, c)
}

// inspectDirs checks the directories on the way to the path p: real
// directories, not links, not files.
func inspectDirs(root *os.Root, p string) onHost {
	for dir := range dirsOf(p) {
		info, err := root.Lstat(filepath.FromSlash(dir))
		switch {
		case err != nil:
			return onHost{left: unreadable(err)}
		case info.Mode()&fs.ModeSymlink != 0:
			return onHost{left: fmt.Sprintf("%s is a symbolic link on disk", dir)}
		case !info.IsDir():
			return onHost{left: fmt.Sprintf("%s is a file on disk", dir)}
		}
	}
	return onHost{}
}

// errForeign stops the walk of foreign at the first entry r does not
// delete.
var errForeign = errors.New("foreign")

// foreign returns the first thing the directory r.path holds on disk
// that r does not delete — a file not deleted, a link, a special file —
// or "" when it holds only files r deletes (and directories of them).
// Nothing is followed; the walk stops at the first such thing.
func (r *replacement) foreign(root *os.Root) string {
	var found string
	err := fs.WalkDir(root.FS(), r.path, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			found = p
			return errForeign
		case d.IsDir():
			return nil
		case !d.Type().IsRegular() || !r.deleted[p]:
			found = p
			return errForeign
		}
		return nil
	})
	if err != nil && found == "" {
		found = r.path
	}
	return found
}

// dirsBelow returns the directories of r.path on disk, itself included,
// deepest first: what is removed, once empty, where a directory becomes
// a file.
func (r *replacement) dirsBelow(root *os.Root) []string {
	var dirs []string
	_ = fs.WalkDir(root.FS(), r.path, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			dirs = append(dirs, p)
		}
		return nil
	})
	slices.SortFunc(dirs, func(a, b string) int { return strings.Count(b, "/") - strings.Count(a, "/") })
	return dirs
}

// settle leaves every change of r that is still to be written when one of
// them is left, and reports whether it did. A change the disk already
// has stays so.
func (r *replacement) settle(changes []Change) bool {
	if !slices.ContainsFunc(r.members, func(i int) bool { return changes[i].Left != "" }) {
		return false
	}
	for _, i := range r.members {
		if c := &changes[i]; c.Left == "" && !c.onDisk {
			c.Left = r.leftWithRest()
		}
	}
	return true
}

// resettle decides again which replacements are left whole, after a
// change of one of them is no longer left (a file that configures what
// runs next, once named): a change left only with the rest of its
// replacement is written after all when none of the rest is left.
func (w *WriteBack) resettle() {
	for _, r := range replacementsOf(w.Changes) {
		rest := r.leftWithRest()
		for _, i := range r.members {
			if w.Changes[i].Left == rest {
				w.Changes[i].Left = ""
			}
		}
		r.settle(w.Changes)
	}
}

// membersOf maps the index of each change of a replacement to it.
func membersOf(rs []*replacement) map[int]*replacement {
	out := map[int]*replacement{}
	for _, r := range rs {
		for _, i := range r.members {
			out[i] = r
		}
	}
	return out
}

// applyReplacement writes the changes of r whole, or leaves them whole:
// each is checked first (the mounts' rules, then the disk), and a single
// one left leaves them all before anything is written. Then the
// deletions, the directories they empty where a directory becomes a
// file, and the creations. clean rids a directory of leftovers before it
// is written to.
func (w *WriteBack) applyReplacement(root *os.Root, r *replacement, clean func(dir string)) {
	checks := map[int]onHost{}
	for _, i := range r.members {
		c := &w.Changes[i]
		if c.Left != "" {
			continue
		}
		if c.Left = w.rules.refuse(*c); c.Left != "" {
			continue
		}
		h := r.inspect(root, *c)
		c.Left, c.onDisk = h.left, h.done
		if h.left != "" || h.done {
			c.Old = h.old
		}
		checks[i] = h
	}
	if r.settle(w.Changes) {
		return
	}
	var emptied []string
	if !r.toDir {
		emptied = r.dirsBelow(root) // listed before the files in them go
	}
	failed := false
	for _, i := range r.members {
		c := &w.Changes[i]
		if c.onDisk {
			continue
		}
		if failed {
			c.Left = r.leftWithRest()
			continue
		}
		var err error
		if c.Op == opCreated && c.Path == r.path {
			for _, dir := range emptied {
				if err = root.Remove(filepath.FromSlash(dir)); err != nil {
					break
				}
			}
		}
		rel, _ := hostPath(c.Path) // inspect checked it
		if err == nil {
			clean(pathDir(c.Path))
			if c.Op == opDeleted {
				err = root.Remove(rel)
			} else {
				err = writeAtomic(root, rel, c.Content, checks[i])
			}
		}
		if err != nil {
			c.Left = fmt.Sprintf("could not be written (%v)", unwrapPath(err))
			failed = true
		}
	}
}

// becomes names the replacements written (or to be), for Summary: "conf
// becomes a directory, lib becomes a file"; "" for none.
func (w *WriteBack) becomes() string {
	var out []string
	for _, r := range replacementsOf(w.Changes) {
		written := slices.ContainsFunc(r.members, func(i int) bool { return w.Changes[i].Left == "" && !w.Changes[i].onDisk })
		if written && !slices.ContainsFunc(r.members, func(i int) bool { return w.Changes[i].Left != "" }) {
			out = append(out, r.becomes())
		}
	}
	if len(out) > maxListed {
		out = append(out[:maxListed], fmt.Sprintf("and %d more", len(out)-maxListed))
	}
	return strings.Join(out, ", ")
}

// pathDir is path.Dir of a VFS path: "." for a file at the top.
func pathDir(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return "."
}
