package vfs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// DefaultMountMaxBytes is the byte cap of a mount whose MaxBytes is 0.
const DefaultMountMaxBytes = 4 << 20

// ErrOutsideRoots is matched (errors.Is) by the error of a mount whose
// host path does not resolve inside an allowed root.
var ErrOutsideRoots = errors.New("vfs: host path outside the allowed roots")

// Mount copies host files into the VFS, read-only: changes in the VFS never
// reach the host, and later changes on the host are not seen.
type Mount struct {
	// HostPath is the host directory (or file) to copy. It must resolve,
	// symlinks evaluated, inside one of the allowed roots.
	HostPath string
	// MountPath is the VFS directory the files appear under ("" for the
	// root). A directory's files keep their paths relative to it; a single
	// file keeps its base name.
	MountPath string
	// Include, when not empty, keeps only the files whose path relative to
	// HostPath matches one of these globs (the glob tool's syntax:
	// **/*.md for Markdown files at any depth).
	Include []string
	// Exclude drops the files and directories whose relative path matches
	// one of these globs, such as .git or **/testdata. It wins over
	// Include.
	Exclude []string
	// MaxBytes caps the total size of the files copied; a mount that would
	// copy more is an error. 0 means DefaultMountMaxBytes.
	MaxBytes int64
}

// LoadMounts reads the mounts, in order, into a new Table (a later mount's
// file replaces an earlier one at the same path). Every host path must
// resolve, symlinks evaluated, inside one of roots, and everything is read
// through an os.Root opened on that root, so nothing outside it is ever
// read: a symlink that leads outside the root (or is absolute, or points to
// a directory) is skipped. Also skipped, silently: files that are not
// regular, not UTF-8 text, longer than MaxContentChars characters, or
// whose VFS path would not be valid. Files get version 1 and their host
// modification time.
func LoadMounts(roots []string, mounts ...Mount) (Table, error) {
	var t Table
	if len(mounts) == 0 {
		return t, nil
	}
	resolved, err := resolveRoots(roots)
	if err != nil {
		return t, err
	}
	for i, m := range mounts {
		if t, err = m.load(t, resolved); err != nil {
			return Table{}, fmt.Errorf("vfs: mount %d (%s): %w", i, m.HostPath, err)
		}
	}
	return t, nil
}

// resolveRoots makes every allowed root absolute with symlinks evaluated.
func resolveRoots(roots []string) ([]string, error) {
	if len(roots) == 0 {
		return nil, errors.New("vfs: mounts need allowed roots; list the host directories they may read in Options.AllowedRoots")
	}
	out := make([]string, 0, len(roots))
	for _, r := range roots {
		if r == "" {
			return nil, errors.New("vfs: an allowed root is empty; give a host directory")
		}
		abs, err := filepath.Abs(r)
		if err != nil {
			return nil, fmt.Errorf("vfs: allowed root %s: %w", r, err)
		}
		resolvedPath, err := filepath.EvalSymlinks(abs)
		if err != nil {
			return nil, fmt.Errorf("vfs: allowed root %s: %w", r, err)
		}
		out = append(out, resolvedPath)
	}
	return out, nil
}

// within reports whether p lies in (or is) the directory root; both are
// absolute and clean.
func within(p, root string) (string, bool) {
	rel, err := filepath.Rel(root, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return rel, true
}

// load reads one mount into t.
func (m Mount) load(t Table, roots []string) (Table, error) {
	if m.HostPath == "" {
		return t, errors.New("the host path is empty; give a host directory or file")
	}
	if m.MaxBytes < 0 {
		return t, fmt.Errorf("MaxBytes is %d; give a positive cap, or 0 for %d bytes", m.MaxBytes, DefaultMountMaxBytes)
	}
	mountDir, err := normalizeDir(m.MountPath)
	if err != nil {
		return t, fmt.Errorf("mount path: %w", err)
	}
	include, err := compileAll(m.Include)
	if err != nil {
		return t, fmt.Errorf("include: %w", err)
	}
	exclude, err := compileAll(m.Exclude)
	if err != nil {
		return t, fmt.Errorf("exclude: %w", err)
	}
	abs, err := filepath.Abs(m.HostPath)
	if err != nil {
		return t, err
	}
	resolvedPath, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return t, fmt.Errorf("the host path does not resolve: %w", err)
	}
	var root, rel string
	for _, r := range roots {
		if x, ok := within(resolvedPath, r); ok {
			root, rel = r, x
			break
		}
	}
	if root == "" {
		return t, fmt.Errorf("%w: it resolves to %s, which is not inside %s; mount a directory under an allowed root", ErrOutsideRoots, resolvedPath, strings.Join(roots, ", "))
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return t, err
	}
	defer r.Close()
	l := loader{root: r, t: t, mountDir: mountDir, include: include, exclude: exclude, budget: m.MaxBytes}
	if l.budget == 0 {
		l.budget = DefaultMountMaxBytes
	}
	top := filepath.ToSlash(rel)
	info, err := r.Stat(top)
	if err != nil {
		return t, err
	}
	if !info.IsDir() {
		return l.t, l.add(top, path.Base(top), info)
	}
	err = fs.WalkDir(r.FS(), top, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == top {
			return nil
		}
		relPath := strings.TrimPrefix(p, top+"/")
		if top == "." {
			relPath = p
		}
		if d.IsDir() {
			if matchAny(l.exclude, relPath) {
				return fs.SkipDir
			}
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil // gone since the listing
		}
		if d.Type()&fs.ModeSymlink != 0 {
			// os.Root refuses links that leave the root or are absolute.
			if info, err = r.Stat(p); err != nil || !info.Mode().IsRegular() {
				return nil
			}
		}
		if !info.Mode().IsRegular() {
			return nil
		}
		return l.add(p, relPath, info)
	})
	return l.t, err
}

// loader accumulates the files of one mount.
type loader struct {
	root              *os.Root
	t                 Table
	mountDir          string
	include, exclude  []pattern
	budget, bytesRead int64
}

// add reads the host file p (relative to the root, slash-separated) into
// the table as mountDir/rel, unless the filters or the format exclude it.
func (l *loader) add(p, rel string, info fs.FileInfo) error {
	if len(l.include) > 0 && !matchAny(l.include, rel) || matchAny(l.exclude, rel) {
		return nil
	}
	name := rel
	if l.mountDir != "" {
		name = l.mountDir + "/" + rel
	}
	name, err := NormalizePath(name)
	if err != nil {
		return nil // not representable in the VFS
	}
	if l.bytesRead+info.Size() > l.budget {
		return fmt.Errorf("the files exceed the mount's cap of %d bytes at %s; narrow Include or Exclude, or raise MaxBytes", l.budget, rel)
	}
	data, err := l.root.ReadFile(p)
	if err != nil {
		return nil // unreadable or gone: skipped
	}
	l.bytesRead += int64(len(data))
	if l.bytesRead > l.budget {
		return fmt.Errorf("the files exceed the mount's cap of %d bytes at %s; narrow Include or Exclude, or raise MaxBytes", l.budget, rel)
	}
	if !utf8.Valid(data) || utf8.RuneCount(data) > MaxContentChars {
		return nil
	}
	if _, exists := l.t.get(name); !exists {
		if err := l.t.checkPlace("mount", name); err != nil {
			return err
		}
	}
	at := stamp(info.ModTime())
	l.t = l.t.set(&File{Path: name, Content: string(data), Version: 1, CreatedAt: at, UpdatedAt: at})
	return nil
}

// compileAll compiles globs.
func compileAll(globs []string) ([]pattern, error) {
	out := make([]pattern, 0, len(globs))
	for _, g := range globs {
		p, err := compileGlob(g)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// matchAny reports whether rel matches one of the patterns.
func matchAny(ps []pattern, rel string) bool {
	for _, p := range ps {
		if p.match(rel) {
			return true
		}
	}
	return false
}
