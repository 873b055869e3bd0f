package regfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRead(t *testing.T) {
	dir := t.TempDir()
	regular := filepath.Join(dir, "config.json")
	require.NoError(t, os.WriteFile(regular, []byte(`{"a":1}`), 0o600))
	fifo := filepath.Join(dir, "fifo.json")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	zero := filepath.Join(dir, "zero.json")
	require.NoError(t, os.Symlink("/dev/zero", zero))
	link := filepath.Join(dir, "link.json")
	require.NoError(t, os.Symlink(regular, link))

	tests := []struct {
		name    string
		path    string
		limit   int64
		want    string
		wantErr string
		notReg  bool
	}{
		{name: "regular file", path: regular, limit: 100, want: `{"a":1}`},
		{name: "link to a regular file", path: link, limit: 100, want: `{"a":1}`},
		{name: "exactly the limit", path: regular, limit: 7, want: `{"a":1}`},
		{name: "over the limit", path: regular, limit: 6, wantErr: "larger than 6 bytes"},
		{name: "FIFO without a writer", path: fifo, limit: 100, wantErr: "a FIFO", notReg: true},
		{name: "link to /dev/zero", path: zero, limit: 100, wantErr: "a character device", notReg: true},
		{name: "directory", path: dir, limit: 100, wantErr: "a directory", notReg: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Read(tt.path, tt.limit)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				assert.Contains(t, err.Error(), tt.path)
				assert.Equal(t, tt.notReg, errors.Is(err, ErrNotRegular))
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, string(got))
		})
	}
}

func TestReadMissingFileMatchesNotExist(t *testing.T) {
	_, err := Read(filepath.Join(t.TempDir(), "absent"), 10)
	assert.ErrorIs(t, err, os.ErrNotExist)
}

func TestTooLargeErrorMatches(t *testing.T) {
	_, err := ReadAll(strings.NewReader("abcdef"), "x", 3)
	var tl *TooLargeError
	require.ErrorAs(t, err, &tl)
	assert.Equal(t, int64(3), tl.Limit)
}

func TestSize(t *testing.T) {
	assert.Equal(t, "64 KiB", Size(64<<10))
	assert.Equal(t, "16 MiB", Size(16<<20))
	assert.Equal(t, "1 GiB", Size(1<<30))
	assert.Equal(t, "1000 bytes", Size(1000))
}

// A FIFO opened to append to is refused at once whether or not a reader
// waits on it; a regular file is created and appended to.
func TestOpenFileForAppending(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "log.jsonl")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	_, err := OpenFile(fifo, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	require.Error(t, err)

	reader, err := Open(filepath.Join(dir, "missing"))
	require.Error(t, err)
	assert.Nil(t, reader)

	path := filepath.Join(dir, "ok.jsonl")
	for range 2 {
		f, err := OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		require.NoError(t, err)
		_, err = f.WriteString("line\n")
		require.NoError(t, err)
		require.NoError(t, f.Close())
	}
	data, err := Read(path, 100)
	require.NoError(t, err)
	assert.Equal(t, "line\nline\n", string(data))
}

// ReadIn reads a regular file in a root, bounded, and refuses a FIFO put
// there without blocking on it.
func TestReadIn(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hello"), 0o600))
	require.NoError(t, syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o600))
	root, err := os.OpenRoot(dir)
	require.NoError(t, err)
	defer root.Close()

	data, err := ReadIn(root, "a.txt", 5)
	require.NoError(t, err)
	assert.Equal(t, "hello", string(data))
	_, err = ReadIn(root, "a.txt", 4)
	var tooLarge *TooLargeError
	assert.ErrorAs(t, err, &tooLarge)
	_, err = ReadIn(root, "fifo", 5)
	assert.ErrorIs(t, err, ErrNotRegular)
	_, err = ReadIn(root, "../outside", 5)
	assert.Error(t, err)
}
