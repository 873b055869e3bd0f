package offshoot_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot"
	"github.com/offshoot-dev/offshoot/agents"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/project"
)

// toolResults returns the tool results of msgs.
func toolResults(msgs []offshoot.Message) []offshoot.ToolResultMessage {
	var out []offshoot.ToolResultMessage
	for _, m := range msgs {
		if r, ok := m.(offshoot.ToolResultMessage); ok {
			out = append(out, r)
		}
	}
	return out
}

// skillsOf loads the skills of a project holding files.
func skillsOf(t *testing.T, files map[string]string) *project.Skills {
	t.Helper()
	dir := t.TempDir()
	for p, content := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		require.NoError(t, os.MkdirAll(filepath.Dir(full), 0o755))
		require.NoError(t, os.WriteFile(full, []byte(content), 0o644))
	}
	s := project.LoadSkills(project.Options{Dir: dir})
	require.Empty(t, s.LeftOut)
	return s
}

// The Skill tool lists the skills; a call returns the instructions, and
// the skill's other files are there for the usual tools, read-only for
// the host.
func TestTheSkillToolLoadsASkillAndItsFiles(t *testing.T) {
	skills := skillsOf(t, map[string]string{
		".claude/skills/pdf/SKILL.md":        "---\nname: pdf\ndescription: Fill PDF forms.\n---\nRun scripts/fill.py on the form.",
		".claude/skills/pdf/scripts/fill.py": "print('filled')",
	})
	m := scripted.New(
		scripted.ToolCall("Skill", `{"skill":"pdf","args":"form.pdf"}`),
		scripted.ToolCall("read_file", `{"file_path":".offshoot/skills/pdf/scripts/fill.py"}`),
		scripted.ToolCall("Skill", `{"skill":"docx"}`),
		scripted.Text("Done."),
	)
	c, err := offshoot.NewClient(offshoot.Options{Model: m, Skills: skills})
	require.NoError(t, err)
	defer c.Close()
	msgs := collect(t, c, "Fill form.pdf.")
	assert.Equal(t, "Done.", final(t, msgs).Text)

	req := m.Calls()[0].Request
	i := slicesIndex(req.Tools, "Skill")
	require.GreaterOrEqual(t, i, 0)
	assert.Contains(t, req.Tools[i].Description, "Available skills:\n- pdf: Fill PDF forms.")

	results := toolResults(msgs)
	require.Len(t, results, 3)
	assert.True(t, results[0].Success)
	second := m.Calls()[1].Request.Messages
	loaded := second[len(second)-1].Content
	assert.Contains(t, loaded, "The skill pdf is loaded.")
	assert.Contains(t, loaded, "Its files are under .offshoot/skills/pdf/")
	assert.Contains(t, loaded, "What it is to work on: form.pdf")
	assert.Contains(t, loaded, "Run scripts/fill.py on the form.")
	assert.True(t, results[1].Success, results[1].Summary)
	third := m.Calls()[2].Request.Messages
	assert.Contains(t, third[len(third)-1].Content, "print('filled')")
	assert.False(t, results[2].Success)
	fourth := m.Calls()[3].Request.Messages
	assert.Contains(t, fourth[len(fourth)-1].Content, `There is no skill "docx". The skills are: pdf.`)
}

// slicesIndex returns the index of the tool spec named name.
func slicesIndex(specs []model.ToolSpec, name string) int {
	for i, s := range specs {
		if s.Name == name {
			return i
		}
	}
	return -1
}

// A skill's allowed-tools narrow the tools while it is active: a call of
// another is denied, and the model reads why; the next query ends it.
func TestASkillsAllowedToolsNarrowTheToolsUntilTheNextQuery(t *testing.T) {
	skills := skillsOf(t, map[string]string{
		".claude/skills/review/SKILL.md": "---\nname: review\ndescription: Review code.\nallowed-tools: Read, Grep\n---\nRead, never write.",
	})
	m := scripted.New(
		scripted.ToolCall("write_file", `{"file_path":"a.txt","content":"before"}`),
		scripted.ToolCall("Skill", `{"skill":"review"}`),
		scripted.ToolCall("read_file", `{"file_path":"a.txt"}`),
		scripted.ToolCall("write_file", `{"file_path":"b.txt","content":"during"}`),
		scripted.Text("Reviewed."),
		scripted.ToolCall("write_file", `{"file_path":"c.txt","content":"after"}`),
		scripted.Text("Written."),
	)
	c, err := offshoot.NewClient(offshoot.Options{Model: m, Skills: skills})
	require.NoError(t, err)
	defer c.Close()
	results := toolResults(collect(t, c, "Review a.txt."))
	require.Len(t, results, 4)
	assert.True(t, results[0].Success, "before the skill")
	assert.True(t, results[1].Success)
	assert.True(t, results[2].Success, "Read is allowed")
	assert.False(t, results[3].Success, "write_file is not")
	assert.Contains(t, results[3].Summary, "Permission to use the tool 'write_file' was denied: the skill review allows only Read, Grep, Skill while it is active")

	results = toolResults(collect(t, c, "Now write it."))
	require.Len(t, results, 1)
	assert.True(t, results[0].Success, "the next query ends the skill: %s", results[0].Summary)
}

// An agent whose definition lists skills gets their instructions in its
// system prompt.
func TestAnAgentPreloadsItsSkills(t *testing.T) {
	skills := skillsOf(t, map[string]string{
		".claude/skills/style/SKILL.md": "---\nname: style\ndescription: House style.\n---\nTabs, never spaces.",
		".claude/skills/other/SKILL.md": "---\nname: other\ndescription: Other.\n---\nNot preloaded.",
	})
	defs := map[string]agents.Definition{"writer": {Description: "Writes.", Prompt: "You write.", Skills: []string{"style", "missing"}, Model: "light"}}
	mainModel := scripted.New(scripted.ToolCall("Task", `{"subagent_type":"writer","description":"Write","prompt":"Write it."}`), scripted.Text("Done."))
	light := scripted.New(scripted.Text("Written."))
	r, err := model.NewStaticRouter(map[string]model.Model{model.Main: mainModel, model.Light: light}, nil)
	require.NoError(t, err)
	c, err := offshoot.NewClient(offshoot.Options{Router: r, Agents: defs, Skills: skills})
	require.NoError(t, err)
	defer c.Close()
	final(t, collect(t, c, "Write."))
	require.Len(t, light.Calls(), 1)
	system := light.Calls()[0].Request.Messages[0].Content
	assert.Contains(t, system, "### Skill style\n\nTabs, never spaces.")
	assert.NotContains(t, system, "Not preloaded.")
	assert.False(t, strings.Contains(system, "missing"))
}

// A main agent that plays an agent preloads that agent's skills too.
func TestAMainAgentThatPlaysAnAgentPreloadsItsSkills(t *testing.T) {
	skills := skillsOf(t, map[string]string{".claude/skills/style/SKILL.md": "---\nname: style\ndescription: House style.\n---\nTabs, never spaces."})
	m := scripted.New(scripted.Text("ok"))
	defs := map[string]agents.Definition{"writer": {Description: "Writes.", Prompt: "You write.", Skills: []string{"style"}}}
	c, err := offshoot.NewClient(offshoot.Options{Model: m, Agents: defs, MainAgent: "writer", Skills: skills})
	require.NoError(t, err)
	defer c.Close()
	final(t, collect(t, c, "Write."))
	assert.Contains(t, m.Calls()[0].Request.Messages[0].Content, "You write.\n\n# Skill style\n\nTabs, never spaces.")
}
