package agents

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/offshoot-dev/offshoot/internal/regfile"
)

// maxFileSize is the largest agent or config file read.
const maxFileSize = 1 << 20

// parseMarkdown reads an agent file: YAML frontmatter between --- lines,
// then the system prompt. It returns nil for a file without frontmatter
// (a README beside the agents), with the warning saying so in skip.
func parseMarkdown(path string, data []byte, src Source) (d *draft, skip *Diagnostic) {
	d = &draft{path: path, line: 1, def: Definition{Source: src, Path: path}}
	text, replaced := normalize(data)
	if replaced {
		d.warn(0, "", "the file is not valid UTF-8; its invalid bytes were replaced")
	}
	doc, serr := split(text)
	if serr != nil {
		if serr.notAgent {
			return nil, &Diagnostic{Path: path, Line: serr.line, Message: serr.message + "; the file is skipped"}
		}
		d.fail(serr.line, "", serr.message)
		d.unreadable = true
		return d, nil
	}
	d.line = doc.frontLine - 1
	m, strictErr, ignored := parseFront(doc.front, doc.frontLine)
	if strictErr != nil {
		line, msg := yamlProblem(strictErr, doc.frontLine)
		d.warn(line, "", fmt.Sprintf("the frontmatter is not valid YAML (%s); it was read line by line instead. To make it valid, quote values that contain \": \" and indent with spaces", msg))
	}
	switch len(ignored) {
	case 0:
	case 1:
		d.warn(ignored[0], "", "this line is not a key: value line and is ignored")
	default:
		d.warn(ignored[0], "", fmt.Sprintf("this line and %d more before the first key are not key: value lines and are ignored", len(ignored)-1))
	}
	decodeFields(m, d)
	if doc.body != "" {
		d.def.Prompt = doc.body
	}
	return d, nil
}

// readLimited reads the file at path, refusing files over maxFileSize.
func readLimited(path string) ([]byte, error) {
	f, err := regfile.Open(path) // never a FIFO or a device
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxFileSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxFileSize {
		return nil, fmt.Errorf("the file is larger than %d bytes; an agent file holds one agent's frontmatter and prompt", maxFileSize)
	}
	return data, nil
}

// scanDir reads the agent files (*.md, not hidden) of dir in sorted order.
// A missing directory holds no agents; other problems are diagnostics.
func scanDir(dir string, src Source) (drafts []*draft, errs, warns []*Diagnostic) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil, nil
		}
		return nil, []*Diagnostic{{Path: dir, Message: fmt.Sprintf("cannot read the agents directory: %v", err)}}, nil
	}
	for _, e := range entries { // sorted by name
		name := e.Name()
		if strings.HasPrefix(name, ".") || !strings.EqualFold(filepath.Ext(name), ".md") {
			continue
		}
		p := filepath.Join(dir, name)
		info, err := os.Stat(p)
		switch {
		case err != nil && errors.Is(err, fs.ErrNotExist):
			warns = append(warns, &Diagnostic{Path: p, Message: "a symbolic link to nothing: skipped"})
			continue
		case err != nil:
			warns = append(warns, &Diagnostic{Path: p, Message: fmt.Sprintf("cannot be read (%v): skipped; a symbolic link that leads back to itself does this", err)})
			continue
		case info.IsDir():
			continue
		}
		data, err := readLimited(p)
		if err != nil {
			errs = append(errs, &Diagnostic{Path: p, Message: fmt.Sprintf("cannot read the agent file: %v", err)})
			continue
		}
		d, skip := parseMarkdown(p, data, src)
		if skip != nil {
			warns = append(warns, skip)
			continue
		}
		drafts = append(drafts, d)
	}
	return drafts, errs, warns
}
