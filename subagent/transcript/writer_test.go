package transcript_test

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/subagent/transcript"
)

// A Writer made with the transcript it goes on from cuts a torn last line
// off (or ends a complete one), and appends after it.
func TestAWriterGoesOnAfterWhatWasRead(t *testing.T) {
	valid := `{"role":"user","content":"task"}` + "\n" + `{"role":"assistant","content":"answer"}`
	for name, data := range map[string]string{
		"whole":                          valid + "\n",
		"torn last line":                 valid + "\n" + `{"role":"assistant","cont`,
		"complete line without newline":  valid,
		"blank lines after the last one": valid + "\n\n  \n",
	} {
		t.Run(name, func(t *testing.T) {
			dir := transcript.Dir(t.TempDir())
			path, _ := dir.Paths("root", "x")
			require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o700))
			require.NoError(t, os.WriteFile(path, []byte(data), 0o600))
			prior, err := dir.Load("root", "x")
			require.NoError(t, err)
			require.Len(t, prior.Messages, 2)

			w := dir.Create(transcript.Meta{AgentID: "x", RootSessionID: "root", Status: "running", Runs: 2}, prior, nil)
			w.Append(model.UserMessage("more"))
			w.Close()
			tr, err := dir.Read("x")
			require.NoError(t, err)
			assert.Equal(t, []model.Message{model.UserMessage("task"), model.AssistantMessage("answer"), model.UserMessage("more")}, tr.Messages)
			assert.Equal(t, 2, tr.Meta.Runs)
			m, err := dir.LoadMeta("root", "x")
			require.NoError(t, err)
			assert.Equal(t, tr.Meta, m)
		})
	}
}

// Only a background agent's Writer keeps an output file; what is queued
// after Close is left out.
func TestAWriterKeepsTheOutputOfABackgroundAgent(t *testing.T) {
	dir := transcript.Dir(t.TempDir())
	fg := dir.Create(transcript.Meta{AgentID: "fg", RootSessionID: "root"}, nil, nil)
	fg.WriteOutput("never")
	fg.Close()
	bg := dir.Create(transcript.Meta{AgentID: "bg", RootSessionID: "root", Background: true}, nil, nil)
	bg.WriteOutput("partial")
	bg.WriteOutput("final")
	bg.Close()
	bg.WriteOutput("after Close")
	bg.Append(model.UserMessage("after Close"))

	_, output := dir.Paths("root", "fg")
	_, err := os.Stat(output)
	assert.ErrorIs(t, err, os.ErrNotExist)
	_, output = dir.Paths("root", "bg")
	data, err := os.ReadFile(output)
	require.NoError(t, err)
	assert.Equal(t, "final", string(data))
	tr, err := dir.Read("bg")
	require.NoError(t, err)
	assert.Empty(t, tr.Messages)
}

// A file that cannot be written costs a warning, never a panic or a
// wait.
func TestAWriterLogsWhatItCouldNotWrite(t *testing.T) {
	file := filepath.Join(t.TempDir(), "not-a-folder")
	require.NoError(t, os.WriteFile(file, nil, 0o600))
	var logged bytes.Buffer
	w := transcript.Dir(file).Create(transcript.Meta{AgentID: "x", RootSessionID: "root"}, nil, slog.New(slog.NewTextHandler(&logged, nil)))
	w.Append(model.UserMessage("task"))
	w.Close()
	assert.Contains(t, logged.String(), "could not")
	assert.Contains(t, logged.String(), "the run goes on")
}
