package vfs

import (
	"fmt"
	"slices"
	"strings"

	"github.com/offshoot-dev/offshoot/session"
)

// Change is one file a session created, edited or deleted, compared with
// the files its mounts copied in. Changes lists them; PlanWriteBack
// checks them against a host directory and fills Old and Left.
type Change struct {
	// Path is the file's VFS path, which is also its path relative to the
	// directory the changes are applied to.
	Path string
	// Op is "created" (the session has a file that was not mounted),
	// "edited" (a mounted file's content differs) or "deleted" (a mounted
	// file is gone).
	Op string
	// Content is the file's content in the session ("" when deleted).
	Content string
	// Base is the hex SHA-256 of the file as it was mounted; "" for a
	// created file. The host file must still have it to be replaced or
	// removed.
	Base string
	// Old is the host file's content, as PlanWriteBack read it for the
	// diff: what was mounted, or, for a conflict, what the disk has now.
	Old string
	// Left, when not empty, says why the change is not written, such as
	// "changed on disk since it was mounted" or "excluded: a write-back
	// never writes it". A change the directory already has is neither
	// left nor written again (see WriteBack.Pending).
	Left string

	onDisk bool // the host already has the change: nothing to write
}

// The values of Change.Op.
const (
	opCreated = "created"
	opEdited  = "edited"
	opDeleted = "deleted"
)

// Reasons a change is left, as Change.Left words them.
const (
	leftChangedOnDisk = "changed on disk since it was mounted"
	leftGoneOnDisk    = "deleted on disk since it was mounted"
	leftExistsOnDisk  = "exists on disk and was not mounted"
	leftNeverWritten  = "excluded: a write-back never writes it"
	leftOutsideMounts = "outside the mounted directories"
	leftSymlink       = "a symbolic link on disk"
)

// Changes returns the changes of the files a snapshot holds against the
// files its mounts copied in, in path order: the files created, edited
// (content differs from what was mounted; a file edited back to its
// mounted content is unchanged) and deleted. A session whose files were
// not mounted has only created files. Changes that a write-back never
// makes already carry why in Left: a path the mounts excluded (.git,
// .offshoot, secrets such as .env files) or one outside the mounted
// directories. Take snap from Session.Snapshot, or from a saved snapshot.
func Changes(snap session.Snapshot) []Change {
	changes, _ := changesOf(snap)
	return changes
}

// changesOf is Changes, which also returns the rules the changes were
// checked by.
func changesOf(snap session.Snapshot) ([]Change, writeRules) {
	t := FilesOf(snap)
	base, mounted := baselineOf(snap)
	var out []Change
	for f := range t.under("") {
		h, ok := base.Files[f.Path]
		switch {
		case !ok:
			out = append(out, Change{Path: f.Path, Op: opCreated, Content: f.Content})
		case hashOf(f.Content) != h:
			out = append(out, Change{Path: f.Path, Op: opEdited, Content: f.Content, Base: h})
		}
	}
	for p, h := range base.Files {
		if _, ok := t.get(p); !ok {
			out = append(out, Change{Path: p, Op: opDeleted, Base: h})
		}
	}
	slices.SortFunc(out, func(a, b Change) int { return pathOrder{}.Compare(a.Path, b.Path) })
	rules := newWriteRules(base, mounted)
	for i := range out {
		out[i].Left = rules.refuse(out[i])
	}
	return out, rules
}

// writeRules decide which paths a write-back may write, from the
// baseline alone.
type writeRules struct {
	base    baseline
	mounted bool          // whether there is a baseline
	dirs    []compiledDir // the mounted directories
	floor   []pattern     // never written, whatever the mounts said
}

// compiledDir is a mountedDir with its globs compiled.
type compiledDir struct {
	path    string
	exclude []pattern
	broken  bool // its globs do not compile: nothing below it is written
}

// neverWritten are the paths no write-back writes, at any depth: version
// control's and offshoot's own folders and environment files, which hold
// secrets. A mount's own exclusions (its Exclude and Secrets) come on top.
var neverWritten = mustCompile(anyDepth([]string{".git", ".offshoot", ".env", ".env.*", "*.env"}))

// mustCompile compiles globs known to be valid.
func mustCompile(globs []string) []pattern {
	ps, err := compileAll(globs)
	if err != nil {
		panic("vfs: " + err.Error()) // a bug in a literal of this package
	}
	return ps
}

// newWriteRules compiles the rules of a baseline. A session without one
// gets DefaultSecrets' names (as of now) on top of neverWritten.
func newWriteRules(base baseline, mounted bool) writeRules {
	r := writeRules{base: base, mounted: mounted, floor: neverWritten}
	if !mounted {
		if ps, err := compileAll(anyDepth(DefaultSecrets)); err == nil {
			r.floor = append(slices.Clone(neverWritten), ps...)
		}
		return r
	}
	for _, d := range base.Dirs {
		ps, err := compileAll(d.Exclude) // checked when decoded
		r.dirs = append(r.dirs, compiledDir{path: d.Path, exclude: ps, broken: err != nil})
	}
	return r
}

// refuse returns why the change c is never written, or "".
func (r writeRules) refuse(c Change) string {
	if c.Op != opCreated && c.Op != opEdited && c.Op != opDeleted {
		return fmt.Sprintf("not a change a write-back makes (%q)", clip(c.Op))
	}
	if !isCanonical(c.Path) || excluded(r.floor, c.Path) {
		return leftNeverWritten
	}
	if !r.mounted {
		return ""
	}
	inside := false
	for _, d := range r.dirs {
		rel, ok := below(c.Path, d.path)
		if !ok {
			continue
		}
		inside = true
		if d.broken || excluded(d.exclude, rel) {
			return leftNeverWritten
		}
	}
	if _, mountedFile := r.base.Files[c.Path]; !inside && !mountedFile {
		return leftOutsideMounts
	}
	return ""
}

// below returns p relative to the VFS directory dir ("" for the root),
// and whether it lies below it.
func below(p, dir string) (string, bool) {
	if dir == "" {
		return p, true
	}
	rest, ok := strings.CutPrefix(p, dir+"/")
	return rest, ok && rest != ""
}
