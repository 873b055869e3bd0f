package vfs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/offshoot-dev/offshoot/session"
)

// WriteBack is a session's file changes checked against a host
// directory: what applying them writes, and what it leaves and why.
// PlanWriteBack makes one; Diff and Summary show it; Apply writes it.
//
// The rules: a change is written only inside Dir, through no symbolic
// link (none on the way to the file, none at it), never to .git,
// .offshoot, a name that may hold a secret (DefaultSecrets: .env files,
// keys, .npmrc, …) or a path the mounts excluded — names matched at any
// depth and whatever their case, by rules of the code that no snapshot
// can change; a file that configures what runs next (a CI workflow,
// .envrc, .claude, .mcp.json, an editor's tasks, a git hook) is written
// only when named with Allow;
// a file is replaced or removed only while its content on disk is still
// what was mounted (its SHA-256), and created only where there is no
// file (or one with the same content). A change that breaks a rule is
// left, with the reason in its Left, and the others are written — save
// where a file becomes a directory or a directory a file: its deletions
// and creations are written whole or left whole. Each
// file is written atomically: a temporary file in its directory
// (.NAME.offshoot- and 12 hex digits), with the old file's permissions,
// renamed over it. A write-back killed midway leaves at most that one
// temporary file; Apply removes those it finds in the directories it
// writes to (regular files named exactly so, never through a link), and
// Summary names them.
type WriteBack struct {
	// Dir is the host directory, absolute.
	Dir string
	// Changes are the session's changes (see Changes), each checked
	// against Dir: Old holds the host file's content, Left why the change
	// is not written.
	Changes []Change

	rules     writeRules // the rules of the session's mounts
	planned   bool       // made by PlanWriteBack
	applied   bool
	leftovers []string // the temporary files of an interrupted write-back that Apply removed
}

// PlanWriteBack compares the changes of the files a snapshot holds (see
// Changes) with the host directory dir, reading, never writing: it
// fills each change's Old, or its Left when the change would not be
// written. The snapshot's VFS root stands for dir: a mount placed at the
// VFS root writes back to the directory it came from. It fails only when
// dir cannot be opened as a directory.
func PlanWriteBack(snap session.Snapshot, dir string) (*WriteBack, error) {
	if dir == "" {
		return nil, errors.New("vfs: write-back needs the directory to write to")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("vfs: write-back to %s: %w", dir, err)
	}
	root, err := os.OpenRoot(abs)
	if err != nil {
		return nil, fmt.Errorf("vfs: write-back to %s: %w; give an existing directory", dir, err)
	}
	defer root.Close()
	changes, rules := changesOf(snap)
	rules.named = map[string]bool{}
	w := &WriteBack{Dir: abs, Changes: changes, rules: rules, planned: true}
	replaced := replacementsOf(w.Changes)
	members := membersOf(replaced)
	for i := range w.Changes {
		c := &w.Changes[i]
		waits := c.Left == leftRunsNext // inspected too, for its diff
		if c.Left != "" && !waits {
			continue
		}
		h := inspect(root, *c)
		if r := members[i]; r != nil {
			h = r.inspect(root, *c)
		}
		c.Old, c.Left, c.onDisk = h.old, h.left, h.done
		if waits && h.left == "" && !h.done {
			c.Left = leftRunsNext
		}
	}
	for _, r := range replaced {
		r.settle(w.Changes)
	}
	return w, nil
}

// Configuration returns the changes to files that configure what runs
// next — a CI workflow, .envrc, a coding agent's settings, hooks or MCP
// servers, an editor's tasks, a git hook — which are written only when
// named with Allow, in path order.
func (w *WriteBack) Configuration() []Change {
	var out []Change
	for _, c := range w.Changes {
		if c.Left == leftRunsNext {
			out = append(out, c)
		}
	}
	return out
}

// Allow lets Apply write the changes to the files that configure what
// runs next at paths (see Configuration). It fails, allowing none, when a
// path is not one of them, or the write-back was applied already.
func (w *WriteBack) Allow(paths ...string) error {
	if w.applied {
		return errors.New("vfs: this write-back was applied already; allow the files before Apply")
	}
	waiting := map[string]int{}
	for i, c := range w.Changes {
		if c.Left == leftRunsNext {
			waiting[c.Path] = i
		}
	}
	for _, p := range paths {
		if _, ok := waiting[p]; !ok {
			return fmt.Errorf("vfs: %s is not a file that configures what runs next in this write-back; %s", clip(p), waitingList(w.Configuration()))
		}
	}
	for _, p := range paths {
		w.rules.named[p] = true
		w.Changes[waiting[p]].Left = ""
	}
	w.resettle()
	return nil
}

// waitingList names the changes that wait to be named.
func waitingList(waiting []Change) string {
	if len(waiting) == 0 {
		return "it has none"
	}
	names := make([]string, 0, min(len(waiting), maxListed)+1)
	for i, c := range waiting {
		if i == maxListed {
			names = append(names, fmt.Sprintf("and %d more", len(waiting)-maxListed))
			break
		}
		names = append(names, clip(c.Path))
	}
	return "those are: " + strings.Join(names, ", ")
}

// Apply writes the changes PlanWriteBack found writable to Dir. Each is
// checked again just before it is written — against the disk, so a file
// changed since the plan is left too, and against the mounts' rules, so
// a change added to Changes by hand is held to them as well. It returns an error naming the changes
// left (those of the plan included), or nil when every change was
// written; a WriteBack is applied once.
func (w *WriteBack) Apply() error {
	if w.applied {
		return errors.New("vfs: this write-back was applied already; plan a new one with PlanWriteBack")
	}
	if !w.planned {
		return errors.New("vfs: this write-back was not made by PlanWriteBack; make it with PlanWriteBack")
	}
	root, err := os.OpenRoot(w.Dir)
	if err != nil {
		return fmt.Errorf("vfs: write-back to %s: %w", w.Dir, err)
	}
	defer root.Close()
	w.applied = true
	cleaned := map[string]bool{} // the directories rid of leftovers
	clean := func(dir string) {
		if !cleaned[dir] {
			cleaned[dir] = true
			w.leftovers = append(w.leftovers, removeLeftovers(root, dir)...)
		}
	}
	// The replacements are found again: Changes may have changed since
	// the plan.
	members, replaced := membersOf(replacementsOf(w.Changes)), map[*replacement]bool{}
	for i := range w.Changes {
		c := &w.Changes[i]
		if r := members[i]; r != nil {
			if !replaced[r] {
				replaced[r] = true
				w.applyReplacement(root, r, clean)
			}
			continue
		}
		if c.Left != "" {
			continue
		}
		if c.Left = w.rules.refuse(*c); c.Left != "" {
			continue
		}
		h := inspect(root, *c)
		c.Left, c.onDisk = h.left, h.done
		if h.left != "" || h.done {
			c.Old = h.old // for a conflict, what the disk has now
			continue
		}
		rel, _ := hostPath(c.Path) // inspect checked it
		clean(pathDir(c.Path))
		if c.Op == opDeleted {
			err = root.Remove(rel)
		} else {
			err = writeAtomic(root, rel, c.Content, h)
		}
		if err != nil {
			c.Left = fmt.Sprintf("could not be written (%v)", unwrapPath(err))
		}
	}
	if left := w.Left(); len(left) > 0 {
		return fmt.Errorf("vfs: write-back to %s left %s: %s", w.Dir, fmt.Sprintf("%d %s", len(left), plural(len(left), "file", "files")), listLeft(left))
	}
	return nil
}

// Pending returns how many changes are still to be written: neither left
// nor already on disk.
func (w *WriteBack) Pending() int {
	n := 0
	for _, c := range w.Changes {
		if c.Left == "" && !c.onDisk {
			n++
		}
	}
	return n
}

// Left returns the changes that are not written, with why in their Left.
func (w *WriteBack) Left() []Change {
	var out []Change
	for _, c := range w.Changes {
		if c.Left != "" {
			out = append(out, c)
		}
	}
	return out
}

// Summary says in one line what the write-back writes (or wrote, once
// applied) and what it leaves: "2 created, 1 edited, 0 deleted; 1 left:
// a.go (changed on disk since it was mounted)", or "no changes". Changes
// the directory already has are counted apart ("1 already on disk"),
// the paths whose kind changes are named after the counts ("; conf
// becomes a directory"), and the temporary files of an interrupted
// write-back that Apply removed come last ("removed 1 temporary file an
// interrupted write-back left (.a.go.offshoot-…)").
func (w *WriteBack) Summary() string {
	if len(w.Changes) == 0 {
		return "no changes"
	}
	var created, edited, deleted, onDisk int
	for _, c := range w.Changes {
		if c.onDisk {
			onDisk++
		}
		if c.Left != "" || c.onDisk {
			continue
		}
		switch c.Op {
		case opCreated:
			created++
		case opEdited:
			edited++
		case opDeleted:
			deleted++
		}
	}
	s := fmt.Sprintf("%d created, %d edited, %d deleted", created, edited, deleted)
	if onDisk > 0 {
		s += fmt.Sprintf(", %d already on disk", onDisk)
	}
	if becomes := w.becomes(); becomes != "" {
		s += "; " + becomes
	}
	if left := w.Left(); len(left) > 0 {
		s += fmt.Sprintf("; %d left: %s", len(left), listLeft(left))
	}
	if removed := leftoversRemoved(w.leftovers); removed != "" {
		s += "; " + removed
	}
	return s
}

// maxListed is how many left changes Summary and Apply's error name.
const maxListed = 10

// listLeft names the changes left with their reasons, the first
// maxListed of them.
func listLeft(left []Change) string {
	parts := make([]string, 0, min(len(left), maxListed)+1)
	for i, c := range left {
		if i == maxListed {
			parts = append(parts, fmt.Sprintf("and %d more", len(left)-maxListed))
			break
		}
		parts = append(parts, fmt.Sprintf("%s (%s)", clip(c.Path), c.Left))
	}
	return strings.Join(parts, ", ")
}

// unwrapPath returns the error inside a *fs.PathError, whose path is the
// temporary file's or repeats the change's.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}
