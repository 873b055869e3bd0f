package vfs

import (
	"fmt"
	"path"
	"strings"
	"unicode/utf8"
)

// maxPatternSegments bounds the segments of a glob pattern, which bounds
// the work of matching "**".
const maxPatternSegments = 2 * maxPathSegments

// pattern is a compiled glob: slash-separated segments, each a path.Match
// pattern ('*' and '?' within a segment, character classes) or "**", which
// matches any number of whole segments, none included.
type pattern []string

// patternError says why a glob pattern was rejected.
type patternError struct {
	Pattern string // as given
	Reason  string // what it must be, as pathError's Reason
}

// Error returns `invalid glob pattern "PATTERN": REASON`, the pattern
// clipped to 200 characters.
func (e *patternError) Error() string {
	return fmt.Sprintf("invalid glob pattern %q: %s", clip(e.Pattern), e.Reason)
}

// compileGlob checks and splits a glob pattern. A leading "/" is ignored:
// patterns are relative to the directory they are applied to.
func compileGlob(p string) (pattern, error) {
	if n := utf8.RuneCountInString(p); n > maxPatternChars {
		return nil, &patternError{Pattern: p, Reason: fmt.Sprintf("must be at most %d characters; it has %d", maxPatternChars, n)}
	}
	trimmed := strings.Trim(p, "/")
	if trimmed == "" {
		return nil, &patternError{Pattern: p, Reason: "must not be empty; use a pattern such as **/*.md"}
	}
	var segs pattern
	for seg := range strings.SplitSeq(trimmed, "/") {
		if seg == "" {
			continue
		}
		if seg == "**" && len(segs) > 0 && segs[len(segs)-1] == "**" {
			continue // "**/**" is "**"
		}
		if _, err := path.Match(seg, ""); err != nil {
			return nil, &patternError{Pattern: p, Reason: fmt.Sprintf("must be a valid glob; it is malformed at %q (%v): use *, ?, ** and [abc] classes", clip(seg), err)}
		}
		segs = append(segs, seg)
	}
	if len(segs) > maxPatternSegments {
		return nil, &patternError{Pattern: p, Reason: fmt.Sprintf("must have at most %d segments; use ** for any depth", maxPatternSegments)}
	}
	return segs, nil
}

// match reports whether the relative path rel (segments joined by "/")
// matches the pattern.
//
// It works like matching a string against a pattern with '*' wildcards,
// with segments for characters and "**" for '*': one pass over the
// pattern keeps the set of path positions it can have reached, so the cost
// is at most one segment match per pattern segment and path position,
// however many "**" there are (trying every split instead would take
// exponential time on patterns such as **/a/**/a/**/b).
func (g pattern) match(rel string) bool {
	segs := strings.Split(rel, "/")
	n := len(segs) + 1
	// reach[i]: the segments before i match the pattern so far.
	var buf [2 * (maxPathSegments + 1)]bool
	var reach, next []bool
	if n <= maxPathSegments+1 {
		reach, next = buf[:n], buf[n:2*n]
	} else {
		reach, next = make([]bool, n), make([]bool, n)
	}
	reach[0] = true
	for _, p := range g {
		clear(next)
		alive := false
		if p == "**" {
			on := false
			for i := range n {
				on = on || reach[i]
				next[i] = on
			}
			alive = on
		} else {
			for i, seg := range segs {
				if reach[i] {
					if ok, _ := path.Match(p, seg); ok {
						next[i+1], alive = true, true
					}
				}
			}
		}
		if !alive {
			return false
		}
		reach, next = next, reach
	}
	return reach[n-1]
}
