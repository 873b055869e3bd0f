package cli

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestOwner(t *testing.T) {
	home := t.TempDir()
	e := &Env{HomeDir: home}
	first, err := e.Owner()
	require.NoError(t, err)
	assert.Regexp(t, `^[0-9a-f]{32}$`, first)
	fi, err := os.Stat(filepath.Join(home, OwnerPath))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	again, err := e.Owner()
	require.NoError(t, err)
	assert.Equal(t, first, again, "made once")

	other, err := (&Env{HomeDir: t.TempDir()}).Owner()
	require.NoError(t, err)
	assert.NotEqual(t, first, other, "each home its own")

	none, err := (&Env{}).Owner()
	require.NoError(t, err)
	assert.Empty(t, none)
}

func TestOwnerRefusesWhatIsNotAToken(t *testing.T) {
	tests := []struct {
		name string
		make func(path string) error
		want string
	}{
		{"garbage", func(p string) error { return os.WriteFile(p, []byte("not a token"), 0o600) }, "does not hold an owner token"},
		{"too long", func(p string) error { return os.WriteFile(p, make([]byte, 1000), 0o600) }, ""},
		{"a FIFO", func(p string) error { return syscall.Mkfifo(p, 0o600) }, "not a regular file"},
		{"a directory", func(p string) error { return os.Mkdir(p, 0o700) }, "directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			path := filepath.Join(home, OwnerPath)
			require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o700))
			require.NoError(t, tt.make(path))
			token, err := (&Env{HomeDir: home}).Owner()
			require.Error(t, err)
			assert.ErrorContains(t, err, tt.want)
			assert.Empty(t, token)
		})
	}
}
