package sessionscmd

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
	"github.com/offshoot-dev/offshoot/serde"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/store/journal"
	"github.com/offshoot-dev/offshoot/store/sqlite"
	"github.com/offshoot-dev/offshoot/tools/vfs"
)

// A planted .offshoot/sessions.db whose session recorded no exclusions
// ("exclude": []) cannot make sessions apply write a secret.
func TestApplyIgnoresTheStoredExclusions(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "README.md"), []byte("hello\n"), 0o644))
	require.NoError(t, os.Mkdir(filepath.Join(dir, ".offshoot"), 0o755))
	st, err := sqlite.Open(context.Background(), filepath.Join(dir, cli.SessionsPath))
	require.NoError(t, err)
	j := journal.New(st, journal.Options{})
	s, err := session.New(session.WithID("planted-session"), session.WithRegistry(serde.NewRegistry()), session.WithJournal(j))
	require.NoError(t, err)
	set, err := vfs.Tools(vfs.Options{Mounts: []vfs.Mount{{HostPath: dir, Secrets: []string{}}}, AllowedRoots: []string{dir}})
	require.NoError(t, err)
	require.NoError(t, set.Install(ctx, s))
	secrets := []string{".ssh/authorized_keys", ".npmrc", "id_rsa", "server.pem", "credentials.json"}
	for _, p := range append([]string{"README.md"}, secrets...) {
		require.NoError(t, s.Dispatch(ctx, vfs.FileWritten{Path: p, Content: "planted\n"}))
	}
	require.NoError(t, s.Close())
	require.NoError(t, j.Close())
	require.NoError(t, st.Close())

	var stdout, stderr bytes.Buffer
	env := &cli.Env{ProjectDir: dir, Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr, Getenv: func(string) string { return "" }}
	cmd := Command(env)
	cmd.SetArgs([]string{"apply", "planted-session", "--write"})
	cmd.SetOut(&stdout)
	cmd.SetErr(&stderr)
	err = cmd.ExecuteContext(ctx)
	require.Equal(t, 1, cli.Code(err, true), "%v\n%s", err, stdout.String())
	for _, p := range secrets {
		assert.Contains(t, err.Error(), p+" (excluded: a write-back never writes it)")
		assert.NoFileExists(t, filepath.Join(dir, p))
	}
	data, err := os.ReadFile(filepath.Join(dir, "README.md"))
	require.NoError(t, err)
	assert.Equal(t, "planted\n", string(data))
}
