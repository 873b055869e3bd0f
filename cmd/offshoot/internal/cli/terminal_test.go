package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestUseColor(t *testing.T) {
	vars := map[string]string{}
	e := &Env{Stdout: &bytes.Buffer{}, Getenv: func(k string) string { return vars[k] }}
	assert.False(t, e.StdoutIsTerminal(), "a buffer is no terminal")
	assert.False(t, e.UseColor(false))

	f, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	e.Stdout = f
	assert.False(t, e.StdoutIsTerminal(), "a file is no terminal")

	tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0)
	if err != nil {
		t.Skip("no terminal to test with:", err)
	}
	defer tty.Close()
	e.Stdout = tty
	assert.True(t, e.StdoutIsTerminal())
	assert.True(t, e.UseColor(false))
	assert.False(t, e.UseColor(true), "--no-color")
	vars["NO_COLOR"] = "1"
	assert.False(t, e.UseColor(false), "NO_COLOR")
	vars["NO_COLOR"], vars["TERM"] = "", "dumb"
	assert.False(t, e.UseColor(false), "TERM=dumb")
}

func TestTranscriptsDir(t *testing.T) {
	e := &Env{ProjectDir: "/srv/proj"}
	assert.Equal(t, filepath.Join("/srv/proj", ".offshoot", "transcripts"), e.TranscriptsDir())
}
