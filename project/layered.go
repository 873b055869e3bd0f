package project

import (
	"path/filepath"
	"slices"
	"strings"
)

// layered gathers what scan finds in the folder sub (such as "skills") of
// the user's .offshoot and .claude, then of the project's (its repository
// root's, see Options.Dir), and sorts it by name. As in Claude Code, the
// user's wins over the project's of the same name, and .offshoot over
// .claude at the same level: a later one of a name already taken is left
// out, with the reason dup gives (its name, the path of the one that
// wins).
func layered[T any](opts Options, sub string, scan func(dir, source string) []T, name, path func(T) string, leftOut *[]LeftOut, dup func(name, winner string) string) []T {
	var all []T
	byName := map[string]int{}
	add := func(dir, source string) {
		for _, folder := range []string{".offshoot", ".claude"} {
			for _, k := range scan(filepath.Join(dir, folder, sub), source) {
				if i, taken := byName[name(k)]; taken {
					*leftOut = append(*leftOut, LeftOut{Path: path(k), Reason: dup(name(k), path(all[i]))})
					continue
				}
				byName[name(k)] = len(all)
				all = append(all, k)
			}
		}
	}
	if opts.HomeDir != "" {
		add(opts.HomeDir, "user")
	}
	if opts.Dir != "" {
		if dir, err := filepath.Abs(opts.Dir); err == nil {
			add(repositoryRoot(dir), "project")
		}
	}
	slices.SortFunc(all, func(a, b T) int { return strings.Compare(name(a), name(b)) })
	return all
}
