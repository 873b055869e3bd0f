package vfs

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/offshoot-dev/offshoot/session"
)

// baseline is what the mounts of a session copied in, kept in the
// session's state (the latest value of its baseline slice) so that it
// travels with snapshots, forks and stores: for every mounted file, the
// SHA-256 of its content as read from the host, and for every mounted
// directory, where it sits in the VFS and what its mount left out. The
// write-back compares the session's files with it (Changes) and the host
// files with it (PlanWriteBack). A baseline is never changed once made;
// only hashes are kept, so it costs about 100 bytes a file in snapshot
// JSON, whatever the files hold.
type baseline struct {
	// Dirs are the mounted directories.
	Dirs []mountedDir `json:"dirs"`
	// Files maps the VFS path of every mounted file to the hex SHA-256
	// of its content at mount time.
	Files map[string]string `json:"files"`
}

// mountedDir is one directory mount of a baseline.
type mountedDir struct {
	// Path is the VFS directory the host directory's files were placed
	// under ("" for the root).
	Path string `json:"path"`
	// Exclude are the globs, relative to the mounted directory, of what
	// the mount left out and a write-back never writes: the mount's
	// Exclude and its secrets at any depth.
	Exclude []string `json:"exclude,omitempty"`
}

// hashOf returns the hex SHA-256 of content.
func hashOf[T string | []byte](content T) string {
	h := sha256.New()
	var buf [8 << 10]byte // through a buffer: converting a whole file would copy it
	for len(content) > 0 {
		n := copy(buf[:], content)
		h.Write(buf[:n])
		content = content[n:]
	}
	return hex.EncodeToString(h.Sum(nil))
}

// baselineOf returns the baseline a snapshot holds, and false for a
// session whose files were not mounted (or that predates baselines).
func baselineOf(snap session.Snapshot) (baseline, bool) {
	return session.SliceOfSnapshot[baseline](snap).Latest()
}

// maxBaselineGlobs bounds the globs a decoded baseline may hold per
// directory.
const maxBaselineGlobs = 1000

// UnmarshalJSON decodes a baseline strictly and checks it as a mount
// would make it: canonical paths, hashes of 64 hex digits, globs that
// compile. A baseline decoded from untrusted snapshot JSON can therefore
// widen nothing: a write-back checks every path it writes anyway.
func (b *baseline) UnmarshalJSON(data []byte) error {
	type plain baseline
	var in plain
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return fmt.Errorf("vfs: decoding a mount baseline: %w", err)
	}
	for i, d := range in.Dirs {
		if d.Path != "" && !isCanonical(d.Path) {
			return fmt.Errorf("vfs: mount baseline: dirs[%d]: path %q is not canonical", i, clip(d.Path))
		}
		if len(d.Exclude) > maxBaselineGlobs {
			return fmt.Errorf("vfs: mount baseline: dirs[%d]: %d globs; at most %d", i, len(d.Exclude), maxBaselineGlobs)
		}
		if _, err := compileAll(d.Exclude); err != nil {
			return fmt.Errorf("vfs: mount baseline: dirs[%d]: %w", i, err)
		}
	}
	for p, h := range in.Files {
		if !isCanonical(p) {
			return fmt.Errorf("vfs: mount baseline: file path %q is not canonical", clip(p))
		}
		if !isHash(h) {
			return fmt.Errorf("vfs: mount baseline: %s: %q is not a SHA-256 in hex", clip(p), clip(h))
		}
	}
	if in.Files == nil {
		in.Files = map[string]string{}
	}
	*b = baseline(in)
	return nil
}

// isHash reports whether h is 64 lowercase hex digits.
func isHash(h string) bool {
	if len(h) != 2*sha256.Size {
		return false
	}
	for i := 0; i < len(h); i++ {
		if c := h[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

func reduceBaseline(rc session.ReducerContext, sl session.Slice[baseline], ev filesSeeded) (session.Slice[baseline], error) {
	if sl.Len() > 0 || ev.Baseline == nil {
		return sl, nil
	}
	return session.ReplaceLatest(rc, sl, *ev.Baseline)
}
