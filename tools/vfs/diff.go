package vfs

import (
	"fmt"
	"strings"

	"github.com/pmezard/go-difflib/difflib"
)

// maxDiffWork bounds the work of the line diff of one file: the product
// of the numbers of lines of the old and the new file that differ (their
// common first and last lines left out). Above it, the part that differs
// is shown as removed and added whole. The matcher's cost grows with
// that product (about 0.2 s at 2,000 by 2,000 lines on a laptop, in its
// worst shape), and a file's content is the model's.
const maxDiffWork = 2000 * 2000

// Diff returns the changes that are written (or were) as a unified diff,
// file after file in path order: "--- a/PATH" and "+++ b/PATH" headers
// (/dev/null for a created or deleted file), hunks with three lines of
// context. Changes left are not in it; Summary names them.
func (w *WriteBack) Diff() string {
	var b strings.Builder
	for _, c := range w.Changes {
		if c.Left != "" || c.onDisk {
			continue
		}
		b.WriteString(changeDiff(c))
	}
	return b.String()
}

// ConfigurationDiff returns the changes that wait to be named (see
// Configuration) as a unified diff, as Diff shows the others.
func (w *WriteBack) ConfigurationDiff() string {
	var b strings.Builder
	for _, c := range w.Changes {
		if c.Left == leftRunsNext {
			b.WriteString(changeDiff(c))
		}
	}
	return b.String()
}

// changeDiff returns the unified diff of the change c from the host's
// file to the session's.
func changeDiff(c Change) string {
	from, to := "a/"+c.Path, "b/"+c.Path
	switch c.Op {
	case opCreated:
		from = "/dev/null"
	case opDeleted:
		to = "/dev/null"
	}
	return unifiedDiff(c.Old, c.Content, from, to)
}

// ConflictDiff returns, for the changes left because the file on disk
// changed since it was mounted (or exists where the session created one),
// the unified diff from the disk's content ("--- disk/PATH") to the
// session's ("+++ session/PATH"): what to merge by hand.
func (w *WriteBack) ConflictDiff() string {
	var b strings.Builder
	for _, c := range w.Changes {
		if c.Left != leftChangedOnDisk && c.Left != leftExistsOnDisk {
			continue
		}
		to := "session/" + c.Path
		if c.Op == opDeleted {
			to = "/dev/null"
		}
		b.WriteString(unifiedDiff(c.Old, c.Content, "disk/"+c.Path, to))
	}
	return b.String()
}

// unifiedDiff returns the unified diff of old and new text, headed from
// and to; "" when they are equal. The lines both texts begin and end
// with are left out of the matching (save three of context each side), so
// a small edit in a large file costs little whatever the file repeats;
// the rest is matched by difflib's SequenceMatcher, unless it is too
// large for that (maxDiffWork): then it is shown removed and added whole.
func unifiedDiff(old, new, from, to string) string {
	if old == new {
		return ""
	}
	a, b := diffLines(old), diffLines(new)
	head := 0
	for head < len(a) && head < len(b) && a[head] == b[head] {
		head++
	}
	tail := 0
	for tail < len(a)-head && tail < len(b)-head && a[len(a)-1-tail] == b[len(b)-1-tail] {
		tail++
	}
	// The region matched: what differs, with its context.
	start := max(head-diffContext, 0)
	endA, endB := len(a)-tail+min(tail, diffContext), len(b)-tail+min(tail, diffContext)
	a, b = a[start:endA], b[start:endB]
	lead, trail := head-start, min(tail, diffContext)
	var groups [][]difflib.OpCode
	if (len(a)-lead-trail)*(len(b)-lead-trail) > maxDiffWork {
		groups = [][]difflib.OpCode{wholeHunk(lead, trail, len(a), len(b))}
	} else {
		groups = difflib.NewMatcher(a, b).GetGroupedOpCodes(diffContext)
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "--- %s\n+++ %s\n", from, to)
	for _, g := range groups {
		first, last := g[0], g[len(g)-1]
		fmt.Fprintf(&sb, "@@ -%s +%s @@\n", hunkRange(start+first.I1, start+last.I2), hunkRange(start+first.J1, start+last.J2))
		for _, op := range g {
			if op.Tag == 'e' {
				writeLines(&sb, ' ', a[op.I1:op.I2])
				continue
			}
			if op.Tag == 'r' || op.Tag == 'd' {
				writeLines(&sb, '-', a[op.I1:op.I2])
			}
			if op.Tag == 'r' || op.Tag == 'i' {
				writeLines(&sb, '+', b[op.J1:op.J2])
			}
		}
	}
	return sb.String()
}

// noNewline is diff's note after a last line without a newline.
const noNewline = "\\ No newline at end of file\n"

// diffContext is how many unchanged lines a hunk shows around a change.
const diffContext = 3

// wholeHunk is the hunk, over two texts of na and nb lines whose first
// lead and last trail lines are the same, that removes and adds all the
// others whole.
func wholeHunk(lead, trail, na, nb int) []difflib.OpCode {
	return []difflib.OpCode{
		{Tag: 'e', I1: 0, I2: lead, J1: 0, J2: lead},
		{Tag: 'r', I1: lead, I2: na - trail, J1: lead, J2: nb - trail},
		{Tag: 'e', I1: na - trail, I2: na, J1: nb - trail, J2: nb},
	}
}

// writeLines writes each line after prefix.
func writeLines(sb *strings.Builder, prefix byte, lines []string) {
	for _, l := range lines {
		sb.WriteByte(prefix)
		sb.WriteString(l)
	}
}

// hunkRange is a hunk header's range of the lines [start, end) of a file,
// numbered from 1, as diff writes it: "3" for one line, "3,4" for four,
// "2,0" for none (after line 2).
func hunkRange(start, end int) string {
	switch end - start {
	case 0:
		return fmt.Sprintf("%d,0", start)
	case 1:
		return fmt.Sprintf("%d", start+1)
	}
	return fmt.Sprintf("%d,%d", start+1, end-start)
}

// diffLines splits text into lines that each end in "\n": the form the
// diff takes. A last line without one gets diff's note on a line of its
// own ("\\ No newline at end of file"). Empty text has no lines.
func diffLines(text string) []string {
	if text == "" {
		return nil
	}
	out := strings.SplitAfter(text, "\n")
	if out[len(out)-1] == "" {
		out = out[:len(out)-1]
	} else {
		out[len(out)-1] += "\n" + noNewline
	}
	return out
}
