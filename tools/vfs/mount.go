package vfs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/offshoot-dev/offshoot/internal/pathrules"
	"github.com/offshoot-dev/offshoot/internal/regfile"
	"github.com/offshoot-dev/offshoot/internal/textfile"
)

// defaultMountMaxBytes is the byte cap of a mount whose MaxBytes is 0
// (Mount.MaxBytes says it in words: keep the two in step).
const defaultMountMaxBytes = 4 << 20

// errOutsideRoots is matched (errors.Is) by the error of a mount whose
// host path does not resolve inside an allowed root.
var errOutsideRoots = errors.New("vfs: host path outside the allowed roots")

// ErrMountTooLarge is matched (errors.Is) by the error of a mount whose
// files come to more than its byte cap (MaxBytes).
var ErrMountTooLarge = errors.New("vfs: the mounted files exceed the byte cap")

// Mount copies host files into the VFS: changes in the VFS reach the host
// only through a write-back (PlanWriteBack), and later changes on the host
// are not seen. The mount records what it copied (a hash of each file) in
// the session, so that a write-back knows what changed on either side.
//
// Whatever Exclude says, a mount leaves out version control's folders
// (.git) and the agents' own configuration, which is no workspace: the
// .claude and .offshoot folders (agent definitions, settings with hooks,
// offshoot's config.json), at any depth and whatever the case. Mount one
// of their folders itself (HostPath .claude/agents) to copy it.
type Mount struct {
	// HostPath is the host directory (or regular file) to copy. It must
	// resolve, symlinks evaluated, inside one of the allowed roots; a
	// FIFO, socket or device is refused.
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
	// one of these globs, whatever the case, such as **/testdata. It wins
	// over Include, and applies to the target of a symlink too, so a link
	// cannot expose an excluded file.
	Exclude []string
	// MaxBytes caps the total size of the files copied, counted as they
	// are read (never from the size the host reports); a mount that would
	// copy more is an error. Skipped files do not count. 0 means 4 MiB.
	MaxBytes int64
	// Secrets are names of files and directories that may hold
	// credentials, left out at any depth and whatever the case (the glob
	// syntax of Exclude, matched against the path and each of its
	// trailing parts); nil means DefaultSecrets(), an empty slice none. They
	// are counted apart in Report, and a symlink cannot expose one. A
	// write-back never writes the names of DefaultSecrets(), whatever Secrets
	// says.
	Secrets []string
	// GitIgnore leaves out what the .gitignore at the top of the mounted
	// directory ignores. Its matching work is bounded: at most 1,000
	// different patterns are used, the first ones, each of at most 8
	// wildcards and 16 parts; a pattern past these bounds is not used,
	// nor is a .gitignore over 1 MiB or not a regular file, and Report's
	// Warnings say so.
	GitIgnore bool
	// Report, when set, is filled with what the mount copied and what it
	// left out, and why: afresh each time the mount is loaded.
	Report *MountReport
	// Context, when set, stops the copy once it is cancelled: the mount
	// then fails with the context's error, whatever it had copied. A
	// program that lets its user interrupt start-up gives it the
	// context the interrupt cancels.
	Context context.Context

	// onVisit, when set, is called with each path the walk of a directory
	// reaches, before it is looked at: the tests' hook.
	onVisit func(rel string)
}

// loadMounts reads the mounts, in order, into a new Table (a later mount's
// file replaces an earlier one at the same path). Every host path must
// resolve, symlinks evaluated, inside one of roots, and everything is read
// through an os.Root opened on the mounted directory, so nothing outside
// it is ever read.
//
// Only regular files and directories are read, decided from their type
// before anything is opened: a FIFO, socket or device inside a mount is
// skipped, and refused when it is the mount itself. A symlink inside a
// mount is followed only when it leads to a regular file inside the
// mounted directory itself whose path there Exclude does not drop;
// symlinks to directories are skipped. Also skipped, silently: files that
// are not UTF-8 text (or hold a NUL byte in their first 8 KiB, as binary
// files do), longer than 48,000 characters, or whose VFS path
// would not be valid. Files over the cap make an error matching
// ErrMountTooLarge. Files are read through a limit, whatever
// size the host reports, and only the files copied count toward MaxBytes.
// Files get version 1 and their host modification time.
func loadMounts(roots []string, mounts ...Mount) (Table, error) {
	t, _, err := mountAll(roots, mounts)
	return t, err
}

// mountAll is loadMounts, which also returns the baseline of what it
// copied: nil without mounts.
func mountAll(roots []string, mounts []Mount) (Table, *baseline, error) {
	var t Table
	if len(mounts) == 0 {
		return t, nil, nil
	}
	resolved, err := resolveRoots(roots)
	if err != nil {
		return t, nil, err
	}
	base := &baseline{Files: map[string]string{}}
	for i, m := range mounts {
		if t, err = m.load(t, resolved, base); err != nil {
			return Table{}, nil, fmt.Errorf("vfs: mount %d (%s): %w", i, m.HostPath, err)
		}
	}
	return t, base, nil
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

// load reads one mount into t, and records what it copied in base.
func (m Mount) load(t Table, roots []string, base *baseline) (Table, error) {
	if m.HostPath == "" {
		return t, errors.New("the host path is empty; give a host directory or file")
	}
	if m.MaxBytes < 0 {
		return t, fmt.Errorf("MaxBytes is %d; give a positive cap, or 0 for %d bytes", m.MaxBytes, defaultMountMaxBytes)
	}
	mountDir, err := normalizeDir(m.MountPath)
	if err != nil {
		return t, fmt.Errorf("mount path: %w", err)
	}
	include, err := compileAll(m.Include)
	if err != nil {
		return t, fmt.Errorf("include: %w", err)
	}
	exclude, err := compileFolded(m.Exclude)
	if err != nil {
		return t, fmt.Errorf("exclude: %w", err)
	}
	secretNames, secret := pathrules.Secrets(), pathrules.Secret
	if m.Secrets != nil {
		secrets, err := compileFolded(anyDepth(m.Secrets))
		if err != nil {
			return t, fmt.Errorf("secrets: %w", err)
		}
		secretNames, secret = m.Secrets, func(rel string) bool { return excludedFolded(secrets, rel) }
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
		return t, fmt.Errorf("%w: it resolves to %s, which is not inside %s; mount a directory under an allowed root", errOutsideRoots, resolvedPath, strings.Join(roots, ", "))
	}
	// Everything is opened through the allowed root, so that even a path
	// changed since it was resolved cannot lead outside it.
	r, err := os.OpenRoot(root)
	if err != nil {
		return t, err
	}
	defer r.Close()
	top := filepath.ToSlash(rel)
	info, err := r.Lstat(top)
	if err != nil {
		return t, err
	}
	if m.Report != nil {
		// Each load reports afresh: Tools and Section each load the mounts
		// they are given, and a report counts one load.
		*m.Report = MountReport{}
	}
	l := loader{ctx: m.Context, t: t, mountDir: mountDir, include: include, exclude: exclude, secret: secret, budget: m.MaxBytes, report: m.Report, hashes: base.Files, onVisit: m.onVisit}
	if l.ctx == nil {
		l.ctx = context.Background()
	}
	if err := l.ctx.Err(); err != nil {
		return t, fmt.Errorf("the copy was stopped: %w", err)
	}
	if l.budget == 0 {
		l.budget = defaultMountMaxBytes
	}
	switch {
	case info.Mode().IsRegular():
		l.root = r
		return l.t, l.add(top, path.Base(top))
	case !info.IsDir():
		return t, fmt.Errorf("the host path is %s, not a directory or a regular file; mount a directory or a regular file", regfile.Kind(info.Mode()))
	}
	dir, err := r.OpenRoot(top)
	if err != nil {
		return t, err
	}
	defer dir.Close()
	l.root, l.hostDir = dir, resolvedPath
	base.Dirs = append(base.Dirs, mountedDir{Path: mountDir, Exclude: append(slices.Clone(m.Exclude), anyDepth(secretNames)...)})
	if m.GitIgnore {
		l.ignore = readGitignore(resolvedPath)
		if w := l.ignore.warning(); w != "" && l.report != nil {
			l.report.Warnings = append(l.report.Warnings, w)
		}
	}
	err = fs.WalkDir(dir.FS(), ".", l.visit)
	if l.ctx.Err() != nil && errors.Is(err, l.ctx.Err()) {
		err = fmt.Errorf("the copy was stopped: %w", err)
	}
	return l.t, err
}

// maxFileBytes is the most bytes a file the VFS can hold may have: each
// character takes at most 4 bytes in UTF-8.
const maxFileBytes = textfile.MaxBytes

// loader accumulates the files of one mount.
type loader struct {
	ctx               context.Context // stops the walk once cancelled
	root              *os.Root        // the mounted directory (or, for a file, the allowed root)
	hostDir           string          // the mounted directory's host path, symlinks evaluated
	t                 Table
	mountDir          string
	include, exclude  []pattern             // exclude compiled by compileFolded
	secret            func(rel string) bool // whether rel may hold a secret
	ignore            *ignoreRules          // the mounted directory's .gitignore, or nil
	budget, bytesRead int64
	report            *MountReport
	hashes            map[string]string // the baseline's: VFS path → hash of what was copied
	onVisit           func(rel string)  // Mount.onVisit
}

// visit is the fs.WalkDirFunc of a directory mount: p is relative to the
// mounted directory. Only directories, regular files and symlinks to
// regular files inside the mount are looked at; nothing else is opened.
func (l *loader) visit(p string, d fs.DirEntry, err error) error {
	if l.onVisit != nil {
		l.onVisit(p)
	}
	if cerr := l.ctx.Err(); cerr != nil {
		return cerr
	}
	switch {
	case err != nil && p == ".":
		return err
	case err != nil: // an unreadable directory: the rest is still read
		l.report.leave(leftUnreadable, p)
		if d != nil && d.IsDir() {
			return fs.SkipDir
		}
		return nil
	case p == ".":
		return nil
	case d.IsDir():
		reason, err := l.leaveOut(p, true)
		if reason != "" {
			l.report.leave(reason, p)
			return fs.SkipDir
		}
		return err
	case d.Type().IsRegular():
		return l.add(p, p)
	case d.Type()&fs.ModeSymlink != 0:
		if target, ok := l.linkTarget(p); ok {
			return l.add(target, p)
		}
		l.report.leave(leftUnreadable, p)
		return nil
	}
	l.report.leave(leftSpecial, p) // a FIFO, socket, device or other special file
	return nil
}

// leaveOut returns why the file or directory rel is left out, or "";
// the error is the mount's context's, when it is cancelled while the
// .gitignore is matched.
func (l *loader) leaveOut(rel string, dir bool) (string, error) {
	switch {
	case l.secret(rel):
		return leftSecret, nil
	case pathrules.VersionControl(rel):
		return leftVersionControl, nil
	case pathrules.AgentConfiguration(rel):
		return leftConfiguration, nil
	case matchFolded(l.exclude, rel) || !dir && len(l.include) > 0 && !matchAny(l.include, rel):
		return leftExcluded, nil
	}
	ignored, err := l.ignore.match(l.ctx, rel, dir)
	if ignored {
		return leftIgnored, nil
	}
	return "", err
}

// linkTarget returns the path, relative to the mounted directory, of the
// regular file the symlink p leads to, and false when it leads outside
// the mounted directory, to something else than a regular file, to
// nothing, or to a path Exclude drops.
func (l *loader) linkTarget(p string) (string, bool) {
	resolved, err := filepath.EvalSymlinks(filepath.Join(l.hostDir, filepath.FromSlash(p)))
	if err != nil {
		return "", false
	}
	rel, ok := within(resolved, l.hostDir)
	if !ok || rel == "." {
		return "", false
	}
	target := filepath.ToSlash(rel)
	if excludedFolded(l.exclude, target) || l.secret(target) || pathrules.VersionControl(target) || pathrules.AgentConfiguration(target) {
		return "", false
	}
	info, err := l.root.Lstat(target)
	if err != nil || !info.Mode().IsRegular() {
		return "", false
	}
	return target, true
}

// excluded reports whether Exclude drops the path rel: whether it or one
// of the directories on the way to it matches.
func excluded(exclude []pattern, rel string) bool {
	for i := 0; i < len(rel); i++ {
		if rel[i] == '/' && matchAny(exclude, rel[:i]) {
			return true
		}
	}
	return matchAny(exclude, rel)
}

// add reads the host file at p (relative to l.root, slash-separated) into
// the table as mountDir/rel, unless the filters or the format exclude it.
// The file is read through a limit, never trusting the size the host
// reports, and counts toward the byte cap only when it is copied.
func (l *loader) add(p, rel string) error {
	reason, err := l.leaveOut(rel, false)
	if reason != "" {
		l.report.leave(reason, rel)
		return nil
	}
	if err != nil {
		return err
	}
	name := rel
	if l.mountDir != "" {
		name = l.mountDir + "/" + rel
	}
	name, err = normalizePath(name)
	if err != nil {
		l.report.leave(leftExcluded, rel) // not representable in the VFS
		return nil
	}
	data, modTime, ok := l.read(p)
	switch {
	case !ok && data == nil:
		l.report.leave(leftUnreadable, rel)
		return nil
	case !ok || utf8.RuneCount(data) > maxContentChars:
		l.report.leave(leftTooLong, rel)
		return nil
	case !utf8.Valid(data) || textfile.Binary(data):
		l.report.leave(leftNotText, rel)
		return nil
	}
	if l.bytesRead+int64(len(data)) > l.budget {
		return fmt.Errorf("%w: the files exceed the mount's cap of %d bytes at %s; narrow Include or Exclude, or raise MaxBytes", ErrMountTooLarge, l.budget, rel)
	}
	l.bytesRead += int64(len(data))
	if _, exists := l.t.get(name); !exists {
		if err := l.t.checkPlace("mount", name); err != nil {
			return err
		}
	}
	at := stamp(modTime)
	l.t = l.t.set(&File{Path: name, Content: string(data), Version: 1, CreatedAt: at, UpdatedAt: at})
	l.hashes[name] = hashOf(data)
	if l.report != nil {
		l.report.Copied++
	}
	return nil
}

// read returns the content of the regular file at p and its modification
// time, reading at most maxFileBytes+1 bytes; ok is false when it cannot
// be read, is not a regular file once opened, or is longer than a file
// the VFS can hold.
func (l *loader) read(p string) (data []byte, modTime time.Time, ok bool) {
	f, err := l.root.Open(p)
	if err != nil {
		return nil, time.Time{}, false
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() {
		return nil, time.Time{}, false
	}
	data, err = io.ReadAll(io.LimitReader(f, maxFileBytes+1))
	if err != nil {
		return nil, time.Time{}, false
	}
	if len(data) > maxFileBytes {
		return data[:0], time.Time{}, false // too long
	}
	return data, info.ModTime(), true
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
