package agentscmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/agents"
)

// FuzzDraftFile checks what agents new --generate does with whatever the
// model drafts: the draft becomes a file agents.Format accepts or an error,
// never a panic, and a file that is written loads back as the same agent,
// with no error.
func FuzzDraftFile(f *testing.F) {
	f.Add("Writes Go tests.\nUse it after changes.", "read_file\ngrep", "main", "You write tests.")
	f.Add("", "", "light", "")
	f.Add("Reviews: code", "read file\n mcp__notes__*", "inherit", "---\nname: other\n---")
	f.Add("a: b #c", "Bash(git:*)", "opus", "You: \"quoted\"\n\n  indented")
	f.Fuzz(func(t *testing.T, description, tools, model, prompt string) {
		d := draft{Description: description, Model: model, Prompt: prompt}
		if tools != "" {
			d.Tools = strings.Split(tools, "\n")
		}
		def := fromDraft("drafted", d)
		text, err := format(def)
		if err != nil {
			return
		}
		dir := t.TempDir()
		path := filepath.Join(dir, ".offshoot", "agents", "drafted.md")
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, text, 0o644))
		reg := agents.Load(agents.Options{ProjectDir: dir, NoBuiltins: true})
		require.Empty(t, reg.Errors(), "%s", text)
		got, err := reg.Find("drafted")
		require.NoError(t, err, "%s", text)
		assert.Equal(t, def.Description, got.Description)
		assert.Equal(t, strings.TrimSpace(def.Prompt), strings.TrimSpace(got.Prompt))
	})
}
