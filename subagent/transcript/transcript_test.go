package transcript_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/subagent/transcript"
)

func TestATornLastLineIsIgnored(t *testing.T) {
	valid := `{"role":"user","content":"task"}` + "\n" + `{"role":"assistant","content":"answer"}` + "\n"
	tests := map[string]struct {
		data    string
		want    int
		wantErr string
	}{
		"whole":          {data: valid, want: 2},
		"torn last line": {data: valid + `{"role":"assistant","cont`, want: 2},
		// Only a last line without its newline is a torn write: the writer
		// appends each line with its newline in one write, so anything else
		// is damage, an error naming the line, and nothing is cut.
		"a cut line with its newline":       {data: valid + `{"role":"tool","content":"x` + "\n\n", wantErr: "line 3: not a message"},
		"a complete garbage last line":      {data: valid + "garbage\n", wantErr: "line 3: not a message"},
		"garbage without newline":           {data: valid + "garbage", wantErr: "line 3: not a message"},
		"one big garbage line":              {data: strings.Repeat("\x00garbage", 1<<17), wantErr: "line 1: not a message"},
		"a cut line that is no JSON object": {data: valid + `["role"`, wantErr: "line 3: not a message"},
		"complete line without newline":     {data: strings.TrimSuffix(valid, "\n"), want: 2},
		"empty":                             {data: "", want: 0},
		"damaged middle line":               {data: `{"role":"user","content":"task"}` + "\n" + "garbage\n" + valid, wantErr: "line 2: not a message"},
		"unknown role in the middle":        {data: `{"role":"robot","content":"x"}` + "\n" + valid, wantErr: `line 1: not a message: the role "robot"`},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			sub := filepath.Join(dir, "root", "subagents")
			require.NoError(t, os.MkdirAll(sub, 0o700))
			require.NoError(t, os.WriteFile(filepath.Join(sub, "agent-x.jsonl"), []byte(tt.data), 0o600))
			tr, err := transcript.Dir(dir).Read("x")
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Len(t, tr.Messages, tt.want)
			assert.Equal(t, "x", tr.Meta.AgentID, "a missing record leaves the id")
		})
	}
}

func TestReadingAnUnknownAgent(t *testing.T) {
	for _, dir := range []string{t.TempDir(), filepath.Join(t.TempDir(), "missing")} {
		_, err := transcript.Dir(dir).Read("nobody")
		require.ErrorIs(t, err, fs.ErrNotExist)
		assert.EqualError(t, err, "No agent found with ID: nobody")
		list, err := transcript.Dir(dir).List()
		require.NoError(t, err)
		assert.Empty(t, list)
	}
}

func TestPruneByAge(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	write := func(root, name string, age time.Duration) {
		sub := filepath.Join(dir, root, "subagents")
		require.NoError(t, os.MkdirAll(sub, 0o700))
		p := filepath.Join(sub, name)
		require.NoError(t, os.WriteFile(p, []byte("{}\n"), 0o600))
		require.NoError(t, os.Chtimes(p, now.Add(-age), now.Add(-age)))
	}
	day := 24 * time.Hour
	write("old-root", "agent-a.jsonl", 40*day)
	write("old-root", "agent-a.meta.json", 40*day)
	write("old-root", "agent-a.output", 40*day)
	write("mixed", "agent-b.jsonl", 40*day)
	write("mixed", "agent-b.meta.json", 40*day)
	write("mixed", "agent-c.jsonl", 40*day)
	write("mixed", "agent-c.meta.json", 2*day) // c changed recently: kept whole
	write("mixed", "notes.txt", 40*day)        // not an agent's file: kept

	removed, err := transcript.Dir(dir).Prune(now.Add(-30 * day))
	require.NoError(t, err)
	assert.Equal(t, 2, removed)
	var left []string
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			left = append(left, filepath.ToSlash(rel))
		}
		return err
	}))
	assert.Equal(t, []string{"mixed/subagents/agent-c.jsonl", "mixed/subagents/agent-c.meta.json", "mixed/subagents/notes.txt"}, left)
	_, err = os.Stat(filepath.Join(dir, "old-root"))
	assert.ErrorIs(t, err, fs.ErrNotExist, "an emptied folder goes")

	removed, err = transcript.Dir(filepath.Join(dir, "missing")).Prune(now)
	require.NoError(t, err)
	assert.Zero(t, removed)
}
