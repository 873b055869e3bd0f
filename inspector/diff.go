package inspector

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/pmezard/go-difflib/difflib"

	"github.com/offshoot-dev/offshoot/serde"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/tools/vfs"
)

// maxDiffLines bounds the lines of either side one diff compares: past
// it, the diff says how many changed rather than which.
const maxDiffLines = 4000

// change is one file's or slice's difference between two states.
type change struct {
	Name  string
	What  string // "added", "removed", "changed"
	Lines []diffLine
	Note  string
}

// diffLine is one line of a unified diff, with its kind for the page.
type diffLine struct {
	Class, Text string
}

// diffView is what the diff page shows.
type diffView struct {
	row
	From, To      uint64
	Files, Slices []change
}

// diffPage shows what changed in a session between two seqs: its files
// as unified diffs, its slices as diffs of their items' JSON.
func (s *Server) diffPage(w http.ResponseWriter, r *http.Request) {
	h, ok := s.header(w, r, r.URL.Query().Get("id"))
	if !ok {
		return
	}
	from, err := seqParam(r, "from", h.ForkSeq)
	if err == nil {
		var to uint64
		if to, err = seqParam(r, "to", h.Seq); err == nil {
			s.diff(w, r, diffView{row: summarize(h, h.Updated), From: from, To: to})
			return
		}
	}
	s.fail(w, http.StatusBadRequest, err.Error())
}

func (s *Server) diff(w http.ResponseWriter, r *http.Request, v diffView) {
	a, regA, err := s.stateAt(r.Context(), v.Header, v.From)
	if err == nil {
		var b session.Snapshot
		var regB *serde.Registry
		if b, regB, err = s.stateAt(r.Context(), v.Header, v.To); err == nil {
			v.Files = fileChanges(vfs.FilesOf(a), vfs.FilesOf(b))
			v.Slices = sliceChanges(a, regA, b, regB)
			s.render(w, "diff.html", v)
			return
		}
	}
	s.fail(w, http.StatusUnprocessableEntity, fmt.Sprintf("cannot compare session %s at seqs %d and %d: %v", printable(oneLine(v.ID, 120)), v.From, v.To, err))
}

// fileChanges returns the files added, removed and changed from a to b.
func fileChanges(a, b vfs.Table) []change {
	var out []change
	for f := range a.All() {
		g, ok := b.Get(f.Path)
		switch {
		case !ok:
			out = append(out, fileChange(f.Path, "removed", f.Content, ""))
		case g.Content != f.Content:
			out = append(out, fileChange(f.Path, "changed", f.Content, g.Content))
		}
	}
	for g := range b.All() {
		if _, ok := a.Get(g.Path); !ok {
			out = append(out, fileChange(g.Path, "added", "", g.Content))
		}
	}
	slices.SortFunc(out, func(x, y change) int { return strings.Compare(x.Name, y.Name) })
	return out
}

func fileChange(path, what, a, b string) change {
	c := change{Name: path, What: what}
	c.Lines, c.Note = unified(lines(a), lines(b), "a/"+path, "b/"+path)
	return c
}

// lines returns s's lines, each with its end of line; none for "".
func lines(s string) []string {
	if s == "" {
		return nil
	}
	return difflib.SplitLines(strings.TrimSuffix(s, "\n") + "\n")
}

// sliceChanges returns the slices whose items differ from a to b: their
// items' JSON, one line each, as a unified diff.
func sliceChanges(a session.Snapshot, regA *serde.Registry, b session.Snapshot, regB *serde.Registry) []change {
	items := func(snap session.Snapshot, reg *serde.Registry) map[string][]string {
		out := map[string][]string{}
		for _, t := range snap.Types() {
			var lines []string
			for x := range snap.Items(t) {
				j, err := json.Marshal(x)
				if err != nil {
					j = []byte(fmt.Sprintf("(cannot be shown as JSON: %v)", err))
				}
				lines = append(lines, string(j)+"\n")
			}
			out[reg.Name(t)] = lines
		}
		return out
	}
	as, bs := items(a, regA), items(b, regB)
	var names []string
	for n := range as {
		names = append(names, n)
	}
	for n := range bs {
		if _, ok := as[n]; !ok {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	var out []change
	for _, n := range names {
		x, y := as[n], bs[n]
		if slices.Equal(x, y) {
			continue
		}
		what := "changed"
		if _, ok := as[n]; !ok {
			what = "added"
		} else if _, ok := bs[n]; !ok {
			what = "removed"
		}
		c := change{Name: n, What: what}
		c.Lines, c.Note = unified(x, y, "a/"+n, "b/"+n)
		out = append(out, c)
	}
	return out
}

// unified returns the unified diff of lines a and b, past their common
// start and end (a session's slices mostly grow at the end), or a note
// when they are too long to compare line by line.
func unified(a, b []string, from, to string) ([]diffLine, string) {
	start := 0
	for start < len(a) && start < len(b) && a[start] == b[start] {
		start++
	}
	end := 0
	for end < len(a)-start && end < len(b)-start && a[len(a)-1-end] == b[len(b)-1-end] {
		end++
	}
	ctx := 3
	lo := max(start-ctx, 0)
	a, b = a[lo:len(a)-max(end-ctx, 0)], b[lo:len(b)-max(end-ctx, 0)]
	if len(a) > maxDiffLines || len(b) > maxDiffLines {
		return nil, fmt.Sprintf("%d lines became %d: too many to compare here", len(a), len(b))
	}
	text, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{A: a, B: b, FromFile: from, ToFile: to, Context: ctx})
	if err != nil {
		return nil, "cannot compare: " + err.Error()
	}
	var out []diffLine
	for line := range strings.SplitSeq(strings.TrimSuffix(text, "\n"), "\n") {
		class := "ctx"
		switch {
		case strings.HasPrefix(line, "+++"), strings.HasPrefix(line, "---"):
			class = "file"
		case strings.HasPrefix(line, "@@"):
			class = "hunk"
			if lo > 0 {
				line += fmt.Sprintf(" (lines from %d)", lo+1)
			}
		case strings.HasPrefix(line, "+"):
			class = "add"
		case strings.HasPrefix(line, "-"):
			class = "del"
		}
		out = append(out, diffLine{Class: class, Text: line})
	}
	return out, ""
}
