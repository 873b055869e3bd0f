package permission

import (
	"errors"
	"io/fs"
	"path"
	"strings"
)

// pathMatches matches a path rule's pattern, gitignore-style, against a
// path relative to the project: "/x" and "./x" are anchored at the
// project's root, as is any pattern holding a slash; one without (*.env)
// matches a name at any depth; "**" stands for any number of folders, and
// a pattern naming a folder covers what is under it. Patterns for
// absolute paths ("//etc/x") or the home ("~/x") never match a project's
// path.
func pathMatches(pattern, p string) bool {
	if p == "" || strings.HasPrefix(pattern, "//") || strings.HasPrefix(pattern, "~") {
		return false
	}
	p = path.Clean(strings.TrimPrefix(p, "/"))
	if p == "." || p == ".." || strings.HasPrefix(p, "../") {
		return false
	}
	anchored := strings.HasPrefix(pattern, "/") || strings.HasPrefix(pattern, "./") || strings.Contains(strings.TrimSuffix(pattern, "/"), "/")
	pattern = strings.TrimPrefix(strings.TrimPrefix(pattern, "./"), "/")
	pattern = strings.TrimSuffix(pattern, "/")
	if pattern == "" {
		return false
	}
	if !anchored {
		pattern = "**/" + pattern
	}
	pat := strings.Split(pattern, "/")
	segs := strings.Split(p, "/")
	// A pattern that matches a folder covers everything under it.
	for n := len(segs); n >= 1; n-- {
		if segments(pat, segs[:n]) {
			return true
		}
	}
	return false
}

// segments matches pattern segments against path segments, "**" standing
// for any number of them. Its work is bounded by len(pat)·len(segs) per
// "**", the patterns being short.
func segments(pat, segs []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			for len(pat) > 1 && pat[1] == "**" {
				pat = pat[1:]
			}
			if len(pat) == 1 {
				return true
			}
			for i := 0; i <= len(segs); i++ {
				if segments(pat[1:], segs[i:]) {
					return true
				}
			}
			return false
		}
		if len(segs) == 0 {
			return false
		}
		if ok, err := path.Match(pat[0], segs[0]); err != nil || !ok {
			return false
		}
		pat, segs = pat[1:], segs[1:]
	}
	return len(segs) == 0
}

// searchReaches reports whether a search of the folder dir (grep over
// every file below it; "" or "/" for the project) would read files the
// path rule pattern names: dir is the project or a folder above the
// pattern's fixed part ("secrets" of ./secrets/**). Only patterns
// anchored at the project are looked at: one that names a file at any
// depth (*.env) would make every search reach it. With files (the agents'
// files, when known), a search reaches only what is there: a pattern whose
// fixed part names nothing in files (an .env file the agents were never
// given) is not reached.
func searchReaches(pattern, dir string, files fs.FS) bool {
	if strings.HasPrefix(pattern, "//") || strings.HasPrefix(pattern, "~") {
		return false
	}
	anchored := strings.HasPrefix(pattern, "/") || strings.HasPrefix(pattern, "./") || strings.Contains(strings.TrimSuffix(pattern, "/"), "/")
	if !anchored {
		return false
	}
	pattern = strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(pattern, "./"), "/"), "/")
	var fixed []string
	for _, seg := range strings.Split(pattern, "/") {
		if strings.ContainsAny(seg, "*?[") {
			break
		}
		fixed = append(fixed, seg)
	}
	prefix := strings.Join(fixed, "/")
	dir = path.Clean("/" + dir)[1:]
	if dir != "" && prefix != dir && !strings.HasPrefix(prefix, dir+"/") {
		return false
	}
	if files == nil || prefix == "" || !fs.ValidPath(prefix) {
		return true
	}
	_, err := fs.Stat(files, prefix)
	return !errors.Is(err, fs.ErrNotExist)
}
