package vfs

import (
	"context"
	"fmt"
	"iter"
	"strconv"
	"strings"

	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/tools"
)

// maxReadLines is the most lines read_file returns at once (its default
// limit).
const maxReadLines = 2000

// readParams are the arguments of read_file.
type readParams struct {
	// FilePath is the file to read.
	FilePath string `json:"file_path" jsonschema:"the file to read, such as docs/notes.md"`
	// Offset is how many lines to skip.
	Offset int `json:"offset,omitempty" validate:"min=0" jsonschema:"how many lines to skip from the start"`
	// Limit is the most lines to return (1 to 2,000).
	Limit int `json:"limit,omitempty" validate:"min=1,max=2000" jsonschema:"the most lines to return"`
}

// readResult is what read_file returns.
type readResult struct {
	// Path is the file's canonical path.
	Path string `json:"path"`
	// Content holds the lines read, each as "%4d | text" with its 1-based
	// line number, joined by newlines.
	Content string `json:"content"`
	// Offset is the offset the call used.
	Offset int `json:"offset"`
	// Limit is the limit the call used.
	Limit int `json:"limit"`
	// TotalLines is the number of lines in the file (a final newline does
	// not start another).
	TotalLines int `json:"total_lines"`
}

func newReadFile(set session.Reducers) (tools.Tool, error) {
	return tools.New("read_file",
		"Read a file of the virtual filesystem. Lines come numbered as '   1 | text'; use offset and limit to page through long files.",
		readFile,
		tools.WithDefaults(readParams{Limit: maxReadLines}),
		tools.ConcurrentSafe(),
		tools.WithReducers(set), tools.WithState(workspace{}),
	)
}

func readFile(_ context.Context, inv *tools.Invocation, p readParams) (tools.Result[readResult], error) {
	t, err := filesOf(inv)
	if err != nil {
		return tools.Result[readResult]{}, err
	}
	name, err := normalizePath(p.FilePath)
	if err != nil {
		return tools.Result[readResult]{}, invalidArg("file_path", err)
	}
	f, ok := t.get(name)
	if !ok {
		e := &opError{Op: "read", Path: name, Err: errNotFound, Hint: "list the directory with ls or search with glob"}
		if t.IsDir(name) {
			e = &opError{Op: "read", Path: name, Err: errIsDirectory, Hint: "list it with ls"}
		}
		return tools.Failed[readResult](e.Error()), nil
	}
	total := countLines(f.Content)
	if p.Offset > 0 && p.Offset >= total {
		return tools.Failed[readResult](fmt.Sprintf("read %s: offset %d is past the end of the file, which has %d %s; use an offset below %d",
			name, p.Offset, total, plural(total, "line", "lines"), max(total, 1))), nil
	}
	var b strings.Builder
	n := 0
	for i, line := range lines(f.Content) {
		if i < p.Offset {
			continue
		}
		if n == p.Limit {
			break
		}
		if n > 0 {
			b.WriteByte('\n')
		}
		writeNumbered(&b, i+1, line)
		n++
	}
	msg := fmt.Sprintf("%s: lines %d-%d of %d", name, p.Offset+1, p.Offset+n, total)
	if n == 0 {
		msg = name + ": the file is empty"
	}
	return tools.OK(msg, readResult{Path: name, Content: b.String(), Offset: p.Offset, Limit: p.Limit, TotalLines: total}), nil
}

// writeNumbered writes "%4d | line" without fmt.
func writeNumbered(b *strings.Builder, n int, line string) {
	var buf [20]byte
	num := strconv.AppendInt(buf[:0], int64(n), 10)
	for range 4 - len(num) {
		b.WriteByte(' ')
	}
	b.Write(num)
	b.WriteString(" | ")
	b.WriteString(line)
}

// countLines counts the lines of s: its newlines, plus one when the last
// line has no newline.
func countLines(s string) int {
	n := strings.Count(s, "\n")
	if s != "" && s[len(s)-1] != '\n' {
		n++
	}
	return n
}

// lines yields the lines of s with their 0-based index, without their
// newlines; a final newline does not start another line.
func lines(s string) iter.Seq2[int, string] {
	return func(yield func(int, string) bool) {
		for i := 0; s != ""; i++ {
			line, rest, _ := strings.Cut(s, "\n")
			if !yield(i, line) {
				return
			}
			s = rest
		}
	}
}
