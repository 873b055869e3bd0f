package runcmd

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/cli"
	"github.com/offshoot-dev/offshoot/store"
	"github.com/offshoot-dev/offshoot/store/sqlite"
)

// A store file with damaged pages fails the run (exit 1), saying what to
// do, and no session is left behind in it.
func TestRunOnADamagedStore(t *testing.T) {
	files := map[string]string{}
	for i := range 6 {
		files[fmt.Sprintf("f%d.txt", i)] = strings.Repeat(fmt.Sprintf("line %d of a file\n", i), 1500)
	}
	f := newFixture(t, files)
	f.script(t, `{"turns": [{"text": "Hello there.", "repeat": true}]}`)
	db := filepath.Join(t.TempDir(), "sessions.db")
	for range 2 {
		require.NoError(t, f.run(t, context.Background(), &run{task: "Say hello.", flags: cli.AgentFlags{Store: cli.StoreFlags{DSN: db}}}))
	}
	before := sessionIDs(t, db)
	require.Len(t, before, 2)
	damagePages(t, db)

	err := f.run(t, context.Background(), &run{task: "Say hello.", flags: cli.AgentFlags{Store: cli.StoreFlags{DSN: db}}})
	require.Error(t, err)
	assert.Equal(t, cli.ExitFailed, code(err), err.Error())
	for _, want := range []string{"offshoot sessions list", "offshoot sessions rm", "--no-store"} {
		assert.Contains(t, err.Error(), want)
	}
	assert.NotContains(t, err.Error(), "give a smaller directory")
	assert.Equal(t, before, sessionIDs(t, db), "a session was left behind")
}

// sessionIDs lists the ids of the sessions stored in the file at path.
func sessionIDs(t *testing.T, path string) []string {
	t.Helper()
	st, err := sqlite.Open(context.Background(), path)
	require.NoError(t, err)
	defer st.Close()
	hs, err := st.List(context.Background(), store.Query{})
	require.NoError(t, err)
	var ids []string
	for _, h := range hs {
		ids = append(ids, h.ID)
	}
	return ids
}

// damagePages writes garbage over the headers of the file's last pages,
// as a failing disk does.
func damagePages(t *testing.T, path string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	require.NoError(t, err)
	defer f.Close()
	fi, err := f.Stat()
	require.NoError(t, err)
	const page = 4096
	pages := fi.Size() / page
	require.Greater(t, pages, int64(6))
	for _, p := range []int64{pages - 1, pages - 2, pages - 3} {
		_, err := f.WriteAt([]byte{0xff, 0xee, 0xdd, 0xcc, 0xbb, 0xaa, 0x99, 0x88}, p*page)
		require.NoError(t, err)
	}
}
