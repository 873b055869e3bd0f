package project

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/offshoot-dev/offshoot/internal/frontmatter"
	"github.com/offshoot-dev/offshoot/internal/regfile"
	"github.com/offshoot-dev/offshoot/internal/textfile"
)

// The bounds on memory: how deep imports nest, and how much text all the
// files may hold together.
const (
	maxImportDepth = 5
	maxMemoryBytes = 256 << 10
)

// Options say where a project's files are.
type Options struct {
	// Dir is the directory the agents work in. Memory files are looked
	// for in it and in every directory above it up to the repository's
	// root (the nearest directory holding .git; Dir itself when there is
	// none), which is the project: imports stay inside it.
	Dir string
	// HomeDir is the user's home directory (os.UserHomeDir): its
	// .claude/CLAUDE.md (or .offshoot/CLAUDE.md) comes first. Empty
	// leaves the user's files out.
	HomeDir string
}

// Memory is the memory of a project: the files read, in the order the
// model reads them, and those left out. LoadMemory makes one; Text is what
// the main agent's system prompt gets.
type Memory struct {
	// Files are the files read: the user's first, then the project's from
	// its root down to Dir, each followed by the files it imports.
	Files []MemoryFile
	// LeftOut are the files found but not read, with the reason.
	LeftOut []LeftOut
}

// MemoryFile is one memory file read.
type MemoryFile struct {
	// Path is the file, absolute.
	Path string
	// Name is how the model and the user read its place: relative to the
	// project ("CLAUDE.md", "api/AGENTS.md") or to the home directory
	// ("~/.claude/CLAUDE.md").
	Name string
	// Kind says what the file is, in words: "project instructions,
	// checked into the codebase", "imported by CLAUDE.md", …
	Kind string
	// Content is the file's text.
	Content string
}

// LeftOut is a file found and not read, and why.
type LeftOut struct {
	// Path is the file as the user reads it: relative to the project,
	// or "~/…" in the home directory; as the import wrote it for an
	// import refused.
	Path string
	// Reason says why, in words.
	Reason string
}

// The kinds of memory files.
const (
	kindUser    = "the user's own instructions, for all projects"
	kindProject = "project instructions, checked into the codebase"
	kindAgents  = "project instructions for coding agents (AGENTS.md)"
	kindLocal   = "the user's own instructions for this project, not checked in"
)

// LoadMemory reads the memory of the project opts describe: the user's
// ~/.claude/CLAUDE.md, then, in every directory from the repository's root
// down to opts.Dir, CLAUDE.md, .claude/CLAUDE.md, AGENTS.md and
// CLAUDE.local.md (.offshoot/CLAUDE.md wins over .claude/CLAUDE.md), each
// followed by what it imports.
//
// A line's "@path" (outside code spans and code blocks) imports the file
// at path, relative to the importing file ("~/" for the home directory, in
// the user's files only): imports nest at most 5 deep, stay inside the
// project (the user's, inside the home directory), and a file already read
// is not read again, so cycles end. All the files together hold at most
// 256 KiB; a file that would pass that is left out, as are files that are
// not regular files or not text, and symbolic links that lead out of the
// project. Imports of files that do not exist are ignored, as Claude Code
// ignores them. LoadMemory never fails: what it could not read is in
// LeftOut.
func LoadMemory(opts Options) *Memory {
	l := &memoryLoader{seen: map[string]bool{}, mem: &Memory{}}
	if opts.HomeDir != "" {
		if home, err := filepath.Abs(opts.HomeDir); err == nil {
			l.home = home
			l.top(home, home, "~", []string{".offshoot/CLAUDE.md", ".claude/CLAUDE.md"}, kindUser)
		}
	}
	if opts.Dir == "" {
		return l.mem
	}
	dir, err := filepath.Abs(opts.Dir)
	if err != nil {
		l.leave(opts.Dir, fmt.Sprintf("the directory cannot be found (%v)", err))
		return l.mem
	}
	root := repositoryRoot(dir)
	var dirs []string
	for d := dir; ; d = filepath.Dir(d) {
		dirs = append(dirs, d)
		if d == root || filepath.Dir(d) == d {
			break
		}
	}
	for i := len(dirs) - 1; i >= 0; i-- {
		d := dirs[i]
		l.top(d, root, "", []string{"CLAUDE.md"}, kindProject)
		l.top(d, root, "", []string{".offshoot/CLAUDE.md", ".claude/CLAUDE.md"}, kindProject)
		l.top(d, root, "", []string{"AGENTS.md"}, kindAgents)
		l.top(d, root, "", []string{"CLAUDE.local.md"}, kindLocal)
	}
	return l.mem
}

// repositoryRoot returns the nearest directory from dir up that holds
// .git, or dir when none does.
func repositoryRoot(dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return dir
		}
	}
}

// memoryLoader reads memory files into mem, within the bounds.
type memoryLoader struct {
	mem   *Memory
	home  string          // absolute, "" without the user's files
	seen  map[string]bool // real paths read (or being read)
	bytes int
}

// leave records path as left out.
func (l *memoryLoader) leave(path, reason string) {
	l.mem.LeftOut = append(l.mem.LeftOut, LeftOut{Path: path, Reason: reason})
}

// top reads the first of names (relative to dir, slash-separated) that
// exists, as a memory file of kind inside root; the others that exist are
// left out, shadowed by it. prefix is how Name begins ("~" for the home).
func (l *memoryLoader) top(dir, root, prefix string, names []string, kind string) {
	chosen := ""
	for _, n := range names {
		p := filepath.Join(dir, filepath.FromSlash(n))
		if _, err := os.Lstat(p); err != nil {
			continue
		}
		if chosen != "" {
			l.leave(displayName(p, root, prefix), "shadowed by "+displayName(chosen, root, prefix)+", which offshoot reads instead")
			continue
		}
		chosen = p
		l.read(p, root, prefix, kind, 0)
	}
}

// read reads the memory file at path (inside root) and its imports.
func (l *memoryLoader) read(path, root, prefix, kind string, depth int) {
	name := displayName(path, root, prefix)
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		l.leave(name, fmt.Sprintf("its directory cannot be read (%v)", err))
		return
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			l.leave(name, fmt.Sprintf("cannot be read (%v)", err))
		} else if depth == 0 {
			l.leave(name, "a symbolic link to nothing")
		}
		return
	}
	if !inside(real, realRoot) {
		l.leave(name, "a symbolic link that leads out of "+where(prefix))
		return
	}
	if l.seen[real] {
		return // read already: a cycle, or a file imported twice
	}
	l.seen[real] = true
	data, err := regfile.Read(real, int64(maxMemoryBytes-l.bytes))
	var tooLarge *regfile.TooLargeError
	switch {
	case errors.As(err, &tooLarge):
		l.leave(name, fmt.Sprintf("it would take the memory past %s in all; shorten it, or import less", regfile.Size(maxMemoryBytes)))
		return
	case errors.Is(err, regfile.ErrNotRegular):
		l.leave(name, "not a regular file")
		return
	case err != nil:
		l.leave(name, fmt.Sprintf("cannot be read (%v)", err))
		return
	case textfile.Binary(data):
		l.leave(name, "not text")
		return
	}
	l.bytes += len(data)
	text, _ := frontmatter.Normalize(data)
	l.mem.Files = append(l.mem.Files, MemoryFile{Path: path, Name: name, Kind: kind, Content: strings.TrimSpace(text)})
	for _, imp := range imports(text) {
		target, ok := l.resolve(imp, filepath.Dir(path), prefix)
		if !ok {
			l.leave(imp, "imported by "+name+": outside "+where(prefix)+"; only files inside it are imported")
			continue
		}
		if depth+1 > maxImportDepth {
			if _, err := os.Lstat(target); err == nil {
				l.leave(displayName(target, root, prefix), fmt.Sprintf("imported by %s, more than %d imports deep", name, maxImportDepth))
			}
			continue
		}
		if _, err := os.Lstat(target); err != nil {
			continue // not a file: Claude Code ignores it too
		}
		if !inside(target, root) {
			l.leave(imp, "imported by "+name+": outside "+where(prefix)+"; only files inside it are imported")
			continue
		}
		l.read(target, root, prefix, "imported by "+name, depth+1)
	}
}

// resolve returns the file an import names, relative to dir: "~/…" is the
// home directory's, in the user's files only (prefix "~"), where root is
// the home.
func (l *memoryLoader) resolve(imp, dir, prefix string) (string, bool) {
	if rest, ok := strings.CutPrefix(imp, "~/"); ok {
		if prefix != "~" || l.home == "" {
			return "", false
		}
		return filepath.Join(l.home, filepath.FromSlash(rest)), true
	}
	if filepath.IsAbs(imp) {
		return filepath.Clean(imp), true
	}
	return filepath.Join(dir, filepath.FromSlash(imp)), true
}

// inside reports whether path is root or below it (both clean, absolute).
func inside(path, root string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// where names the tree imports stay in, for a message.
func where(prefix string) string {
	if prefix == "~" {
		return "the home directory"
	}
	return "the project"
}

// displayName is path relative to root, slash-separated, after prefix.
func displayName(path, root, prefix string) string {
	rel, err := filepath.Rel(root, path)
	if err != nil {
		return path
	}
	rel = filepath.ToSlash(rel)
	if prefix != "" {
		return prefix + "/" + rel
	}
	return rel
}

// importRE matches an import: "@" at the start of the text or after a
// space, then a path (a backslash escapes a space in it).
var importRE = regexp.MustCompile(`(?:^|\s)@((?:[^\s\\]|\\ )+)`)

// imports returns the paths text imports, in order, each once: the "@path"
// words outside fenced code blocks and code spans, trailing punctuation
// removed.
func imports(text string) []string {
	var out []string
	seen := map[string]bool{}
	fence := ""
	for _, line := range strings.Split(text, "\n") {
		t := strings.TrimSpace(line)
		if fence != "" {
			if strings.HasPrefix(t, fence) {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fence = t[:3]
			continue
		}
		for _, m := range importRE.FindAllStringSubmatchIndex(withoutCodeSpans(line), -1) {
			p := strings.ReplaceAll(line[m[2]:m[3]], `\ `, " ")
			p = strings.TrimRight(p, ".,;:!?)\"'")
			if p == "" || seen[p] {
				continue
			}
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}

// withoutCodeSpans returns line with the text of its code spans (between
// backticks) replaced by spaces, so that offsets stay those of line.
func withoutCodeSpans(line string) string {
	if !strings.Contains(line, "`") {
		return line
	}
	b := []byte(line)
	in := false
	for i, c := range b {
		switch {
		case c == '`':
			in = !in
		case in:
			b[i] = ' '
		}
	}
	return string(b)
}

// Text returns the memory as the main agent reads it: an opening line,
// then each file's content under a line naming it. It is "" when no file
// was read.
func (m *Memory) Text() string {
	if m == nil || len(m.Files) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("Codebase and user instructions are shown below. Follow them: they take precedence over the general guidance above.")
	for _, f := range m.Files {
		if f.Content == "" {
			continue
		}
		fmt.Fprintf(&b, "\n\nContents of %s (%s):\n\n%s", f.Name, f.Kind, f.Content)
	}
	return b.String()
}
