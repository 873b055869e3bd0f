package vfs

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/tools"
)

// writeParams are the arguments of write_file.
type writeParams struct {
	// FilePath is the file to create.
	FilePath string `json:"file_path" jsonschema:"the file to create, such as docs/notes.md"`
	// Content is the file's text.
	Content string `json:"content" jsonschema:"the whole text of the file, at most 48000 characters"`
}

// writeResult is what write_file and edit_file return.
type writeResult struct {
	// Path is the file's canonical path.
	Path string `json:"path"`
	// Version is the file's version after the write.
	Version int `json:"version"`
	// SizeBytes is the size of the new content.
	SizeBytes int `json:"size_bytes"`
	// Replacements is how many occurrences edit_file replaced (0 for
	// write_file, and then left out).
	Replacements int `json:"replacements,omitempty"`
}

// editParams are the arguments of edit_file.
type editParams struct {
	// FilePath is the file to edit.
	FilePath string `json:"file_path" jsonschema:"the file to edit"`
	// OldString is the exact text to replace.
	OldString string `json:"old_string" validate:"required" jsonschema:"the exact text to replace; it must occur once unless replace_all is set"`
	// NewString replaces it.
	NewString string `json:"new_string" jsonschema:"the text to put in its place"`
	// ReplaceAll replaces every occurrence instead of exactly one.
	ReplaceAll bool `json:"replace_all,omitempty" jsonschema:"replace every occurrence instead of exactly one"`
}

func newWriteFile(set session.Reducers) (tools.Tool, error) {
	return tools.New("write_file",
		"Create a new file in the virtual filesystem with the given content (UTF-8 text, at most 48000 characters). It fails when the file exists: change existing files with edit_file.",
		writeFile,
		tools.WithReducers(set), tools.WithState(workspace{}),
	)
}

func newEditFile(set session.Reducers) (tools.Tool, error) {
	return tools.New("edit_file",
		"Replace text in an existing file of the virtual filesystem: old_string must occur exactly once, or set replace_all to replace every occurrence. Each edit raises the file's version by one.",
		editFile,
		tools.WithReducers(set), tools.WithState(workspace{}),
	)
}

func writeFile(_ context.Context, inv *tools.Invocation, p writeParams) (tools.Result[writeResult], error) {
	t, err := writableFiles(inv)
	if err != nil {
		return tools.Result[writeResult]{}, err
	}
	name, err := normalizePath(p.FilePath)
	if err != nil {
		return tools.Result[writeResult]{}, invalidArg("file_path", err)
	}
	if _, ok := t.get(name); ok {
		return tools.Failed[writeResult]((&opError{Op: "write", Path: name, Err: errExists, Hint: "use edit_file to change it, or rm it first to start over"}).Error()), nil
	}
	ev := FileWritten{Path: name, Content: p.Content, Version: 1}
	if _, err := t.written(ev, time.Time{}); err != nil {
		return tools.Failed[writeResult](err.Error()), nil
	}
	res := writeResult{Path: name, Version: 1, SizeBytes: len(p.Content)}
	return tools.OK(fmt.Sprintf("created %s (%d bytes, version 1)", name, len(p.Content)), res).WithEvents(ev), nil
}

func editFile(_ context.Context, inv *tools.Invocation, p editParams) (tools.Result[writeResult], error) {
	t, err := writableFiles(inv)
	if err != nil {
		return tools.Result[writeResult]{}, err
	}
	name, err := normalizePath(p.FilePath)
	if err != nil {
		return tools.Result[writeResult]{}, invalidArg("file_path", err)
	}
	f, ok := t.get(name)
	if !ok {
		e := &opError{Op: "edit", Path: name, Err: errNotFound, Hint: "create it with write_file"}
		if t.IsDir(name) {
			e = &opError{Op: "edit", Path: name, Err: errIsDirectory, Hint: "edit a file inside it"}
		}
		return tools.Failed[writeResult](e.Error()), nil
	}
	n := strings.Count(f.Content, p.OldString)
	switch {
	case n == 0:
		return tools.Failed[writeResult](fmt.Sprintf("edit %s: old_string was not found (0 matches); read the file and copy the text exactly, whitespace included", name)), nil
	case n > 1 && !p.ReplaceAll:
		return tools.Failed[writeResult](fmt.Sprintf("edit %s: old_string occurs %d times; include more of the surrounding text so that it matches once, or set replace_all to replace all %d", name, n, n)), nil
	}
	if err := checkEditSize(name, f.Content, p, n); err != nil {
		return tools.Failed[writeResult](err.Error()), nil
	}
	content := strings.Replace(f.Content, p.OldString, p.NewString, 1)
	if p.ReplaceAll {
		content = strings.ReplaceAll(f.Content, p.OldString, p.NewString)
	}
	ev := FileWritten{Path: name, Content: content, Version: f.Version + 1}
	if err := checkContent("edit", name, content); err != nil {
		return tools.Failed[writeResult](err.Error()), nil
	}
	res := writeResult{Path: name, Version: ev.Version, SizeBytes: len(content), Replacements: n}
	return tools.OK(fmt.Sprintf("edited %s: %d %s, now version %d", name, n, plural(n, "replacement", "replacements"), ev.Version), res).WithEvents(ev), nil
}

// checkEditSize refuses an edit whose result would be longer than a file
// may be, before the result is built: replacing n occurrences of old by
// new (both valid UTF-8, so every match starts on a character) changes
// the length by n × (len(new) − len(old)) characters. Without this check
// one small call replacing every character of a full file by 2 KB would
// allocate about 100 MB before being refused.
func checkEditSize(name, content string, p editParams, matches int) error {
	replaced := 1
	hint := "shorten new_string, or split the file"
	if p.ReplaceAll {
		replaced = matches
		hint = "replace fewer occurrences at a time, or split the file"
	}
	growth := utf8.RuneCountInString(p.NewString) - utf8.RuneCountInString(p.OldString)
	size := utf8.RuneCountInString(content) + replaced*growth
	if size <= maxContentChars {
		return nil
	}
	return &opError{Op: "edit", Path: name, Err: errContent, Hint: fmt.Sprintf("the result would be %d characters long; a file holds at most %d, so %s", size, maxContentChars, hint)}
}
