package vfs

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"

	"github.com/offshoot-dev/offshoot/tools"
)

// Caps on search results, so that one call cannot flood the model's
// context; a capped result says so with Truncated.
const (
	// MaxGlobMatches is the most paths glob returns.
	MaxGlobMatches = 1000
	// MaxGrepMatches is the most lines grep returns.
	MaxGrepMatches = 500
)

// GlobParams are the arguments of glob.
type GlobParams struct {
	// Pattern is the glob, relative to Path.
	Pattern string `json:"pattern" validate:"required" jsonschema:"a glob relative to path: * and ? match within one path segment, ** matches any number of segments (**/*.md finds Markdown files at any depth)"`
	// Path is the directory to search (the root when empty).
	Path string `json:"path,omitempty" jsonschema:"the directory to search; empty or / for the root"`
}

// GlobResult is what glob returns.
type GlobResult struct {
	// Matches are the canonical paths of the matching files, in path order.
	Matches []string `json:"matches"`
	// Truncated is set when there were more than MaxGlobMatches matches.
	Truncated bool `json:"truncated,omitempty"`
}

// GrepParams are the arguments of grep.
type GrepParams struct {
	// Pattern is the regular expression.
	Pattern string `json:"pattern" validate:"required" jsonschema:"a Go (RE2) regular expression matched against each line"`
	// Path is the file or directory to search (the root when empty).
	Path string `json:"path,omitempty" jsonschema:"the file or directory to search; empty or / for the root"`
	// Glob, when set, limits the search to the files it matches.
	Glob string `json:"glob,omitempty" jsonschema:"only search files whose path relative to path matches this glob, such as **/*.go"`
}

// GrepMatch is one line grep found.
type GrepMatch struct {
	// Path is the file's canonical path.
	Path string `json:"path"`
	// LineNumber is the line's 1-based number.
	LineNumber int `json:"line_number"`
	// Line is the line's text, without its newline.
	Line string `json:"line"`
}

// GrepResult is what grep returns.
type GrepResult struct {
	// Matches are the matching lines, by path, then line number.
	Matches []GrepMatch `json:"matches"`
	// Truncated is set when there were more than MaxGrepMatches matches.
	Truncated bool `json:"truncated,omitempty"`
}

func newGlob() (tools.Tool, error) {
	return tools.New("glob",
		"Find the files of the virtual filesystem whose path matches a glob pattern, such as **/*.md; results are sorted by path.",
		glob,
		tools.ConcurrentSafe(),
		tools.WithInstall(InstallKey, register),
	)
}

func newGrep() (tools.Tool, error) {
	return tools.New("grep",
		"Search the lines of the virtual filesystem's files with a regular expression (Go RE2 syntax), optionally below a path and only in files matching a glob; results are sorted by path and line number.",
		grep,
		tools.ConcurrentSafe(),
		tools.WithInstall(InstallKey, register),
	)
}

func glob(_ context.Context, inv *tools.Invocation, p GlobParams) (tools.Result[GlobResult], error) {
	t, err := filesOf(inv)
	if err != nil {
		return tools.Result[GlobResult]{}, err
	}
	dir, err := normalizeDir(p.Path)
	if err != nil {
		return tools.Failed[GlobResult](err.Error()), nil
	}
	g, err := compileGlob(p.Pattern)
	if err != nil {
		return tools.Failed[GlobResult](err.Error()), nil
	}
	res := GlobResult{Matches: []string{}}
	for f, rel := range t.scope(dir) {
		if !g.match(rel) {
			continue
		}
		if len(res.Matches) == MaxGlobMatches {
			res.Truncated = true
			break
		}
		res.Matches = append(res.Matches, f.Path)
	}
	msg := fmt.Sprintf("%d %s", len(res.Matches), plural(len(res.Matches), "file matches", "files match"))
	if res.Truncated {
		msg = fmt.Sprintf("the first %d matching files; narrow the pattern or the path to see the rest", MaxGlobMatches)
	}
	return tools.OK(msg, res), nil
}

func grep(_ context.Context, inv *tools.Invocation, p GrepParams) (tools.Result[GrepResult], error) {
	t, err := filesOf(inv)
	if err != nil {
		return tools.Result[GrepResult]{}, err
	}
	re, err := regexp.Compile(p.Pattern)
	if err != nil {
		return tools.Failed[GrepResult]("grep: the pattern is not a valid regular expression: " + regexpError(err)), nil
	}
	whole := wholeFileFilter(p.Pattern)
	dir, err := normalizeDir(p.Path)
	if err != nil {
		return tools.Failed[GrepResult](err.Error()), nil
	}
	var g pattern
	if p.Glob != "" {
		if g, err = compileGlob(p.Glob); err != nil {
			return tools.Failed[GrepResult](err.Error()), nil
		}
	}
	res := GrepResult{Matches: []GrepMatch{}}
	files := 0
search:
	for f, rel := range t.scope(dir) {
		if g != nil && !g.match(rel) {
			continue
		}
		if whole != nil && !whole.MatchString(f.Content) {
			continue
		}
		files++
		for i, line := range lines(f.Content) {
			if !re.MatchString(line) {
				continue
			}
			if len(res.Matches) == MaxGrepMatches {
				res.Truncated = true
				break search
			}
			res.Matches = append(res.Matches, GrepMatch{Path: f.Path, LineNumber: i + 1, Line: line})
		}
	}
	msg := fmt.Sprintf("%d matching %s in %d %s", len(res.Matches), plural(len(res.Matches), "line", "lines"), files, plural(files, "file", "files"))
	if res.Truncated {
		msg = fmt.Sprintf("the first %d matching lines; narrow the pattern, the path or the glob to see the rest", MaxGrepMatches)
	}
	return tools.OK(msg, res), nil
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

// wholeFileFilter returns a regexp that matches a file's whole content
// whenever pattern matches one of its lines, so that files without a match
// are skipped in one pass; nil when there is none. Multi-line mode makes ^
// and $ match at line ends; \A and \z, which mean the start and end of the
// line being searched, have no such counterpart, so a pattern using them
// gets no filter.
func wholeFileFilter(pattern string) *regexp.Regexp {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil || usesTextAnchors(re) {
		return nil
	}
	whole, err := regexp.Compile("(?m:" + pattern + ")")
	if err != nil {
		return nil
	}
	return whole
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
