package cli

import (
	"bytes"
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing/format/index"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// writeIndex writes an index of git tracking names to the repository at
// root.
func writeIndex(t *testing.T, root string, version uint32, names ...string) {
	t.Helper()
	idx := &index.Index{Version: version}
	for _, n := range names {
		idx.Entries = append(idx.Entries, &index.Entry{Name: n, Mode: 0o100644})
	}
	var buf bytes.Buffer
	require.NoError(t, index.NewEncoder(&buf).Encode(idx))
	require.NoError(t, os.MkdirAll(filepath.Join(root, ".git"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, ".git", "index"), buf.Bytes(), 0o644))
}

func TestGitTracked(t *testing.T) {
	store := filepath.FromSlash(SessionsPath)
	tests := []struct {
		name              string
		setup             func(t *testing.T, root string) (project string)
		tracked, knowable bool
	}{
		{"tracked", func(t *testing.T, root string) string {
			writeIndex(t, root, 2, "README.md", SessionsPath)
			return root
		}, true, true},
		{"tracked, index version 4", func(t *testing.T, root string) string {
			writeIndex(t, root, 4, ".offshoot/config.json", SessionsPath)
			return root
		}, true, true},
		{"not tracked", func(t *testing.T, root string) string {
			writeIndex(t, root, 2, "README.md", ".offshoot/sessions.db.bak")
			return root
		}, false, true},
		{"a project in a subdirectory", func(t *testing.T, root string) string {
			writeIndex(t, root, 3, "sub/"+SessionsPath)
			return filepath.Join(root, "sub")
		}, true, true},
		{"a worktree's .git file", func(t *testing.T, root string) string {
			gitDir := filepath.Join(root, "elsewhere")
			writeIndex(t, gitDir, 2, SessionsPath)
			project := filepath.Join(root, "wt")
			require.NoError(t, os.MkdirAll(project, 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(project, ".git"), []byte("gitdir: ../elsewhere/.git\n"), 0o644))
			return project
		}, true, true},
		{"no repository", func(t *testing.T, root string) string { return root }, false, false},
		{"garbage", func(t *testing.T, root string) string {
			require.NoError(t, os.MkdirAll(filepath.Join(root, ".git"), 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(root, ".git", "index"), []byte("DIRC\x00\x00\x00\x02\x00\x00\x00\x05garbage"), 0o644))
			return root
		}, false, false},
		{"an entry count the file cannot hold", func(t *testing.T, root string) string {
			writeIndex(t, root, 2, SessionsPath)
			path := filepath.Join(root, ".git", "index")
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			binary.BigEndian.PutUint32(data[8:12], 0xffffffff)
			require.NoError(t, os.WriteFile(path, data, 0o644))
			return root
		}, false, false},
		{"version 4 paths that grow at every entry", func(t *testing.T, root string) string {
			names := make([]string, maxIndexEntriesV4+1)
			for i := range names {
				names[i] = strings.Repeat("a", i+1)
			}
			writeIndex(t, root, 4, names...)
			return root
		}, false, false},
		{"too large", func(t *testing.T, root string) string {
			require.NoError(t, os.MkdirAll(filepath.Join(root, ".git"), 0o755))
			f, err := os.Create(filepath.Join(root, ".git", "index"))
			require.NoError(t, err)
			require.NoError(t, f.Truncate(maxIndexBytes+1))
			require.NoError(t, f.Close())
			return root
		}, false, false},
		{"a directory", func(t *testing.T, root string) string {
			require.NoError(t, os.MkdirAll(filepath.Join(root, ".git", "index"), 0o755))
			return root
		}, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			project := tt.setup(t, t.TempDir())
			tracked, ok := gitTracked(filepath.Join(project, store))
			assert.Equal(t, tt.knowable, ok, "known")
			assert.Equal(t, tt.tracked, tracked, "tracked")
		})
	}
}

// A FIFO where the index should be is not opened for reading (which would
// wait for a writer for ever).
func TestGitTrackedFIFO(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no FIFOs")
	}
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, ".git"), 0o755))
	require.NoError(t, syscall.Mkfifo(filepath.Join(root, ".git", "index"), 0o644))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a watchdog

	defer cancel()
	done := make(chan bool)
	go func() {
		_, ok := gitTracked(filepath.Join(root, filepath.FromSlash(SessionsPath)))
		done <- ok
	}()
	select {
	case ok := <-done:
		assert.False(t, ok)
	case <-ctx.Done():
		t.Fatal("reading a FIFO index hung")
	}
}

// The project's store: offshoot writes .offshoot/.gitignore when it makes
// the store, never over a file there, and warns when git tracks it.
func TestProjectStoreAndGit(t *testing.T) {
	ctx := context.Background()
	t.Run("a new store is ignored", func(t *testing.T) {
		e := approvalEnv(t, "")
		st, err := e.OpenStore(ctx, StoreFlags{}, false)
		require.NoError(t, err)
		require.NoError(t, st.Close())
		data, err := os.ReadFile(filepath.Join(e.ProjectDir, ".offshoot", ".gitignore"))
		require.NoError(t, err)
		for _, name := range []string{"sessions.db", "sessions.db-wal", "sessions.db-shm", "sessions.db-journal"} {
			assert.Contains(t, strings.Split(string(data), "\n"), name)
		}
		assert.Empty(t, e.Stderr.(*bytes.Buffer).String())
	})
	t.Run("the user's .gitignore is kept", func(t *testing.T) {
		e := approvalEnv(t, "")
		ignore := filepath.Join(e.ProjectDir, ".offshoot", ".gitignore")
		require.NoError(t, os.MkdirAll(filepath.Dir(ignore), 0o755))
		require.NoError(t, os.WriteFile(ignore, []byte("mine\n"), 0o644))
		st, err := e.OpenStore(ctx, StoreFlags{}, false)
		require.NoError(t, err)
		require.NoError(t, st.Close())
		data, err := os.ReadFile(ignore)
		require.NoError(t, err)
		assert.Equal(t, "mine\n", string(data))
	})
	t.Run("a link is not followed", func(t *testing.T) {
		if runtime.GOOS == "windows" {
			t.Skip("symbolic links need privileges")
		}
		e := approvalEnv(t, "")
		target := filepath.Join(t.TempDir(), "target")
		ignore := filepath.Join(e.ProjectDir, ".offshoot", ".gitignore")
		require.NoError(t, os.MkdirAll(filepath.Dir(ignore), 0o755))
		require.NoError(t, os.Symlink(target, ignore))
		st, err := e.OpenStore(ctx, StoreFlags{}, false)
		require.NoError(t, err)
		require.NoError(t, st.Close())
		_, err = os.Lstat(target)
		assert.True(t, os.IsNotExist(err), "nothing was written where the link points")
	})
	t.Run("a tracked store is named", func(t *testing.T) {
		e := approvalEnv(t, "")
		writeIndex(t, e.ProjectDir, 2, SessionsPath)
		st, err := e.OpenStore(ctx, StoreFlags{}, false)
		require.NoError(t, err)
		require.NoError(t, st.Close())
		stderr := e.Stderr.(*bytes.Buffer).String()
		assert.Contains(t, stderr, ".offshoot/sessions.db is tracked by git")
		assert.Contains(t, stderr, "git rm --cached .offshoot/sessions.db")
	})
	t.Run("another store is not the project's", func(t *testing.T) {
		e := approvalEnv(t, "")
		writeIndex(t, e.ProjectDir, 2, "other.db")
		st, err := e.OpenStore(ctx, StoreFlags{DSN: "other.db"}, false)
		require.NoError(t, err)
		require.NoError(t, st.Close())
		assert.Empty(t, e.Stderr.(*bytes.Buffer).String())
		_, err = os.Lstat(filepath.Join(e.ProjectDir, ".gitignore"))
		assert.True(t, os.IsNotExist(err))
	})
}
