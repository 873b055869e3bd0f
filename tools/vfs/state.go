package vfs

import (
	"context"

	"github.com/offshoot-dev/offshoot/session"
)

// InstallKey is the key under which the VFS reducers are installed on a
// session (see session.Install): once per session, shared by every VFS
// tool, carried by forks.
const InstallKey = "github.com/offshoot-dev/offshoot/tools/vfs"

// Files returns the session's files: the latest value of its Table slice,
// or an empty Table when it has none. It is one atomic load, never blocked
// by writers.
func Files(s *session.Session) Table {
	t, _ := session.Latest[Table](s)
	return t
}

// FilesOf returns the files held by a snapshot, or an empty Table.
func FilesOf(snap session.Snapshot) Table {
	t, _ := session.SliceOfSnapshot[Table](snap).Latest()
	return t
}

// Install registers the VFS reducers on s, once (under InstallKey). The
// tools do it themselves through their Install method; call Install to
// dispatch FileWritten or FileDeleted events to a session that has no VFS
// tools.
func Install(s *session.Session) error {
	return s.Install(InstallKey, register)
}

// register adds the reducers that fold FileWritten, FileDeleted and
// FilesSeeded into the session's Table slice, whose latest value is the
// current file table.
func register(s *session.Session) error {
	_ = RegisterNames(s.Registry()) // a program's own names win
	if err := session.Register(s, reduceWritten); err != nil {
		return err
	}
	if err := session.Register(s, reduceDeleted); err != nil {
		return err
	}
	return session.Register(s, reduceSeeded)
}

func reduceWritten(rc session.ReducerContext, sl session.Slice[Table], ev FileWritten) (session.Slice[Table], error) {
	cur, _ := sl.Latest()
	next, err := cur.written(ev, rc.Time)
	if err != nil {
		return sl, err
	}
	return session.ReplaceLatest(rc, sl, next)
}

func reduceDeleted(rc session.ReducerContext, sl session.Slice[Table], ev FileDeleted) (session.Slice[Table], error) {
	cur, _ := sl.Latest()
	next, _, err := cur.deleted(ev)
	if err != nil {
		return sl, err
	}
	return session.ReplaceLatest(rc, sl, next)
}

func reduceSeeded(rc session.ReducerContext, sl session.Slice[Table], ev FilesSeeded) (session.Slice[Table], error) {
	if sl.Len() > 0 {
		return sl, nil
	}
	return session.ReplaceLatest(rc, sl, ev.Files)
}

// seed installs the reducers on s and, when s has no VFS state yet and
// files is not empty, gives it files.
func seed(s *session.Session, files Table) error {
	if err := Install(s); err != nil {
		return err
	}
	if files.Len() == 0 || session.Len[Table](s) > 0 {
		return nil
	}
	return s.Dispatch(context.Background(), FilesSeeded{Files: files})
}
