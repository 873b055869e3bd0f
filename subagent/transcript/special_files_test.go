//go:build unix

package transcript_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/subagent/transcript"
)

// A transcript or a record that is a FIFO or a link to /dev/zero (a
// project's .offshoot/transcripts comes with the repository) is an error
// at once, never a wait or an endless read.
func TestTranscriptsRefuseSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "root", "subagents") // where an agent's files are
	require.NoError(t, os.MkdirAll(sub, 0o700))
	require.NoError(t, syscall.Mkfifo(filepath.Join(sub, "agent-a1.jsonl"), 0o600))
	require.NoError(t, syscall.Mkfifo(filepath.Join(sub, "agent-a1.meta.json"), 0o600))
	require.NoError(t, os.Symlink("/dev/zero", filepath.Join(sub, "agent-a2.jsonl")))
	require.NoError(t, os.Symlink("/dev/zero", filepath.Join(sub, "agent-a2.meta.json")))
	tr := transcript.Dir(dir)
	_, _ = tr.List() // ends, whatever it makes of them
	for _, id := range []string{"a1", "a2"} {
		_, err := tr.Read(id)
		require.Error(t, err, id)
		assert.Contains(t, err.Error(), id)
		assert.NotErrorIs(t, err, fs.ErrNotExist, "found, and refused")
	}
}
