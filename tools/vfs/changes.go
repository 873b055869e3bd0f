package vfs

import (
	"fmt"
	"slices"
	"strings"

	"github.com/offshoot-dev/offshoot/internal/pathrules"
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
	// "changed on disk since it was mounted", "excluded: a write-back
	// never writes it" or, until WriteBack.Allow names it, "configures
	// what runs next: written only when named". A change the directory
	// already has is neither left nor written again (see
	// WriteBack.Pending).
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
	leftRunsNext      = "configures what runs next: written only when named"
	leftOutsideMounts = "outside the mounted directories"
	leftSymlink       = "a symbolic link on disk"
)

// Changes returns the changes of the files a snapshot holds against the
// files its mounts copied in, in path order: the files created, edited
// (content differs from what was mounted; a file edited back to its
// mounted content is unchanged) and deleted. A session whose files were
// not mounted has only created files. Changes that a write-back never
// makes already carry why in Left: a path that is never written (.git,
// .offshoot, names that may hold a secret such as .env files), one the
// mounts excluded, or one outside the mounted directories; so does a
// change to a file that configures what runs next (a CI workflow,
// .envrc, .claude, .mcp.json, …), written only when named (see
// WriteBack.Allow). Take snap from Session.Snapshot, or from a saved
// snapshot.
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

// writeRules decide which paths a write-back may write: the code's rules
// (package pathrules), which the session cannot change, and on top of
// them the exclusions its baseline recorded, which can only add to them.
type writeRules struct {
	base    baseline
	mounted bool            // whether there is a baseline
	dirs    []compiledDir   // the mounted directories
	named   map[string]bool // the files that configure what runs next the user named (WriteBack.Allow)
}

// compiledDir is a mountedDir with its globs compiled.
type compiledDir struct {
	path    string
	exclude []pattern // compiled by compileFolded
	broken  bool      // its globs do not compile: nothing below it is written
}

// newWriteRules compiles the rules of a baseline.
func newWriteRules(base baseline, mounted bool) writeRules {
	r := writeRules{base: base, mounted: mounted}
	for _, d := range base.Dirs {
		ps, err := compileFolded(d.Exclude) // checked when decoded
		r.dirs = append(r.dirs, compiledDir{path: d.Path, exclude: ps, broken: err != nil})
	}
	return r
}

// refuse returns why the change c is not written, or "": never (a path
// that is never written, excluded, outside the mounts), or not before
// the user names it (a file that configures what runs next).
func (r writeRules) refuse(c Change) string {
	if c.Op != opCreated && c.Op != opEdited && c.Op != opDeleted {
		return fmt.Sprintf("not a change a write-back makes (%q)", clip(c.Op))
	}
	if !isCanonical(c.Path) || pathrules.NeverWritten(c.Path) {
		return leftNeverWritten
	}
	if left := r.refuseByMounts(c); left != "" {
		return left
	}
	if pathrules.RunsNext(c.Path) && !r.named[c.Path] {
		return leftRunsNext
	}
	return ""
}

// refuseByMounts returns why the mounts' baseline refuses c, or "".
func (r writeRules) refuseByMounts(c Change) string {
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
		if d.broken || excludedFolded(d.exclude, rel) {
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
