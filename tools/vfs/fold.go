package vfs

import "strings"

// compileFolded compiles globs to match whatever the case: checked as
// given, then lower-cased, to be matched (matchFolded, excludedFolded)
// against lower-cased paths. The exclusions of a mount and of a
// write-back match so, since a case-insensitive file system (the common
// one on macOS and Windows) takes .GIT for .git.
func compileFolded(globs []string) ([]pattern, error) {
	if _, err := compileAll(globs); err != nil {
		return nil, err
	}
	lower := make([]string, len(globs))
	for i, g := range globs {
		lower[i] = strings.ToLower(g)
	}
	return compileAll(lower)
}

// matchFolded is matchAny of patterns made by compileFolded.
func matchFolded(ps []pattern, rel string) bool {
	return len(ps) > 0 && matchAny(ps, strings.ToLower(rel))
}

// excludedFolded is excluded of patterns made by compileFolded.
func excludedFolded(ps []pattern, rel string) bool {
	return len(ps) > 0 && excluded(ps, strings.ToLower(rel))
}
