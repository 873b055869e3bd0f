package cli

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/offshoot-dev/offshoot/internal/sqlitedsn"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/store"
	"github.com/offshoot-dev/offshoot/store/postgres"
	"github.com/offshoot-dev/offshoot/store/sqlite"
)

// SessionsPath is where, under the project directory, run and chat keep
// their sessions by default: a SQLite file.
const SessionsPath = ".offshoot/sessions.db"

// StoreFlags choose the store the sessions are kept in (--store,
// --no-store): the project's SQLite file by default.
type StoreFlags struct {
	// DSN is the store given with --store: a postgres:// or
	// postgresql:// URL for PostgreSQL (offshoot_schema=NAME picks the
	// schema), else a SQLite file's path, optionally followed by options
	// ("sessions.db?_synchronous=FULL"); empty for the project's file.
	DSN string
	// Off is set by --no-store: the session is kept in memory only.
	Off bool
}

// Add registers the flags on cmd, saying what they do for verb (such as
// "keep the session in").
func (f *StoreFlags) Add(cmd *cobra.Command, verb string) {
	fl := cmd.Flags()
	fl.StringVar(&f.DSN, "store", "", verb+" this store: a SQLite file (FILE?_synchronous=FULL to survive a power loss), or a postgres:// URL (default: "+SessionsPath+" in the project)")
	fl.BoolVar(&f.Off, "no-store", false, "keep no session on disk")
}

// Stored is a store opened by OpenStore, with what a person reads of it.
type Stored struct {
	store.Store
	// Where names the store as a person reads it, and as --store takes
	// it again: the file's path, shown with Env.Show, and the options
	// --store gave it, or the PostgreSQL URL without its password.
	Where string
}

// isPostgres reports whether dsn names a PostgreSQL server.
func isPostgres(dsn string) bool {
	l := strings.ToLower(dsn)
	return strings.HasPrefix(l, "postgres://") || strings.HasPrefix(l, "postgresql://")
}

// storeWhere returns the name of the store f picks (see Stored.Where),
// and its file's absolute path for SQLite ("" for PostgreSQL).
func (e *Env) storeWhere(f StoreFlags) (where, path string) {
	switch {
	case f.DSN == "":
		path = filepath.Join(e.ProjectDir, filepath.FromSlash(SessionsPath))
	case isPostgres(f.DSN):
		if u, err := url.Parse(f.DSN); err == nil {
			return Printable(u.Redacted()), ""
		}
		return "the PostgreSQL server of --store", ""
	default:
		path, options, err := e.sqliteDSN(f.DSN)
		if err != nil {
			return Printable(f.DSN), path
		}
		return Printable(e.Show(path) + options), path
	}
	return Printable(e.Show(path)), path
}

// StoreFile names the SQLite file of the store f picks as a person reads
// it (shown with Show, without the DSN's options), for "it does not
// exist"; the PostgreSQL URL without its password for PostgreSQL.
func (e *Env) StoreFile(f StoreFlags) string {
	where, path := e.storeWhere(f)
	if path == "" {
		return where
	}
	return Printable(e.Show(path))
}

// sqliteDSN splits --store's SQLite DSN into its file's absolute path (in
// the project when it is relative) and the options that follow it
// ("?_synchronous=FULL", or none), as store/sqlite reads them; an option
// it does not take is an error. On error, path is the whole DSN's.
func (e *Env) sqliteDSN(dsn string) (path, options string, err error) {
	file, _, err := sqlitedsn.Split(dsn)
	if err != nil {
		file = dsn
	}
	options = dsn[len(file):]
	if !filepath.IsAbs(file) {
		file = filepath.Join(e.ProjectDir, file)
	}
	return file, options, err
}

// OpenStore opens the store f picks; nil with --no-store. With existing,
// a SQLite file that is not there is not created: OpenStore returns nil
// and no error. An error says what to do.
func (e *Env) OpenStore(ctx context.Context, f StoreFlags, existing bool) (*Stored, error) {
	if f.Off {
		if f.DSN != "" {
			return nil, Usagef("--store and --no-store do not go together; give one or the other")
		}
		return nil, nil
	}
	where, path := e.storeWhere(f)
	if path == "" {
		st, err := postgres.Open(ctx, f.DSN)
		if err != nil {
			msg := strings.NewReplacer("\n\t", "; ", "\n", "; ").Replace(err.Error())
			return nil, Failf("cannot open the session store %s: %s; check the server and the URL, or run with --no-store", where, Printable(msg))
		}
		return &Stored{Store: st, Where: where}, nil
	}
	options := ""
	if f.DSN != "" {
		var err error
		if _, options, err = e.sqliteDSN(f.DSN); err != nil {
			return nil, Usagef("--store %s: %s; give a SQLite file's path, optionally followed by ?_synchronous=FULL (or NORMAL, EXTRA), or a postgres:// URL", where, Printable(err.Error()))
		}
	}
	if existing {
		if _, err := os.Lstat(path); errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
	}
	created := false
	if f.DSN == "" {
		if err := noLinks(path); err != nil {
			return nil, err
		}
		_, err := os.Lstat(path)
		created = errors.Is(err, os.ErrNotExist)
	}
	st, err := sqlite.Open(ctx, path+options)
	if err != nil {
		todo := "give another file with --store, or run with --no-store"
		if f.DSN == "" {
			todo = "move it away so that offshoot makes a new one, give another file with --store, or run with --no-store"
		}
		msg := Printable(strings.TrimPrefix(err.Error(), "store/sqlite: "))
		if f.DSN != "" {
			return nil, Usagef("--store %s: %s; %s", where, msg, todo)
		}
		return nil, Failf("cannot open the session store %s: %s; %s", where, msg, todo)
	}
	if f.DSN == "" {
		e.checkProjectStore(path, created)
	}
	return &Stored{Store: st, Where: where}, nil
}

// noLinks refuses a project's store whose file, folder or SQLite's files
// beside it are symbolic links: a cloned repository must not have the
// sessions, which hold the conversation and the files, written where it
// points.
func noLinks(path string) error {
	for _, p := range []string{filepath.Dir(path), path, path + "-wal", path + "-shm", path + "-journal"} {
		if info, err := os.Lstat(p); err == nil && info.Mode()&os.ModeSymlink != 0 {
			return Failf("cannot open the session store %s: %s is a symbolic link, and the project's sessions are kept in its own files only; remove the link so that offshoot makes a new file, give a file with --store, or run with --no-store",
				SessionsPath, Printable(p))
		}
	}
	return nil
}

// SessionReducers returns the reducer sets a session of run or chat is
// folded by — the main agent's tools' and the runner's — to open a stored
// session with journal.Journal.Open.
func SessionReducers() ([]session.Reducers, error) {
	ts, err := MainTools()
	if err != nil {
		return nil, err
	}
	return append(ts.Reducers(), runner.Reducers()), nil
}

// FindSession returns the header of the stored session id — a whole id,
// or the start of one that ShortID prints (see IDs.Resolve) — or, when id
// is empty, of the one owner made that was updated last (see OwnerTag); a
// missing one is a usage error that says how to list them. flag, when not
// empty, names the flag that gave the id, for the error.
func FindSession(ctx context.Context, st *Stored, id, owner, flag string) (store.Header, error) {
	if id == "" {
		if owner == "" {
			return store.Header{}, Usagef("%s: without an id it carries on your latest session, and your home directory keeps no owner token to tell yours; give the id (see 'offshoot sessions list')", flag)
		}
		hs, err := st.List(ctx, store.Query{Tags: map[string]string{OwnerTag: owner}, Limit: 1})
		if err != nil {
			return store.Header{}, Failf("cannot list the sessions of %s: %v", st.Where, err)
		}
		if len(hs) == 0 {
			return store.Header{}, Usagef("%s: no session of yours is stored in %s yet; start one with 'offshoot chat' or 'offshoot run', or give an id (see 'offshoot sessions list')", flag, st.Where)
		}
		return hs[0], nil
	}
	ids := IDs{
		Kind: "session",
		Flag: flag,
		Exists: func(id string) (bool, error) {
			_, err := st.Header(ctx, id)
			if errors.Is(err, store.ErrNotFound) {
				return false, nil
			}
			return err == nil, err
		},
		Starting: func(prefix string, limit int) ([]string, error) {
			hs, err := st.List(ctx, store.Query{IDPrefix: prefix, Limit: limit})
			ids := make([]string, len(hs))
			for i, h := range hs {
				ids[i] = h.ID
			}
			return ids, err
		},
	}
	whole, found, err := ids.Resolve(id)
	if err != nil {
		if _, ok := errors.AsType[*ExitError](err); ok {
			return store.Header{}, err
		}
		return store.Header{}, Failf("cannot read session %s from %s: %v", PrintableID(id), st.Where, err)
	}
	if found {
		id = whole
	}
	h, err := st.Header(ctx, id)
	switch {
	case errors.Is(err, store.ErrNotFound):
		if flag == "" {
			return h, Usagef("no session %s is stored in %s%s; list them with 'offshoot sessions list'", PrintableID(id), st.Where, Short(id))
		}
		return h, Usagef("%s %s: no session of that id is stored in %s%s; list them with 'offshoot sessions list'", flag, PrintableID(id), st.Where, Short(id))
	case err != nil:
		return h, Failf("cannot read session %s from %s: %v", PrintableID(id), st.Where, err)
	}
	return h, nil
}

// SessionLine is what run and chat say of their stored session on
// standard error, so that it can be resumed.
func SessionLine(command, id string, resumed bool, where string) string {
	what := "session"
	if resumed {
		what = "resuming session"
	}
	return fmt.Sprintf("offshoot %s: %s %s (stored in %s)", command, what, Printable(id), where)
}
