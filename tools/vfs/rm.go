package vfs

import (
	"context"
	"fmt"

	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/tools"
)

// removeParams are the arguments of rm.
type removeParams struct {
	// Path is what to remove.
	Path string `json:"path" jsonschema:"the file, or the directory with everything below it, to remove"`
}

// removeResult is what rm returns.
type removeResult struct {
	// Path is the canonical path removed.
	Path string `json:"path"`
	// FilesRemoved is how many files went: 1 for a file, all of those
	// below a directory.
	FilesRemoved int `json:"files_removed"`
}

func newRm(set session.Reducers) (tools.Tool, error) {
	return tools.New("rm",
		"Remove a file, or a directory with every file below it, from the virtual filesystem.",
		rm,
		tools.WithReducers(set), tools.WithState(workspace{}),
	)
}

func rm(_ context.Context, inv *tools.Invocation, p removeParams) (tools.Result[removeResult], error) {
	t, err := writableFiles(inv)
	if err != nil {
		return tools.Result[removeResult]{}, err
	}
	name, err := normalizePath(p.Path)
	if err != nil {
		return tools.Result[removeResult]{}, invalidArg("path", err)
	}
	ev := FileDeleted{Path: name}
	_, n, err := t.deleted(ev)
	if err != nil {
		return tools.Failed[removeResult](err.Error()), nil
	}
	return tools.OK(fmt.Sprintf("removed %s (%d %s)", name, n, plural(n, "file", "files")), removeResult{Path: name, FilesRemoved: n}).WithEvents(ev), nil
}
