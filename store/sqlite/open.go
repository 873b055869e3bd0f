package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/offshoot-dev/offshoot/internal/regfile"
	"github.com/offshoot-dev/offshoot/internal/sqlitedsn"
	sqlite3 "modernc.org/sqlite"
	sqlite3lib "modernc.org/sqlite/lib"
)

// busyTimeout is how long a statement waits for a lock another connection
// (another process, most often) holds before it fails. A write
// transaction holds the lock for one batch, so waits are short; a caller
// that wants less cancels the context it passes.
const busyTimeout = 10 * time.Second

// Open opens the store in the SQLite database file dsn names, creating
// the file (mode 0600) and its directory (mode 0700) when they do not
// exist, and the store's tables when the file has none. Several processes
// may open the same file: their writes wait for each other, and Append's
// check of the expected seq holds across them. ctx bounds the opening.
//
// dsn is the file's path, optionally followed by options, as in
// "sessions.db?_synchronous=FULL". The one option is _synchronous, how
// durable an append is (see the package's Guarantees): NORMAL, the
// default — an append survives the process being killed, not a power
// loss —, FULL — it survives a power loss or an operating system crash
// too, for an fsync per append — or EXTRA. A path that has a "?" of its
// own is read as a path when what follows it is not options.
//
// path must name a regular file, or a symbolic link to one: a directory,
// a FIFO, a device or a socket is refused before anything opens it, and
// so are such files where SQLite keeps its own beside it (path-wal,
// path-shm, path-journal). A
// file that holds another program's tables, or the tables of a newer
// version of this package (a later schema), is refused too.
func Open(ctx context.Context, dsn string) (*Store, error) {
	path, sync, err := sqlitedsn.Split(dsn)
	if err != nil {
		return nil, fmt.Errorf("store/sqlite: %w", err)
	}
	if path == "" {
		return nil, errors.New("store/sqlite: the database path is empty")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("store/sqlite: the database path %s: %w", path, err)
	}
	if err := prepareFile(abs); err != nil {
		return nil, err
	}
	s := &Store{path: abs, now: time.Now}
	// Writes go through one connection, so that the goroutines of this
	// process queue in database/sql rather than in SQLite's busy handler;
	// BEGIN IMMEDIATE takes the file's write lock at the start of every
	// transaction, so that what a transaction read is still true when it
	// writes, whatever other processes do.
	s.w, err = sql.Open("sqlite", dsnOf(abs, "_txlock=immediate", "_synchronous="+sync,
		fmt.Sprintf("_pragma=wal_autocheckpoint(%d)", walBackstopPages)))
	if err != nil {
		return nil, fmt.Errorf("store/sqlite: opening %s: %w", abs, err)
	}
	s.w.SetMaxOpenConns(1)
	s.w.SetMaxIdleConns(1)
	s.w.SetConnMaxLifetime(0)
	if err := s.setup(ctx); err != nil {
		s.w.Close()
		return nil, err
	}
	if s.append, err = s.w.Prepare(appendSQL); err != nil {
		s.w.Close()
		return nil, fmt.Errorf("store/sqlite: preparing the statements of %s: %w", abs, err)
	}
	// Reads go through a pool of read-only connections: in WAL mode they
	// neither wait for the writer nor make it wait. The pool is not
	// bounded, so that a reader iterating Batches never waits for another.
	s.r, err = sql.Open("sqlite", dsnOf(abs, "_query_only=1"))
	if err != nil {
		s.w.Close()
		return nil, fmt.Errorf("store/sqlite: opening %s: %w", abs, err)
	}
	s.r.SetMaxIdleConns(max(2, runtime.GOMAXPROCS(0)))
	wal, err := sql.Open("sqlite", dsnOf(abs, "_synchronous="+sync))
	if err != nil {
		s.r.Close()
		s.w.Close()
		return nil, fmt.Errorf("store/sqlite: opening %s: %w", abs, err)
	}
	s.wal = newWALCheckpointer(wal)
	return s, nil
}

// dsnOf is the driver's name for the file at path with the settings every
// connection has and extra ones. The path goes in a file: URI, escaped, so
// that no character of it reads as a parameter. Every connection treats
// the file's schema as untrusted (it may have come with a cloned
// repository): its triggers and views may call only the functions SQLite
// deems harmless (trusted_schema off), and cells are checked as they are
// read (cell_size_check).
func dsnOf(path string, extra ...string) string {
	p := filepath.ToSlash(path)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // a Windows path, C:/…
	}
	name := "file:" + (&url.URL{Path: p}).EscapedPath() +
		fmt.Sprintf("?_busy_timeout=%d&_foreign_keys=1&_pragma=trusted_schema(0)&_pragma=cell_size_check(1)", busyTimeout.Milliseconds())
	for _, e := range extra {
		name += "&" + e
	}
	return name
}

// prepareFile makes sure that path names a regular file, creating it
// (and its directory) when nothing is there, and that the files SQLite
// keeps beside it (the write-ahead log and its index, a rollback journal)
// are regular files or not there yet: so that the driver never opens a
// FIFO (which would block) or a device.
func prepareFile(path string) error {
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return fmt.Errorf("store/sqlite: creating the directory of %s: %w", path, err)
		}
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		switch {
		case err == nil:
			f.Close()
		case !errors.Is(err, fs.ErrExist): // else another process made it
			return fmt.Errorf("store/sqlite: creating %s: %w", path, err)
		}
	}
	if err := regular(path, false); err != nil {
		return err
	}
	// SQLite names its files after the file a link leads to.
	names := []string{path}
	if real, err := filepath.EvalSymlinks(path); err == nil && real != path {
		names = append(names, real)
	}
	for _, name := range names {
		for _, suffix := range []string{"-wal", "-shm", "-journal"} {
			if err := regular(name+suffix, true); err != nil {
				return err
			}
		}
	}
	return nil
}

// regular returns an error unless path is a regular file or a symbolic
// link to one (or nothing at all, when missingOK).
func regular(path string, missingOK bool) error {
	fi, err := os.Lstat(path)
	switch {
	case missingOK && errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("store/sqlite: %w", err)
	case fi.Mode()&fs.ModeSymlink != 0:
		target, err := os.Stat(path)
		if err != nil {
			return fmt.Errorf("store/sqlite: %s is a symbolic link to nothing usable: %w", path, err)
		}
		if !target.Mode().IsRegular() {
			return fmt.Errorf("store/sqlite: %s is a symbolic link to %s, not to a regular file", path, regfile.Kind(target.Mode()))
		}
	case !fi.Mode().IsRegular():
		return fmt.Errorf("store/sqlite: %s is %s, not a regular file", path, regfile.Kind(fi.Mode()))
	}
	return nil
}

// openError explains an error of the driver on opening or setting up the
// file.
func openError(path string, err error) error {
	var se *sqlite3.Error
	if errors.As(err, &se) && se.Code()&0xff == sqlite3lib.SQLITE_NOTADB {
		return fmt.Errorf("store/sqlite: %s is not an SQLite database (or it is encrypted or damaged): %w", path, err)
	}
	return fmt.Errorf("store/sqlite: opening %s: %w", path, err)
}
