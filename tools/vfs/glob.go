package vfs

import (
	"fmt"
	"path"
	"strings"
)

// maxPatternSegments bounds the segments of a glob pattern, which bounds
// the work of matching "**".
const maxPatternSegments = 2 * MaxPathSegments

// pattern is a compiled glob: slash-separated segments, each a path.Match
// pattern ('*' and '?' within a segment, character classes) or "**", which
// matches any number of whole segments, none included.
type pattern []string

// compileGlob checks and splits a glob pattern. A leading "/" is ignored:
// patterns are relative to the directory they are applied to.
func compileGlob(p string) (pattern, error) {
	trimmed := strings.Trim(p, "/")
	if trimmed == "" {
		return nil, fmt.Errorf("the glob pattern %q is empty; use a pattern such as **/*.md", clip(p))
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
			return nil, fmt.Errorf("the glob pattern %q is malformed at %q (%v); use *, ?, ** and [abc] classes", clip(p), clip(seg), err)
		}
		segs = append(segs, seg)
	}
	if len(segs) > maxPatternSegments {
		return nil, fmt.Errorf("the glob pattern %q has more than %d segments", clip(p), maxPatternSegments)
	}
	return segs, nil
}

// match reports whether the relative path rel (segments joined by "/")
// matches the pattern.
func (g pattern) match(rel string) bool {
	return matchSegments(g, strings.Split(rel, "/"))
}

func matchSegments(pat, segs []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			rest := pat[1:]
			if len(rest) == 0 {
				return true
			}
			for i := range len(segs) + 1 {
				if matchSegments(rest, segs[i:]) {
					return true
				}
			}
			return false
		}
		if len(segs) == 0 {
			return false
		}
		if ok, _ := path.Match(pat[0], segs[0]); !ok {
			return false
		}
		pat, segs = pat[1:], segs[1:]
	}
	return len(segs) == 0
}
