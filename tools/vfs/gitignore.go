package vfs

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
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
	// unused counts the different patterns not used, unusedLines the
	// lines they are on; firstUnused is the first of those lines, with
	// its number.
	unused, unusedLines int
	firstUnused         string
	firstUnusedLine     int
	// notRead says why the file, which exists, was not read at all, and
	// fix what to do about it.
	notRead, fix string
}

// readGitignore reads the .gitignore at the top of the mounted directory
// hostDir (a regular file of at most maxGitignoreBytes): nil when there
// is none or it has no pattern. A pattern repeated is used once (its
// last time, which is where it counts). Patterns past
// maxGitignorePatterns, or over maxIgnoreWildcards or
// maxIgnoreSegments, are not used, and neither is a file that cannot be
// read (see warning).
func readGitignore(hostDir string) *ignoreRules {
	data, err := regfile.Read(filepath.Join(hostDir, ".gitignore"), maxGitignoreBytes)
	var tooLarge *regfile.TooLargeError
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case errors.As(err, &tooLarge):
		return &ignoreRules{notRead: "it is larger than " + regfile.Size(maxGitignoreBytes), fix: "make it smaller"}
	case errors.Is(err, regfile.ErrNotRegular):
		return &ignoreRules{notRead: "it is not a regular file", fix: "make it one"}
	case err != nil:
		return &ignoreRules{notRead: fmt.Sprintf("it cannot be read (%v)", unwrapPath(err)), fix: "make it readable"}
	}
	var lines []string
	last := map[string]int{}  // pattern → index in lines of its last time
	first := map[string]int{} // pattern → the number of its first line
	times := map[string]int{} // pattern → how many lines hold it
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), maxGitignoreBytes)
	for n := 1; sc.Scan(); n++ {
		text := strings.TrimRight(sc.Text(), "\r")
		if strings.HasPrefix(text, "#") || strings.TrimSpace(text) == "" {
			continue
		}
		if times[text] == 0 {
			first[text] = n
		}
		times[text]++
		last[text] = len(lines)
		lines = append(lines, text)
	}
	r := &ignoreRules{}
	for i, text := range lines {
		if last[text] != i {
			continue // repeated later, where it is used
		}
		if len(r.patterns) == maxGitignorePatterns || !simpleEnough(text) {
			if r.unused == 0 || first[text] < r.firstUnusedLine {
				r.firstUnused, r.firstUnusedLine = clip(text), first[text]
			}
			r.unused++
			r.unusedLines += times[text]
			continue
		}
		r.patterns = append(r.patterns, gitignore.ParsePattern(text, nil))
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
	switch {
	case r == nil:
		return ""
	case r.notRead != "":
		return fmt.Sprintf(".gitignore: not used, as %s: files it would ignore may have been copied in. %s, or leave those files out another way", r.notRead, strings.ToUpper(r.fix[:1])+r.fix[1:])
	case r.unused == 0:
		return ""
	}
	return fmt.Sprintf(".gitignore: %d %s not used, on %d %s (the first is line %d: %s): a mount uses at most %d different patterns, the first ones, each of at most %d wildcards and %d parts; files %s would ignore may have been copied in. Shorten the .gitignore, or leave those files out another way",
		r.unused, plural(r.unused, "pattern was", "patterns were"), r.unusedLines, plural(r.unusedLines, "line", "lines"), r.firstUnusedLine, r.firstUnused,
		maxGitignorePatterns, maxIgnoreWildcards, maxIgnoreSegments, plural(r.unused, "that pattern", "those patterns"))
}
