package vfs

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"

	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/tools"
)

// Caps on search results, so that one call cannot flood the model's
// context; a capped result says so with Truncated.
const (
	// maxGlobMatches is the most paths glob returns.
	maxGlobMatches = 1000
	// maxGrepMatches is the most lines grep returns.
	maxGrepMatches = 500
)

// globParams are the arguments of glob.
type globParams struct {
	// Pattern is the glob, relative to Path.
	Pattern string `json:"pattern" validate:"required,max=1000" jsonschema:"a glob relative to path: * and ? match within one path segment, ** matches any number of segments (**/*.md finds Markdown files at any depth)"`
	// Path is the directory to search (the root when empty).
	Path string `json:"path,omitempty" jsonschema:"the directory to search; empty or / for the root"`
}

// globResult is what glob returns.
type globResult struct {
	// Matches are the canonical paths of the matching files, in path order.
	Matches []string `json:"matches"`
	// Truncated is set when there were more than 1,000 matches,
	// or when the search stopped at its work limit (the result's message
	// says which).
	Truncated bool `json:"truncated,omitempty"`
}

// grepParams are the arguments of grep.
type grepParams struct {
	// Pattern is the regular expression.
	Pattern string `json:"pattern" validate:"required,max=1000" jsonschema:"a Go (RE2) regular expression matched against each line"`
	// Path is the file or directory to search (the root when empty).
	Path string `json:"path,omitempty" jsonschema:"the file or directory to search; empty or / for the root"`
	// Glob, when set, limits the search to the files it matches.
	Glob string `json:"glob,omitempty" validate:"max=1000" jsonschema:"only search files whose path relative to path matches this glob, such as **/*.go"`
}

// grepMatch is one line grep found.
type grepMatch struct {
	// Path is the file's canonical path.
	Path string `json:"path"`
	// LineNumber is the line's 1-based number.
	LineNumber int `json:"line_number"`
	// Line is the line's text, without its newline; a line longer than
	// 1,000 characters is cut there and ends with "…".
	Line string `json:"line"`
}

// grepResult is what grep returns.
type grepResult struct {
	// Matches are the matching lines, by path, then line number.
	Matches []grepMatch `json:"matches"`
	// Truncated is set when there were more than 500 matches,
	// or when the search stopped at its work limit (the result's message
	// says which).
	Truncated bool `json:"truncated,omitempty"`
}

func newGlob(set session.Reducers) (tools.Tool, error) {
	return tools.New("glob",
		"Find the files of the virtual filesystem whose path matches a glob pattern, such as **/*.md; results are sorted by path.",
		glob,
		tools.ConcurrentSafe(),
		tools.WithReducers(set), tools.WithState(workspace{}),
	)
}

func newGrep(set session.Reducers) (tools.Tool, error) {
	return tools.New("grep",
		"Search the lines of the virtual filesystem's files with a regular expression (Go RE2 syntax), optionally below a path and only in files matching a glob; results are sorted by path and line number.",
		grep,
		tools.ConcurrentSafe(),
		tools.WithReducers(set), tools.WithState(workspace{}),
	)
}

func glob(ctx context.Context, inv *tools.Invocation, p globParams) (tools.Result[globResult], error) {
	t, err := filesOf(inv)
	if err != nil {
		return tools.Result[globResult]{}, err
	}
	dir, err := normalizeDir(p.Path)
	if err != nil {
		return tools.Result[globResult]{}, invalidArg("path", err)
	}
	g, err := compileGlob(p.Pattern)
	if err != nil {
		return tools.Result[globResult]{}, invalidArg("pattern", err)
	}
	res := globResult{Matches: []string{}}
	b := newBudget(ctx)
	var stop error
	for f, rel := range t.scope(dir) {
		if stop = b.file(); stop == nil {
			stop = b.spend(globCost(p.Pattern, rel))
		}
		if stop != nil {
			break
		}
		if !g.match(rel) {
			continue
		}
		if len(res.Matches) == maxGlobMatches {
			res.Truncated = true
			break
		}
		res.Matches = append(res.Matches, f.Path)
	}
	msg := fmt.Sprintf("%d %s", len(res.Matches), plural(len(res.Matches), "file matches", "files match"))
	switch {
	case stop == errWorkLimit:
		res.Truncated = true
		msg += fmt.Sprintf("; the search stopped after %d %s at its work limit: narrow the path or the pattern", b.files, plural(b.files, "file", "files"))
	case stop != nil:
		return tools.Result[globResult]{}, fmt.Errorf("glob stopped after %d %s: %w", b.files, plural(b.files, "file", "files"), stop)
	case res.Truncated:
		msg = fmt.Sprintf("the first %d matching files; narrow the pattern or the path to see the rest", maxGlobMatches)
	}
	return tools.OK(msg, res), nil
}

func grep(ctx context.Context, inv *tools.Invocation, p grepParams) (tools.Result[grepResult], error) {
	t, err := filesOf(inv)
	if err != nil {
		return tools.Result[grepResult]{}, err
	}
	m, err := compileRegexp(p.Pattern)
	if err != nil {
		return tools.Failed[grepResult]("grep: " + err.Error()), nil
	}
	whole := wholeFileFilter(p.Pattern, m.size)
	dir, err := normalizeDir(p.Path)
	if err != nil {
		return tools.Result[grepResult]{}, invalidArg("path", err)
	}
	var g pattern
	if p.Glob != "" {
		if g, err = compileGlob(p.Glob); err != nil {
			return tools.Result[grepResult]{}, invalidArg("glob", err)
		}
	}
	sr := &grepSearch{m: m, whole: whole, glob: g, globText: p.Glob, b: newBudget(ctx), res: grepResult{Matches: []grepMatch{}}}
	stop := sr.run(t, dir)
	res, files, b := sr.res, sr.files, sr.b
	msg := fmt.Sprintf("%d matching %s in %d %s", len(res.Matches), plural(len(res.Matches), "line", "lines"), files, plural(files, "file", "files"))
	switch {
	case stop == errWorkLimit:
		res.Truncated = true
		msg = fmt.Sprintf("%d matching %s; the search stopped after %d %s at its work limit: narrow the path or the glob, or simplify the pattern", len(res.Matches), plural(len(res.Matches), "line", "lines"), b.files, plural(b.files, "file", "files"))
	case stop != nil:
		return tools.Result[grepResult]{}, fmt.Errorf("grep stopped after %d %s: %w", b.files, plural(b.files, "file", "files"), stop)
	case res.Truncated:
		msg = fmt.Sprintf("the first %d matching lines; narrow the pattern, the path or the glob to see the rest", maxGrepMatches)
	}
	return tools.OK(msg, res), nil
}

// grepSearch is one grep call's search.
type grepSearch struct {
	m, whole *matcher
	glob     pattern
	globText string
	b        *budget
	res      grepResult
	files    int // files searched line by line
}

// run searches the files of t in scope of dir, until done, the match cap,
// the work limit or the end of the context.
func (s *grepSearch) run(t Table, dir string) error {
	for f, rel := range t.scope(dir) {
		if err := s.b.file(); err != nil {
			return err
		}
		if s.glob != nil {
			if err := s.b.spend(globCost(s.globText, rel)); err != nil {
				return err
			}
			if !s.glob.match(rel) {
				continue
			}
		}
		if s.whole != nil {
			found, err := s.whole.match(s.b, f.Content)
			if err != nil {
				return err
			}
			if !found {
				continue
			}
		}
		s.files++
		if done, err := s.lines(f); done || err != nil {
			return err
		}
	}
	return nil
}

// lines searches the lines of f; done reports that the match cap was
// reached.
func (s *grepSearch) lines(f *File) (done bool, err error) {
	for i, line := range lines(f.Content) {
		found, err := s.m.match(s.b, line)
		if err != nil {
			return true, err
		}
		if !found {
			continue
		}
		if len(s.res.Matches) == maxGrepMatches {
			s.res.Truncated = true
			return true, nil
		}
		s.res.Matches = append(s.res.Matches, grepMatch{Path: f.Path, LineNumber: i + 1, Line: clipLine(line)})
	}
	return false, nil
}

// clipLine returns line, or its first maxLineChars characters and "…".
func clipLine(line string) string {
	if len(line) <= maxLineChars {
		return line
	}
	n := 0
	for i := range line {
		if n == maxLineChars {
			return line[:i] + "…"
		}
		n++
	}
	return line
}

// regexpError words a regexp compilation error with the expression it
// quotes clipped.
func regexpError(err error) string {
	var se *syntax.Error
	if errors.As(err, &se) {
		return fmt.Sprintf("error parsing regexp: %s: `%s`", se.Code, clip(se.Expr))
	}
	return err.Error()
}

// wholeFileFilter returns a matcher that matches a file's whole content
// whenever pattern matches one of its lines, so that files without a match
// are skipped in one pass; nil when there is none. Multi-line mode makes ^
// and $ match at line ends; \A and \z, which mean the start and end of the
// line being searched, have no such counterpart, so a pattern using them
// gets no filter. The filter has the pattern's size.
func wholeFileFilter(pattern string, size int64) *matcher {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil || usesTextAnchors(re) {
		return nil
	}
	whole, err := regexp.Compile("(?m:" + pattern + ")")
	if err != nil {
		return nil
	}
	return &matcher{re: whole, size: size}
}

// usesTextAnchors reports whether re uses \A or \z (^ and $ outside
// multi-line mode parse as the same operators).
func usesTextAnchors(re *syntax.Regexp) bool {
	if re.Op == syntax.OpBeginText || re.Op == syntax.OpEndText {
		return true
	}
	for _, sub := range re.Sub {
		if usesTextAnchors(sub) {
			return true
		}
	}
	return false
}

// scope yields the files a search of dir covers, with their paths
// relative to dir: the file dir itself (relative path: its base name), or
// every file below the directory dir.
func (t Table) scope(dir string) func(yield func(*File, string) bool) {
	return func(yield func(*File, string) bool) {
		if f, ok := t.get(dir); ok {
			yield(f, baseName(dir))
			return
		}
		prefix := ""
		if dir != "" {
			prefix = dir + "/"
		}
		for f := range t.under(prefix) {
			if !yield(f, f.Path[len(prefix):]) {
				return
			}
		}
	}
}

// baseName returns the last segment of a canonical path.
func baseName(p string) string {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] == '/' {
			return p[i+1:]
		}
	}
	return p
}
