package sqlite

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/store"
)

func TestOpenCreates(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "a", "b ?#%&=")
	path := filepath.Join(dir, "sessions?.db")
	st, err := Open(context.Background(), path)
	require.NoError(t, err)
	defer st.Close()
	require.NoError(t, st.Create(ctx, store.Header{ID: "s"}))
	require.NoError(t, st.Append(ctx, "s", note(1, 1)))

	fi, err := os.Stat(path)
	require.NoError(t, err, "the file is not where it was asked for")
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	for _, suffix := range []string{"-wal", "-shm"} {
		fi, err := os.Stat(path + suffix)
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm(), suffix)
	}
	di, err := os.Stat(dir)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o700), di.Mode().Perm())

	var mode string
	var sync, fk, timeout int
	require.NoError(t, st.w.QueryRow("PRAGMA journal_mode").Scan(&mode))
	require.NoError(t, st.w.QueryRow("PRAGMA synchronous").Scan(&sync))
	require.NoError(t, st.r.QueryRow("PRAGMA foreign_keys").Scan(&fk))
	require.NoError(t, st.r.QueryRow("PRAGMA busy_timeout").Scan(&timeout))
	assert.Equal(t, "wal", mode)
	assert.Equal(t, 1, sync, "synchronous=NORMAL")
	assert.Equal(t, 1, fk)
	assert.Equal(t, int(busyTimeout.Milliseconds()), timeout)

	// A second Store of the file sees the first's writes.
	other, err := Open(context.Background(), path)
	require.NoError(t, err)
	defer other.Close()
	h, err := other.Header(ctx, "s")
	require.NoError(t, err)
	assert.Equal(t, uint64(1), h.Seq)
}

// openCase is a file Open must refuse, and what its error says.
type openCase struct {
	name  string
	setup func(t *testing.T, path string) // makes what is at path
	want  string
}

// refused checks that Open refuses every case's path, naming it.
func refused(t *testing.T, tests []openCase) {
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "sessions.db")
			tt.setup(t, path)
			st, err := Open(context.Background(), path)
			if err == nil {
				st.Close()
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			assert.Contains(t, err.Error(), path)
		})
	}
}

func TestOpenRefuses(t *testing.T) {
	refused(t, []openCase{
		{"a directory", func(t *testing.T, path string) { require.NoError(t, os.Mkdir(path, 0o700)) }, "is a directory, not a regular file"},
		{"a directory for the log", func(t *testing.T, path string) { require.NoError(t, os.Mkdir(path+"-wal", 0o700)) }, "-wal is a directory, not a regular file"},
		{"not a database", func(t *testing.T, path string) {
			require.NoError(t, os.WriteFile(path, []byte("these are not the pages you are looking for, repeated until a header's worth\n"), 0o600))
		}, "is not an SQLite database"},
		{"another program's database", func(t *testing.T, path string) {
			db, err := sql.Open("sqlite", path)
			require.NoError(t, err)
			defer db.Close()
			_, err = db.Exec("CREATE TABLE accounts (id INTEGER PRIMARY KEY)")
			require.NoError(t, err)
		}, "the database holds tables, but not this store's"},
		{"a newer schema", func(t *testing.T, path string) {
			st, err := Open(context.Background(), path)
			require.NoError(t, err)
			_, err = st.w.Exec("UPDATE schema_version SET version = 99")
			require.NoError(t, err)
			require.NoError(t, st.Close())
		}, "holds schema version 99, newer than this program's (3): open it with a newer version of offshoot"},
		{"a trigger of another's", func(t *testing.T, path string) {
			st, err := Open(context.Background(), path)
			require.NoError(t, err)
			_, err = st.w.Exec("CREATE TRIGGER slow AFTER INSERT ON batches BEGIN SELECT count(*) FROM sessions a, sessions b, sessions c; END")
			require.NoError(t, err)
			require.NoError(t, st.Close())
		}, `holds a trigger this store did not make ("slow"), which would run at every append`},
		{"its own trigger changed", func(t *testing.T, path string) {
			st, err := Open(context.Background(), path)
			require.NoError(t, err)
			_, err = st.w.Exec("DROP TRIGGER batches_advance; CREATE TRIGGER batches_advance AFTER INSERT ON batches BEGIN DELETE FROM sessions; END")
			require.NoError(t, err)
			require.NoError(t, st.Close())
		}, `holds a trigger this store did not make ("batches_advance")`},
		{"a trigger in a file of an older schema", func(t *testing.T, path string) {
			db, err := sql.Open("sqlite", path)
			require.NoError(t, err)
			defer db.Close()
			_, err = db.Exec(migrations[0] + "UPDATE schema_version SET version = 1; CREATE TRIGGER slow AFTER INSERT ON batches BEGIN SELECT 1; END")
			require.NoError(t, err)
		}, `holds a trigger this store did not make ("slow")`},
		{"a lost schema version", func(t *testing.T, path string) {
			st, err := Open(context.Background(), path)
			require.NoError(t, err)
			_, err = st.w.Exec("DELETE FROM schema_version")
			require.NoError(t, err)
			require.NoError(t, st.Close())
		}, "the store's schema version is missing (the file is damaged)"},
	})
	_, err := Open(context.Background(), "")
	require.ErrorContains(t, err, "the database path is empty")
}

// damageFile writes garbage over the headers of the file's last pages.
func damageFile(t *testing.T, path string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	require.NoError(t, err)
	defer f.Close()
	fi, err := f.Stat()
	require.NoError(t, err)
	const page = 4096
	pages := fi.Size() / page
	require.Greater(t, pages, int64(6))
	for _, p := range []int64{pages - 1, pages - 2} {
		_, err := f.WriteAt([]byte{0xff, 0xee, 0xdd, 0xcc, 0xbb, 0xaa, 0x99, 0x88}, p*page)
		require.NoError(t, err)
	}
}

// A file may come with a cloned repository, so every connection treats
// its schema as untrusted: its views and triggers may call only the
// functions SQLite deems harmless, and damaged cells are caught early.
func TestTheSchemaIsNotTrusted(t *testing.T) {
	st := openTemp(t)
	for _, db := range []*sql.DB{st.w, st.r, st.wal.db} {
		var trusted, check int
		require.NoError(t, db.QueryRow("PRAGMA trusted_schema").Scan(&trusted))
		require.NoError(t, db.QueryRow("PRAGMA cell_size_check").Scan(&check))
		assert.Zero(t, trusted)
		assert.Equal(t, 1, check)
	}
}

// How durable an append is is the DSN's to choose: synchronous=NORMAL by
// default (a killed process loses nothing; a power loss may lose the last
// appends), FULL or EXTRA when a power loss must not.
func TestOpenSynchronous(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name, options string
		want          int // PRAGMA synchronous: 1 NORMAL, 2 FULL, 3 EXTRA
		err           string
	}{
		{"the default", "", 1, ""},
		{"normal", "?_synchronous=NORMAL", 1, ""},
		{"full", "?_synchronous=FULL", 2, ""},
		{"full in lower case", "?_synchronous=full", 2, ""},
		{"extra", "?_synchronous=EXTRA", 3, ""},
		{"off is refused", "?_synchronous=OFF", 0, `_synchronous=OFF: the store keeps NORMAL, FULL or EXTRA`},
		{"an unknown option", "?_synchronous=FULL&_cache=shared", 0, `unknown option _cache; the options are _synchronous`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "sessions.db")
			st, err := Open(ctx, path+tt.options)
			if tt.err != "" {
				require.ErrorContains(t, err, tt.err)
				_, statErr := os.Stat(path)
				assert.True(t, os.IsNotExist(statErr), "a refused DSN makes no file")
				return
			}
			require.NoError(t, err)
			defer st.Close()
			for _, db := range []*sql.DB{st.w, st.wal.db} {
				var got int
				require.NoError(t, db.QueryRow("PRAGMA synchronous").Scan(&got))
				assert.Equal(t, tt.want, got)
			}
			require.NoError(t, st.Create(ctx, store.Header{ID: "s"}))
			_, err = os.Stat(path)
			require.NoError(t, err, "the options are not part of the file's name")
		})
	}
}
