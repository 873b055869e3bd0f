package snapshotcmd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/cli"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/tools/vfs"
)

// savedEdit saves, in a temporary file, the snapshot of a session that
// mounted dir (README.md: "hello") and edited README.md.
func savedEdit(t *testing.T, dir string) string {
	t.Helper()
	reg, err := Registry()
	require.NoError(t, err)
	set, err := vfs.Tools(vfs.Options{Mounts: []vfs.Mount{{HostPath: dir}}, AllowedRoots: []string{dir}})
	require.NoError(t, err)
	s, err := session.New(session.WithRegistry(reg))
	require.NoError(t, err)
	defer s.Close()
	require.NoError(t, set.Install(context.Background(), s))
	require.NoError(t, s.Dispatch(context.Background(), vfs.FileWritten{Path: "README.md", Content: "hello, world\n"}))
	data, err := session.MarshalSnapshot(s.Snapshot(), reg)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "run.json")
	require.NoError(t, os.WriteFile(path, data, 0o644))
	return path
}

func TestApply(t *testing.T) {
	for _, tc := range []struct {
		name   string
		args   []string
		onDisk string // README.md before apply
		code   int
		want   []string
		readme string
	}{
		{"write", []string{"--write"}, "hello\n", 0, []string{"-hello\n+hello, world\n", "offshoot snapshot apply: wrote to DIR: 0 created, 1 edited, 0 deleted\n"}, "hello, world\n"},
		{"dry run", []string{"--dry-run"}, "hello\n", 0, []string{"-hello\n+hello, world\n", "offshoot snapshot apply: not written to DIR: 0 created, 1 edited, 0 deleted\n"}, "hello\n"},
		{"no terminal", nil, "hello\n", 0, []string{"not written to DIR", "run again with --write to write them"}, "hello\n"},
		{"conflict", []string{"--write"}, "theirs\n", 1, []string{"offshoot snapshot apply: wrote to DIR: 0 created, 0 edited, 0 deleted; 1 left: README.md (changed on disk since it was mounted)\n"}, "theirs\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			readme := filepath.Join(dir, "README.md")
			require.NoError(t, os.WriteFile(readme, []byte("hello\n"), 0o644))
			saved := savedEdit(t, dir)
			require.NoError(t, os.WriteFile(readme, []byte(tc.onDisk), 0o644))
			var stdout, stderr bytes.Buffer
			env := &cli.Env{ProjectDir: dir, Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr, Getenv: func(string) string { return "" }}
			cmd := applyCommand(env)
			cmd.SetArgs(append([]string{saved, "--dir", dir}, tc.args...))
			cmd.SetOut(&stdout)
			cmd.SetErr(&stderr)
			err := cmd.Execute()
			assert.Equal(t, tc.code, cli.Code(err, true), "%v", err)
			for _, want := range tc.want {
				assert.Contains(t, stdout.String(), strings.ReplaceAll(want, "DIR", dir))
			}
			data, err := os.ReadFile(readme)
			require.NoError(t, err)
			assert.Equal(t, tc.readme, string(data))
		})
	}
}

func TestApplyUsage(t *testing.T) {
	env := &cli.Env{Stdin: strings.NewReader(""), Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}, Getenv: func(string) string { return "" }}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"x.json"}, "--dir: give the directory"},
		{[]string{"x.json", "--dir", filepath.Join(t.TempDir(), "missing")}, "is not a directory"},
		{[]string{"x.json", "--dir", t.TempDir()}, "cannot read the snapshot"},
	} {
		cmd := applyCommand(env)
		cmd.SetArgs(tc.args)
		cmd.SetOut(&bytes.Buffer{})
		cmd.SetErr(&bytes.Buffer{})
		err := cmd.Execute()
		require.Error(t, err)
		assert.Contains(t, err.Error(), tc.want)
	}
}
