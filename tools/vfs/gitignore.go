package vfs

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"

	"github.com/offshoot-dev/offshoot/internal/regfile"
)

// The bounds of a mounted directory's .gitignore. Every file and
// directory of the mount is matched against every pattern, so the work
// grows with the number of patterns times the number of paths, and a
// .gitignore is the directory's, not the user's: a hostile one of tens of
// thousands of patterns made a mount of a few hundred files take minutes.
// What goes past a bound is not used, and the mount's report says so
// (MountReport.Warnings): the files those patterns name may be copied in.
const (
	// maxGitignoreBytes bounds what is read of a .gitignore.
	maxGitignoreBytes = 1 << 20
	// maxGitignorePatterns is how many different patterns are used, the
	// first ones in the file; the others are not.
	maxGitignorePatterns = 1000
	// maxIgnoreWildcards is how many wildcards (*, ?, [ and **) a
	// pattern may hold; a pattern with more is not used.
	maxIgnoreWildcards = 8
	// maxIgnoreSegments is how many /-separated parts a pattern may
	// have; a pattern with more is not used.
	maxIgnoreSegments = 16
	// ignoreCheckEvery is how many patterns are matched between two looks
	// at whether the mount was cancelled.
	ignoreCheckEvery = 64
)

// ignoreRules are the patterns of a .gitignore that a mount uses, in the
// file's order, with what it did not use.
type ignoreRules struct {
	patterns []gitignore.Pattern
	// unused counts the patterns not used; firstUnused is the first of
	// them, with its line number.
	unused      int
	firstUnused string
}

// readGitignore reads the .gitignore at the top of the mounted directory
// dir (a regular file of at most maxGitignoreBytes, read through dir):
// nil when there is none, it cannot be read, or it has no pattern. A
// pattern repeated is used once (its last time, which is where it
// counts). Patterns past maxGitignorePatterns, or over
// maxIgnoreWildcards or maxIgnoreSegments, are not used (see warning).
func readGitignore(dir *os.Root) *ignoreRules {
	data, err := regfile.ReadIn(dir, ".gitignore", maxGitignoreBytes)
	if err != nil {
		return nil
	}
	type line struct {
		text string
		n    int
	}
	var lines []line
	last := map[string]int{} // pattern → index in lines of its last time
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), maxGitignoreBytes)
	for n := 1; sc.Scan(); n++ {
		text := strings.TrimRight(sc.Text(), "\r")
		if strings.HasPrefix(text, "#") || strings.TrimSpace(text) == "" {
			continue
		}
		last[text] = len(lines)
		lines = append(lines, line{text, n})
	}
	r := &ignoreRules{}
	for i, l := range lines {
		if last[l.text] != i {
			continue // repeated later, where it is used
		}
		if len(r.patterns) == maxGitignorePatterns || !simpleEnough(l.text) {
			if r.unused == 0 {
				r.firstUnused = fmt.Sprintf("line %d: %s", l.n, clip(l.text))
			}
			r.unused++
			continue
		}
		r.patterns = append(r.patterns, gitignore.ParsePattern(l.text, nil))
	}
	if len(r.patterns) == 0 && r.unused == 0 {
		return nil
	}
	return r
}

// simpleEnough reports whether the .gitignore pattern p is within
// maxIgnoreWildcards and maxIgnoreSegments.
func simpleEnough(p string) bool {
	wildcards := strings.Count(p, "*") - strings.Count(p, "**") + strings.Count(p, "?") + strings.Count(p, "[")
	return wildcards <= maxIgnoreWildcards && strings.Count(p, "/") < maxIgnoreSegments
}

// match reports whether the .gitignore ignores rel (slash-separated,
// relative to the mounted directory), a directory when dir is true: the
// last pattern that matches decides, as in git. It stops, with ctx's
// error, once ctx is cancelled.
func (r *ignoreRules) match(ctx context.Context, rel string, dir bool) (bool, error) {
	if r == nil || len(r.patterns) == 0 {
		return false, nil
	}
	parts := strings.Split(rel, "/")
	for i := len(r.patterns) - 1; i >= 0; i-- {
		if i%ignoreCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return false, err
			}
		}
		if m := r.patterns[i].Match(parts, dir); m != gitignore.NoMatch {
			return m == gitignore.Exclude, nil
		}
	}
	return false, nil
}

// warning says, in words for the user, which patterns were not used and
// what that means; "" when all were.
func (r *ignoreRules) warning() string {
	if r == nil || r.unused == 0 {
		return ""
	}
	return fmt.Sprintf(".gitignore: %d %s not used (the first on %s): a mount uses at most %d different patterns, the first ones, each of at most %d wildcards and %d parts; files %s would ignore may have been copied in. Shorten the .gitignore, or leave those files out another way",
		r.unused, plural(r.unused, "pattern was", "patterns were"), r.firstUnused, maxGitignorePatterns, maxIgnoreWildcards, maxIgnoreSegments, plural(r.unused, "that pattern", "those patterns"))
}
