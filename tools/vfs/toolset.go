package vfs

import (
	"errors"
	"fmt"

	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/tools"
)

// Options configure the VFS tools (Tools) and section (Section). The zero
// value gives an empty filesystem.
type Options struct {
	// Title is the title of the section Section builds ("Virtual Filesystem" when
	// empty); the section key is derived from it unless prompt.WithKey
	// gives one.
	Title string
	// Mounts are host directories (or files) copied into the
	// VFS of every session the tools are installed on that has no files
	// yet. They are read once, when Tools or Section is called.
	Mounts []Mount
	// AllowedRoots are the host directories mounts may read from. Every
	// mount's host path must resolve, symlinks evaluated, inside one of
	// them; nothing outside them is ever read. Required when there are
	// mounts.
	AllowedRoots []string
}

// Tools returns the seven VFS tools — ls, read_file, write_file,
// edit_file, glob, grep, rm — in that order. They keep no state: each call
// reads the files of its invocation's session and returns FileWritten or
// FileDeleted events for the session's reducers to apply. Each tool
// declares those reducers (Reducers: under installKey, seeded with the
// mounted files when opts has mounts), and the runner installs them on the
// session it evaluates against. Mounts are loaded here; a mount that cannot be loaded
// is an error.
func Tools(opts Options) (tools.Toolset, error) {
	mounted, base, err := mountAll(opts.AllowedRoots, opts.Mounts)
	if err != nil {
		return tools.Toolset{}, err
	}
	set := reducers(mounted, base)
	var list []tools.Tool
	var errs []error
	for _, build := range []func(session.Reducers) (tools.Tool, error){newLs, newReadFile, newWriteFile, newEditFile, newGlob, newGrep, newRm} {
		t, err := build(set)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		list = append(list, t)
	}
	if len(errs) > 0 {
		return tools.Toolset{}, errors.Join(errs...)
	}
	return tools.NewToolset(list...)
}

// errNoSession is the error of a call made without a session.
var errNoSession = errors.New("the call has no session; the VFS tools read and change the files of the session in their invocation")

// filesOf returns the files of the call's session.
func filesOf(inv *tools.Invocation) (Table, error) {
	if inv == nil || inv.Session == nil {
		return Table{}, errNoSession
	}
	return Files(inv.Session), nil
}

// writableFiles is filesOf for tools that return events: the session must
// have the VFS reducers, or the events would not be applied.
func writableFiles(inv *tools.Invocation) (Table, error) {
	t, err := filesOf(inv)
	if err != nil {
		return t, err
	}
	if !inv.Session.Installed(installKey) {
		return t, fmt.Errorf("the VFS tools are not installed on session %s; install the toolset on the session (tools.Toolset.Install) before calling them", inv.Session.ID())
	}
	return t, nil
}
