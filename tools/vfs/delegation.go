package vfs

import (
	"fmt"
	"strings"

	"github.com/offshoot-dev/offshoot/session"
)

// workspace is the VFS's files as delegation sees them (a tools.State):
// every VFS tool declares it, so a delegating tool summarizes the files a
// child starts from and copies back the files the child wrote.
type workspace struct{}

// maxSummaryFiles bounds the paths a summary lists.
const maxSummaryFiles = 20

// Summary lists the files of snap: "3 files in the workspace: a.md,
// b.md, notes/c.md", the first 20 paths and a count of the rest.
func (workspace) Summary(snap session.Snapshot) string {
	t := FilesOf(snap)
	n := t.Len()
	if n == 0 {
		return ""
	}
	paths := make([]string, 0, min(n, maxSummaryFiles))
	for f := range t.All() {
		if len(paths) == maxSummaryFiles {
			break
		}
		paths = append(paths, f.Path)
	}
	unit := "files"
	if n == 1 {
		unit = "file"
	}
	s := fmt.Sprintf("%d %s in the workspace: %s", n, unit, strings.Join(paths, ", "))
	if n > len(paths) {
		s += fmt.Sprintf(", and %d more", n-len(paths))
	}
	return s
}

// Artifacts returns the files that exist in to and were not in from, or
// differ from it — a file written and then removed is not one — with a
// FileWritten for each (version 0: whatever the receiving session's
// version), so the receiving session gets them as they are in to.
func (workspace) Artifacts(from, to session.Snapshot) ([]string, []any) {
	before, after := FilesOf(from), FilesOf(to)
	if before.Equal(after) {
		return nil, nil
	}
	var names []string
	var events []any
	for f := range after.All() {
		if old, ok := before.Get(f.Path); ok && old.Content == f.Content {
			continue
		}
		names = append(names, f.Path)
		events = append(events, FileWritten{Path: f.Path, Content: f.Content})
	}
	return names, events
}
