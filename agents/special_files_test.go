package agents_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/agents"
	"github.com/offshoot-dev/offshoot/tools"
)

// A cloned repository may put anything where an agent file should be: a
// FIFO (which would block a plain open), a link to /dev/zero (which never
// ends), a link that leads back to itself. Loading ends at once, keeps
// the good agents and names every such file.
func TestLoadSurvivesSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	agentsDir := filepath.Join(dir, ".claude", "agents")
	require.NoError(t, os.MkdirAll(agentsDir, 0o755))
	require.NoError(t, syscall.Mkfifo(filepath.Join(agentsDir, "fifo.md"), 0o600))
	require.NoError(t, os.Symlink("/dev/zero", filepath.Join(agentsDir, "zero.md")))
	require.NoError(t, os.Symlink("loop.md", filepath.Join(agentsDir, "loop.md")))
	require.NoError(t, os.Symlink("missing.md", filepath.Join(agentsDir, "dangling.md")))
	require.NoError(t, os.WriteFile(filepath.Join(agentsDir, "fine.md"),
		[]byte("---\nname: fine\ndescription: A fine agent\n---\nYou are fine.\n"), 0o600))

	reg := agents.Load(agents.Options{ProjectDir: dir, HomeDir: t.TempDir()})
	_, err := reg.Find("fine")
	assert.NoError(t, err)
	var problems []string
	for _, d := range append(reg.Errors(), reg.Warnings()...) {
		problems = append(problems, d.Error())
	}
	all := strings.Join(problems, "\n")
	for _, name := range []string{"fifo.md", "zero.md", "loop.md", "dangling.md"} {
		assert.Contains(t, all, name)
	}
	assert.Contains(t, all, "not a regular file")
}

// Only Claude Code's own tool names map to offshoot's: a name merely like
// one (WriteFile) grants nothing — it is warned about, and the agent does
// not get write_file.
func TestANameLikeAToolGrantsNothing(t *testing.T) {
	dir := t.TempDir()
	agentsDir := filepath.Join(dir, ".claude", "agents")
	require.NoError(t, os.MkdirAll(agentsDir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(agentsDir, "w.md"),
		[]byte("---\nname: w\ndescription: Writes.\ntools: Read, WriteFile\n---\nYou write.\n"), 0o600))
	reg := agents.Load(agents.Options{ProjectDir: dir, HomeDir: t.TempDir()})
	def, err := reg.Find("w")
	require.NoError(t, err)
	var warnings []string
	for _, d := range reg.Warnings() {
		warnings = append(warnings, d.Error())
	}
	assert.Contains(t, strings.Join(warnings, "\n"), `unknown tool "WriteFile" in tools`)
	parent, err := tools.NewToolset(namedTool(t, "read_file"), namedTool(t, "write_file"))
	require.NoError(t, err)
	got, err := def.ResolveTools(parent, false)
	require.NoError(t, err)
	assert.Equal(t, []string{"read_file"}, got.Names())
}

func namedTool(t *testing.T, name string) tools.Tool {
	t.Helper()
	tool, err := tools.New(name, "A tool.", func(context.Context, *tools.Invocation, struct{}) (tools.Result[string], error) {
		return tools.OK("ok", "ok"), nil
	})
	require.NoError(t, err)
	return tool
}
