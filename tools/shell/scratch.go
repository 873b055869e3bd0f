package shell

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/offshoot-dev/offshoot/internal/pathrules"
	"github.com/offshoot-dev/offshoot/internal/regfile"
	"github.com/offshoot-dev/offshoot/internal/textfile"
	"github.com/offshoot-dev/offshoot/tools/vfs"
)

// A session's scratch directory holds its files for its commands. It is
// kept for the session's lifetime (while the tool keeps it, see
// maxScratchDirs) and synced before each command by what changed: a file
// is written only when its content is not what the directory holds, so a
// second command in the same session writes nothing it does not have to.
// After the command, the directory is read back: a file whose size,
// modification time, inode or mode changed is read, and what differs from
// the session's files becomes FileWritten and FileDeleted events.

// Limits on what files a command may hand back, those the VFS and its
// mount keep (packages pathrules and textfile): paths of printable ASCII,
// at most 16 segments of at most 80 bytes; UTF-8 text without a NUL byte
// in its first 8 KiB, of at most 48,000 characters.
const (
	maxPathSegments  = pathrules.MaxSegments
	maxSegmentLength = pathrules.MaxSegmentLength
	maxContentChars  = textfile.MaxChars
	// maxContentBytes is the most bytes a file of maxContentChars
	// characters may take; a larger file is not read.
	maxContentBytes = textfile.MaxBytes
	// maxScanEntries bounds the entries of a scratch directory read back
	// after a command.
	maxScanEntries = 100_000
	// maxChangedFiles and maxChangedBytes bound the files, and their
	// content, one command hands back.
	maxChangedFiles = 2_000
	maxChangedBytes = 32 << 20
)

// scratch is one session's scratch directory and what it holds.
type scratch struct {
	dir string
	// files are the regular files the directory holds that the tool
	// knows of, by slash-separated path.
	files map[string]entry
	// synced is the session's file table as of the last sync: when it is
	// still the session's, and the command after that sync changed
	// nothing, the directory needs no sync.
	synced vfs.Table
	fresh  bool // synced is not set yet
	// changed is set when the directory changed since the last sync
	// (whether the session took the changes or not: it may have been
	// rolled back since).
	changed bool
	// writes counts the files written into the directory, for tests.
	writes int
}

// entry is a file of the scratch directory.
type entry struct {
	// content is the content of the session's file this file stands for,
	// when tracked: the directory holds it, or (when the command made it
	// binary or too large) the session keeps that content while the
	// directory keeps the command's.
	content string
	tracked bool
	stat    fileStat
}

// fileStat is what tells a file changed without reading it. The tool sets
// a written file's modification time to its time in the session, so a
// command's write, which sets it to now, shows even when the size stays.
type fileStat struct {
	size  int64
	mtime int64
	ino   uint64
	mode  fs.FileMode
}

func statOf(info fs.FileInfo) fileStat {
	return fileStat{size: info.Size(), mtime: info.ModTime().UnixNano(), ino: inode(info), mode: info.Mode()}
}

func newScratch(dir string) *scratch {
	return &scratch{dir: dir, files: map[string]entry{}, fresh: true}
}

// sync makes the directory hold files: it removes the files it wrote that
// the session no longer has and writes those whose content it does not
// hold. Files the command made that the session never took (binary, too
// large) stay.
func (s *scratch) sync(files vfs.Table) error {
	if !s.fresh && !s.changed && s.synced.Equal(files) {
		return nil
	}
	root, err := os.OpenRoot(s.dir)
	if err != nil {
		return err
	}
	defer root.Close()
	for p, e := range s.files {
		if _, ok := files.Get(p); ok || !e.tracked {
			continue
		}
		if err := root.Remove(filepath.FromSlash(p)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("removing %s: %w", p, err)
		}
		delete(s.files, p)
	}
	for f := range files.All() {
		if e, ok := s.files[f.Path]; ok && e.tracked && e.content == f.Content {
			continue
		}
		if err := s.write(root, f); err != nil {
			return fmt.Errorf("writing %s: %w", f.Path, err)
		}
	}
	s.synced, s.fresh, s.changed = files, false, false
	return nil
}

// write writes f into the directory as a new file (breaking any hard link
// a command made to the old one), clearing what is in its way.
func (s *scratch) write(root *os.Root, f vfs.File) error {
	name := filepath.FromSlash(f.Path)
	if err := s.clearWay(root, f.Path); err != nil {
		return err
	}
	if info, err := root.Lstat(name); err == nil {
		if err := root.RemoveAll(name); err != nil {
			return err
		}
		if info.IsDir() {
			s.forget(f.Path + "/")
		}
	}
	w, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, err = io.WriteString(w, f.Content)
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	mtime := f.UpdatedAt
	if mtime.IsZero() {
		mtime = time.Unix(0, 0)
	}
	if err := root.Chtimes(name, mtime, mtime); err != nil {
		return err
	}
	info, err := root.Lstat(name)
	if err != nil {
		return err
	}
	s.files[f.Path] = entry{content: f.Content, tracked: true, stat: statOf(info)}
	s.writes++
	return nil
}

// clearWay makes every parent of p a directory: what is not one is
// removed.
func (s *scratch) clearWay(root *os.Root, p string) error {
	for i := 0; i < len(p); i++ {
		if p[i] != '/' {
			continue
		}
		dir := filepath.FromSlash(p[:i])
		info, err := root.Lstat(dir)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return root.MkdirAll(filepath.FromSlash(path.Dir(p)), 0o755)
		case err != nil:
			return err
		case info.IsDir():
			continue
		}
		if err := root.Remove(dir); err != nil {
			return err
		}
		delete(s.files, p[:i])
		return root.MkdirAll(filepath.FromSlash(path.Dir(p)), 0o755)
	}
	return nil
}

// reset empties the directory and forgets what it held, so that the next
// sync writes it whole: for a directory a command left unusable (a
// directory without permissions in the way of a file, say).
func (s *scratch) reset() error {
	if err := removeAll(s.dir); err != nil {
		return err
	}
	if err := os.Mkdir(s.dir, 0o700); err != nil {
		return err
	}
	s.files, s.fresh, s.changed = map[string]entry{}, true, false
	return nil
}

// removeAll removes dir and everything below it, giving back to its
// directories the permissions a command may have taken away.
func removeAll(dir string) error {
	if err := os.RemoveAll(dir); err == nil {
		return nil
	}
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, _ error) error {
		if d != nil && d.IsDir() {
			_ = os.Chmod(p, 0o700) // before WalkDir reads it
		}
		return nil
	})
	return os.RemoveAll(dir)
}

// forget drops the entries below prefix.
func (s *scratch) forget(prefix string) {
	for p := range s.files {
		if strings.HasPrefix(p, prefix) {
			delete(s.files, p)
		}
	}
}

// change is one file a command changed, as the model is told of it.
type change struct {
	// Path is the file's path.
	Path string `json:"path"`
	// Change is "created", "edited" or "deleted" for a change the files
	// took; "not copied" for one they did not.
	Change string `json:"change"`
	// Reason says why a change was not copied.
	Reason string `json:"reason,omitempty"`
}

// readBack reads the directory after a command and returns the events
// that bring its changes into files (deletions first, so that a file may
// replace a directory and the other way round), what changed, and whether
// the directory was read whole.
func (s *scratch) readBack(files vfs.Table) (events []any, changes []change, err error) {
	root, err := os.OpenRoot(s.dir)
	if err != nil {
		return nil, nil, err
	}
	defer root.Close()
	seen := map[string]bool{}    // regular files
	present := map[string]bool{} // anything but directories
	var writes []any
	var written []change
	entries, copied, bytes := 0, 0, 0
	complete := true
	noted := func(p, reason string) {
		changes = append(changes, change{Path: p, Change: "not copied", Reason: reason})
	}
	err = filepath.WalkDir(s.dir, func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			if name == s.dir {
				return err
			}
			complete = false
			return nil
		}
		if name == s.dir {
			return nil
		}
		if entries++; entries > maxScanEntries {
			complete = false
			return filepath.SkipAll
		}
		rel, err := filepath.Rel(s.dir, name)
		if err != nil {
			return err
		}
		p := filepath.ToSlash(rel)
		if d.IsDir() {
			if reason := pathProblem(p); reason != "" {
				noted(p+"/", reason)
				return filepath.SkipDir
			}
			return nil
		}
		info, err := d.Info()
		if err != nil {
			complete = false
			return nil
		}
		st := statOf(info)
		present[p] = true
		e, known := s.files[p]
		if !info.Mode().IsRegular() {
			if !known || e.stat != st {
				noted(p, describeSpecial(info.Mode()))
			}
			s.files[p] = entry{stat: st} // noted once; not a file of the session
			return nil
		}
		seen[p] = true
		if known && e.stat == st {
			return nil
		}
		cur, inFiles := files.Get(p)
		keep := func(reason string) {
			noted(p, reason)
			e.stat = st
			if inFiles {
				e.content, e.tracked = cur.Content, true // the session keeps its version
			}
			s.files[p] = e
		}
		if reason := pathProblem(p); reason != "" {
			keep(reason)
			return nil
		}
		if info.Size() > maxContentBytes {
			keep(fmt.Sprintf("%d bytes, more than a file may hold (%d characters)", info.Size(), maxContentChars))
			return nil
		}
		if copied >= maxChangedFiles || bytes+int(info.Size()) > maxChangedBytes {
			noted(p, "one command may hand back at most 2000 files or 32 MiB; run another command to hand back the rest")
			return nil // not recorded: the next command's read back tries again
		}
		data, err := readBounded(root, rel, maxContentBytes)
		if err != nil {
			noted(p, "it could not be read: "+err.Error())
			return nil
		}
		if reason := contentProblem(data); reason != "" {
			keep(reason)
			return nil
		}
		content := string(data)
		s.files[p] = entry{content: content, tracked: true, stat: st}
		switch {
		case inFiles && cur.Content == content:
			return nil
		case inFiles:
			writes = append(writes, vfs.FileWritten{Path: p, Content: content, Version: cur.Version + 1})
			written = append(written, change{Path: p, Change: "edited"})
		default:
			writes = append(writes, vfs.FileWritten{Path: p, Content: content, Version: 1})
			written = append(written, change{Path: p, Change: "created"})
		}
		copied++
		bytes += len(data)
		return nil
	})
	if err != nil {
		s.changed = true
		return nil, nil, err
	}
	if complete {
		var deleted []change
		for f := range files.All() {
			if seen[f.Path] {
				continue
			}
			events = append(events, vfs.FileDeleted{Path: f.Path})
			deleted = append(deleted, change{Path: f.Path, Change: "deleted"})
		}
		for p := range s.files {
			if !present[p] {
				delete(s.files, p) // gone, or no longer a file
			}
		}
		changes = append(deleted, changes...)
	} else {
		changes = append(changes, change{Path: ".", Change: "not copied", Reason: fmt.Sprintf("the directory could not be read whole (more than %d entries, or unreadable ones), so no deletion was taken", maxScanEntries)})
	}
	events, changes = append(events, writes...), append(written, changes...)
	if len(changes) > 0 {
		s.changed = true
	}
	return events, changes, nil
}

// readBounded reads the regular file name of root, at most limit bytes
// (a file that grew past it since it was listed is refused).
func readBounded(root *os.Root, name string, limit int64) ([]byte, error) {
	data, err := regfile.ReadIn(root, name, limit)
	if _, ok := errors.AsType[*regfile.TooLargeError](err); ok {
		return nil, fmt.Errorf("more than %d bytes", limit)
	}
	return data, err
}

// pathProblem says why the files cannot hold a file at the
// slash-separated path p, or "".
func pathProblem(p string) string {
	segments := strings.Split(p, "/")
	if len(segments) > maxPathSegments {
		return fmt.Sprintf("its path has more than %d parts, the most a file's path may have", maxPathSegments)
	}
	for _, seg := range segments {
		if len(seg) > maxSegmentLength {
			return fmt.Sprintf("a name in its path is longer than %d characters, the most a file's path may have", maxSegmentLength)
		}
	}
	for i := 0; i < len(p); i++ {
		if c := p[i]; c < 0x20 || c >= 0x7f {
			return "its path is not printable ASCII, which a file's path must be"
		}
	}
	return ""
}

// contentProblem says why the files cannot hold data, or "".
func contentProblem(data []byte) string {
	switch {
	case !utf8.Valid(data) || textfile.Binary(data):
		return fmt.Sprintf("binary, %d bytes: the files hold UTF-8 text only", len(data))
	case utf8.RuneCount(data) > maxContentChars:
		return fmt.Sprintf("%d characters, more than a file may hold (%d)", utf8.RuneCount(data), maxContentChars)
	}
	return ""
}

// describeSpecial says what a file that is not a regular file is.
func describeSpecial(mode fs.FileMode) string {
	if mode&fs.ModeSymlink != 0 {
		return "a symbolic link, which is not followed"
	}
	return regfile.Kind(mode) + ", not a file"
}
