package vfs

import (
	"errors"
	"fmt"
	"strings"

	"github.com/offshoot-dev/offshoot/internal/pathrules"
	"github.com/offshoot-dev/offshoot/internal/textfile"
)

// Limits on paths and contents. Paths are counted in bytes (they are ASCII);
// contents in characters (Unicode code points).
const (
	// maxPathSegments is the most segments a path may have.
	maxPathSegments = pathrules.MaxSegments
	// maxSegmentLength is the longest a path segment may be.
	maxSegmentLength = pathrules.MaxSegmentLength
	// maxContentChars is the most characters one write may store, and the
	// most a file may hold.
	maxContentChars = textfile.MaxChars
)

// reasonNotASCII is the reason for any text that must be ASCII and is not.
const reasonNotASCII = "must be ASCII"

// errInvalidPath is matched (with errors.Is) by every *pathError.
var errInvalidPath = errors.New("vfs: invalid path")

// pathError says why a path was rejected. Its message names the path,
// what is wrong and what to give instead. A tool that gets such a path
// fails the call as invalid arguments instead: "Tool validation failed:
// ls: path: must be ASCII" (the tool, its field, the Reason).
type pathError struct {
	// Path is the path as given.
	Path string
	// Reason says what the path must be, such as "must be ASCII" or
	// "must have at most 16 segments; use a shallower path".
	Reason string
}

// Error returns `invalid path "PATH": REASON`, the path clipped to 200
// characters.
func (e *pathError) Error() string {
	return fmt.Sprintf("invalid path %q: %s", clip(e.Path), e.Reason)
}

// maxEcho is the most characters of a path or pattern that an error
// message repeats.
const maxEcho = 200

// clip returns s for an error message: whole when it has at most maxEcho
// characters, else its first maxEcho characters followed by "…", so that a
// model sending a megabyte path does not get it back.
func clip(s string) string {
	if len(s) <= maxEcho {
		return s
	}
	n := 0
	for i := range s {
		if n == maxEcho {
			return s[:i] + "…"
		}
		n++
	}
	return s
}

// Is reports whether target is errInvalidPath.
func (e *pathError) Is(target error) bool { return target == errInvalidPath }

// normalizePath returns the canonical form of a VFS path, or an error
// saying why p is not acceptable.
//
// A leading "/" is allowed and stripped, and repeated and trailing slashes
// are collapsed, so "/docs//notes.md/" is "docs/notes.md". Rejected are: an
// empty path (or only slashes: the root itself is not a file path), "."
// and ".." segments, more than 16 segments, a segment longer
// than 80 characters, NUL and other control characters, and non-ASCII
// text. Dots inside a name ("notes..md", "...") make an ordinary name. A
// canonical path never starts or ends with "/", never contains "//", a "."
// or a ".." segment, and normalizing it again returns it unchanged.
func normalizePath(p string) (string, error) {
	if p == "" {
		return "", &pathError{Path: p, Reason: "must not be empty; give a path from the root such as docs/notes.md"}
	}
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c == 0:
			return "", &pathError{Path: p, Reason: "must not contain a NUL byte; paths are plain ASCII text"}
		case c >= 0x80:
			return "", &pathError{Path: p, Reason: reasonNotASCII}
		case c < 0x20 || c == 0x7f:
			return "", &pathError{Path: p, Reason: fmt.Sprintf("must be printable ASCII; it contains the control character %#02x", c)}
		}
	}
	var b strings.Builder
	segments := 0
	for seg := range strings.SplitSeq(p, "/") {
		switch {
		case seg == "":
			continue
		case seg == ".":
			return "", &pathError{Path: p, Reason: `must not have "." segments; give the path from the root such as docs/notes.md`}
		case seg == "..":
			return "", &pathError{Path: p, Reason: `must not have ".." segments; give the path from the root such as docs/notes.md`}
		case len(seg) > maxSegmentLength:
			return "", &pathError{Path: p, Reason: fmt.Sprintf("must have segments of at most %d characters; the segment %.20q… has %d", maxSegmentLength, seg, len(seg))}
		}
		segments++
		if segments > maxPathSegments {
			return "", &pathError{Path: p, Reason: fmt.Sprintf("must have at most %d segments; use a shallower path", maxPathSegments)}
		}
		if b.Len() > 0 {
			b.WriteByte('/')
		}
		b.WriteString(seg)
	}
	if segments == 0 {
		return "", &pathError{Path: p, Reason: "must name a file, not the root; give a path such as docs/notes.md"}
	}
	if b.Len() == len(p) {
		return p, nil // already canonical: no allocation kept
	}
	return b.String(), nil
}

// normalizeDir is normalizePath for a directory argument: "" and "/" (or
// only slashes) name the root, returned as "".
func normalizeDir(p string) (string, error) {
	if strings.Trim(p, "/") == "" {
		return "", nil
	}
	return normalizePath(p)
}

// isCanonical reports whether p is a canonical path.
func isCanonical(p string) bool {
	n, err := normalizePath(p)
	return err == nil && n == p
}
