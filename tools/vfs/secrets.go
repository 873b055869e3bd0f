package vfs

import (
	"fmt"
	"slices"
	"strings"

	"github.com/offshoot-dev/offshoot/internal/pathrules"
)

// DefaultSecrets returns the names of files and directories that usually
// hold credentials — keys, tokens, passwords, shell histories — matched at
// any depth and whatever their case. A mount whose Secrets is nil leaves
// them out; give an empty, non-nil slice to copy them. A write-back never
// writes them, whatever the mount said. The list is deliberately broad: a
// model that cannot read a key cannot leak it. Each call returns a new
// slice, so a program may append its own names to give a mount's Secrets.
func DefaultSecrets() []string { return pathrules.Secrets() }

// Reasons a mount leaves a file or directory out, as MountReport counts
// them.
const (
	// leftSecret: a name in the mount's Secrets (DefaultSecrets).
	leftSecret = "may hold a secret"
	// leftVersionControl: a version control folder (.git).
	leftVersionControl = "version control"
	// leftConfiguration: the agents' own configuration (.claude,
	// .offshoot), not workspace.
	leftConfiguration = "configuration"
	// leftIgnored: ignored by the mounted directory's .gitignore.
	leftIgnored = "ignored by .gitignore"
	// leftExcluded: matched by the mount's Exclude, or not by its Include.
	leftExcluded = "excluded"
	// leftNotText: not UTF-8 text, or binary.
	leftNotText = "not text"
	// leftTooLong: longer than a file the VFS holds.
	leftTooLong = "too long"
	// leftUnreadable: could not be read (permissions, say), or a link
	// that leads outside the mount or to nothing.
	leftUnreadable = "unreadable"
	// leftSpecial: a FIFO, socket or device.
	leftSpecial = "not a regular file"
)

// MountReport says what a mount copied and what it left out, and why.
// Give a Mount a pointer to one to have it filled.
type MountReport struct {
	// Copied is the number of files copied.
	Copied int
	// LeftOut counts the files and directories left out, by reason: "may
	// hold a secret" (a name in the mount's Secrets), "version control"
	// (.git), "configuration" (the agents' definitions and settings under
	// .claude and .offshoot), "ignored by
	// .gitignore", "excluded" (by Exclude, or not matched by Include),
	// "not text", "too long", "unreadable" (or a link that leads outside
	// the mount or to nothing) and "not a regular file" (a FIFO, socket or
	// device). A directory left out counts once.
	LeftOut map[string]int
	// Examples holds, by reason, the first few paths left out (relative
	// to the mounted directory).
	Examples map[string][]string
	// Warnings say, one sentence each, what the mount could not do as
	// asked: a .gitignore too large to be used whole, say, whose unused
	// patterns may let in files it would ignore.
	Warnings []string
}

// maxExamples is how many paths a MountReport keeps for each reason.
const maxExamples = 3

func (r *MountReport) leave(reason, rel string) {
	if r == nil {
		return
	}
	if r.LeftOut == nil {
		r.LeftOut, r.Examples = map[string]int{}, map[string][]string{}
	}
	r.LeftOut[reason]++
	if len(r.Examples[reason]) < maxExamples {
		r.Examples[reason] = append(r.Examples[reason], rel)
	}
}

// Summary says in one phrase what was left out: "11 left out: 8 may hold
// a secret (.ssh, .npmrc, server.pem, …), 3 ignored by .gitignore"; ""
// when nothing was.
func (r *MountReport) Summary() string {
	if r == nil || len(r.LeftOut) == 0 {
		return ""
	}
	total := 0
	reasons := make([]string, 0, len(r.LeftOut))
	for reason, n := range r.LeftOut {
		total += n
		reasons = append(reasons, reason)
	}
	slices.SortFunc(reasons, func(a, b string) int {
		if r.LeftOut[a] != r.LeftOut[b] {
			return r.LeftOut[b] - r.LeftOut[a]
		}
		return strings.Compare(a, b)
	})
	parts := make([]string, 0, len(reasons))
	for _, reason := range reasons {
		ex := strings.Join(r.Examples[reason], ", ")
		if r.LeftOut[reason] > len(r.Examples[reason]) {
			ex += ", …"
		}
		parts = append(parts, fmt.Sprintf("%d %s (%s)", r.LeftOut[reason], reason, ex))
	}
	return fmt.Sprintf("%d left out: %s", total, strings.Join(parts, "; "))
}

// anyDepth returns each name as a pattern for the name itself and for
// it at any depth.
func anyDepth(names []string) []string {
	out := make([]string, 0, 2*len(names))
	for _, n := range names {
		out = append(out, n, "**/"+n)
	}
	return out
}
