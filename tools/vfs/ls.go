package vfs

import (
	"context"
	"fmt"

	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/tools"
)

// maxListEntries is the most entries ls returns.
const maxListEntries = 1000

// listParams are the arguments of ls.
type listParams struct {
	// Path is the directory to list (the root when empty).
	Path string `json:"path,omitempty" jsonschema:"the directory to list; empty or / for the root"`
}

// listResult is what ls returns.
type listResult struct {
	// Path is the canonical path of the directory listed ("" for the
	// root).
	Path string `json:"path"`
	// Entries are the directory's files and subdirectories in path order.
	Entries []Entry `json:"entries"`
	// Truncated is set when the directory has more than 1,000
	// entries; Entries are then the first ones.
	Truncated bool `json:"truncated,omitempty"`
}

func newLs(set session.Reducers) (tools.Tool, error) {
	return tools.New("ls",
		"List the files and subdirectories directly inside a directory of the virtual filesystem, sorted by path, with sizes, versions and update times.",
		ls,
		tools.ConcurrentSafe(),
		tools.WithReducers(set), tools.WithState(workspace{}),
	)
}

func ls(_ context.Context, inv *tools.Invocation, p listParams) (tools.Result[listResult], error) {
	t, err := filesOf(inv)
	if err != nil {
		return tools.Result[listResult]{}, err
	}
	dir, err := normalizeDir(p.Path)
	if err != nil {
		return tools.Result[listResult]{}, invalidArg("path", err)
	}
	if _, ok := t.get(dir); ok {
		return tools.Failed[listResult]((&opError{Op: "ls", Path: dir, Err: errNotDirectory, Hint: "it is a file; read it with read_file"}).Error()), nil
	}
	if !t.IsDir(dir) {
		return tools.Failed[listResult]((&opError{Op: "ls", Path: dir, Err: errNotFound, Hint: "list its parent with ls, or find files with glob"}).Error()), nil
	}
	entries := t.List(dir)
	name := dir
	if name == "" {
		name = "/"
	}
	res := listResult{Path: dir, Entries: entries}
	msg := fmt.Sprintf("%s: %d %s", name, len(entries), plural(len(entries), "entry", "entries"))
	if len(entries) > maxListEntries {
		res.Entries, res.Truncated = entries[:maxListEntries:maxListEntries], true
		msg = fmt.Sprintf("%s: the first %d of %d entries; list a subdirectory, or find files with glob", name, maxListEntries, len(entries))
	}
	return tools.OK(msg, res), nil
}

// plural returns one or many according to n.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
