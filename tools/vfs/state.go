package vfs

import (
	"github.com/offshoot-dev/offshoot/session"
)

// installKey is the key under which the VFS reducers are installed on a
// session (see session.Install): once per session, shared by every VFS
// tool, carried by forks.
const installKey = "github.com/offshoot-dev/offshoot/tools/vfs"

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

// Reducers returns what the VFS events need on a session: the reducers
// that fold FileWritten, FileDeleted and the seeding of files into the session's
// Table slice (whose latest value is the current file table), under
// installKey, and the names of the types. With files, a session that has no
// VFS state yet is seeded with them when the set is installed. The VFS
// tools declare it; install it yourself to dispatch VFS events to a
// session that has no VFS tools:
//
//	err := s.Install(ctx, vfs.Reducers(vfs.Table{}))
func Reducers(files Table) session.Reducers {
	return reducers(files, nil)
}

// reducers is Reducers, seeding the baseline of the mounts that gave the
// files too (when base is not nil).
func reducers(files Table, base *baseline) session.Reducers {
	set := session.Reducers{
		Key:   installKey,
		Rules: []session.Rule{session.On(reduceWritten), session.On(reduceDeleted), session.On(reduceSeeded), session.On(reduceBaseline)},
		Names: names,
	}
	if files.Len() > 0 || base != nil {
		set.Seed = []any{filesSeeded{Files: files, Baseline: base}}
	}
	return set
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

func reduceSeeded(rc session.ReducerContext, sl session.Slice[Table], ev filesSeeded) (session.Slice[Table], error) {
	if sl.Len() > 0 {
		return sl, nil
	}
	return session.ReplaceLatest(rc, sl, ev.Files)
}
