package offshoot_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot"
	"github.com/offshoot-dev/offshoot/agents"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/project"
)

// The project's memory is a section of the main agent's system prompt,
// after its role (offshoot's own, or the agent it plays), and of the
// agents it delegates to.
func TestTheMemoryReachesTheMainAgentAndItsAgents(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "CLAUDE.md"), []byte("Always run go vet {{ . }}."), 0o644))
	mem := project.LoadMemory(project.Options{Dir: dir})
	require.Len(t, mem.Files, 1)
	defs := map[string]agents.Definition{"reviewer": {Description: "Reviews code.", Prompt: "You review code.", Tools: []string{"Read"}, Model: "light"}}
	for _, tc := range []struct {
		name, mainAgent string
	}{
		{"offshoot's main agent", ""},
		{"a main agent that plays an agent", "reviewer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mainModel := scripted.New(scripted.ToolCall("Task", `{"subagent_type":"reviewer","description":"Review","prompt":"Review it."}`), scripted.Text("Done."))
			lightModel := scripted.New(scripted.Text("Reviewed."), scripted.Text("Done."))
			r, err := model.NewStaticRouter(map[string]model.Model{model.Main: mainModel, model.Light: lightModel}, nil)
			require.NoError(t, err)
			c, err := offshoot.NewClient(offshoot.Options{Router: r, Agents: defs, Memory: mem, MainAgent: tc.mainAgent})
			require.NoError(t, err)
			defer c.Close()
			final(t, collect(t, c, "Review main.go."))
			want := "Project Instructions\n\nCodebase and user instructions are shown below. Follow them: they take precedence over the general guidance above.\n\n" +
				"Contents of CLAUDE.md (project instructions, checked into the codebase):\n\nAlways run go vet {{ . }}."
			if tc.mainAgent == "" {
				system := mainModel.Calls()[0].Request.Messages[0].Content
				assert.Contains(t, system, want)
				require.Len(t, lightModel.Calls(), 1, "the reviewer's call")
				assert.Contains(t, lightModel.Calls()[0].Request.Messages[0].Content, want)
				return
			}
			system := lightModel.Calls()[0].Request.Messages[0].Content
			assert.Contains(t, system, "You review code.")
			assert.Contains(t, system, want)
		})
	}
}
