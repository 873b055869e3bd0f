package agents_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/agents"
)

// corpusProject returns a project whose .claude/agents holds the corpus of
// Claude Code agent files in testdata/claude-agents, written in the style
// of the public collections: valid files and every case that needs
// tolerant reading.
func corpusProject(t testing.TB) string {
	t.Helper()
	project := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(project, ".claude"), 0o755))
	require.NoError(t, os.CopyFS(filepath.Join(project, ".claude", "agents"), os.DirFS(filepath.Join("testdata", "claude-agents"))))
	return project
}

// Every agent file of the corpus loads, without a single error, as its
// author meant it.
func TestCorpusLoads(t *testing.T) {
	project := corpusProject(t)
	r := agents.Load(agents.Options{ProjectDir: project, NoBuiltins: true})
	require.Empty(t, r.Errors())

	type want struct {
		file        string
		descStart   string
		descEnd     string
		promptStart string
		tools       []string // nil: inherits; tools with no equivalent here are dropped
		model       string
	}
	wants := map[string]want{
		"backend-architect": {file: "backend-architect.md", descStart: "Design RESTful APIs", descEnd: "new backend services or APIs.",
			promptStart: "You are a backend system architect", model: "sonnet"},
		"rapid-prototyper": {file: "rapid-prototyper.md", descStart: "Use this agent when you need to quickly create",
			descEnd: "</commentary>\n</example>", promptStart: "You are an elite rapid prototyping specialist",
			tools: []string{"write_file", "edit_file", "read_file", "glob", "Task"}},
		"test-writer-fixer": {file: "test-writer-fixer.md", descStart: "Use when: code has changed", descEnd: `"add coverage".`,
			promptStart: "You are an expert in test automation.\n\nWhen code changes:",
			tools:       []string{"read_file", "write_file", "edit_file", "grep", "glob"}},
		"python-devops-ci-cd-expert": {file: "python-devops.md", descStart: "Builds and repairs CI/CD pipelines", descEnd: "release automation.",
			promptStart: "You are a DevOps engineer", tools: []string{"read_file", "write_file", "grep"}},
		"data-analyst": {file: "data-scientist.md", descStart: "Data analysis expert: SQL queries", descEnd: "tasks and queries.",
			promptStart: "You are a data scientist", tools: []string{"read_file", "write_file"}, model: "claude-3-5-haiku-20241022"},
		"i18n-reviewer": {file: "i18n-reviewer.md", descStart: "Revue des traductions — vérifie", descEnd: "日本語 et emoji 🌍 dans les fichiers de localisation.",
			promptStart: "Tu es un relecteur de traductions.", tools: []string{"read_file", "grep", "glob"}, model: "opus"},
		"security-auditor": {file: "security-auditor.md", descStart: "Review code for vulnerabilities", descEnd: "vulnerability fixes.",
			promptStart: "You are a security auditor", tools: []string{"read_file", "grep", "glob"}, model: "opus"},
		"release-notes": {file: "release-notes.md", descStart: "Drafts release notes from a list of merged changes.\nGive it",
			descEnd: "it has no tools.", promptStart: "You write release notes.", tools: []string{}},
		"shell-runner": {file: "shell-runner.md", descStart: "Runs shell commands", descEnd: "their output.",
			promptStart: "You run the commands", tools: []string{}},
		"log-investigator": {file: "folded-desc.md", descStart: "Investigates failures by reading log files and correlating", descEnd: "across services.",
			promptStart: "You investigate production failures", tools: []string{"read_file", "grep", "glob"}},
		"team-lead": {file: "team-lead.md", descStart: "Coordinates a team of agents", descEnd: "several modules.",
			promptStart: "You split large changes", tools: []string{"Task", "read_file",
				"planning_setup_plan", "planning_add_step", "planning_update_step", "planning_mark_step", "planning_clear_plan", "planning_read_plan"}},
		"sql-optimizer": {file: "gpt-agent.md", descStart: "Optimizes slow SQL queries", descEnd: "indexes.",
			promptStart: "You optimize SQL.", model: "gpt-4o"},
		"api-documenter": {file: "api-documenter.md", descStart: "Use this agent to document HTTP APIs",
			descEnd:     "tools: the user may mention tools here, inside an example\nassistant: \"I'll use the api-documenter agent to write the reference for /orders.\"\n</example>",
			promptStart: "You write API reference documentation", tools: []string{"read_file", "grep", "write_file"}},
		"incident-commander": {file: "incident-commander.md", descStart: "Leads an incident response", descEnd: "postmortem.",
			promptStart: "You lead incident response", tools: []string{"read_file", "grep", "mcp__pagerduty__list_incidents", "mcp__grafana__*"}},
		"code-reviewer": {file: "code-reviewer.md", descStart: "Expert code review specialist.", descEnd: "modifying code.",
			promptStart: "You are a senior code reviewer", tools: []string{"read_file", "grep", "glob"}},
	}
	got := r.All()
	require.Len(t, got, len(wants))
	for _, def := range got {
		w, ok := wants[def.Name]
		if !assert.True(t, ok, "unexpected agent %q", def.Name) {
			continue
		}
		assert.Equal(t, filepath.Join(project, ".claude", "agents", w.file), def.Path, def.Name)
		assert.Equal(t, agents.Project, def.Source, def.Name)
		assert.True(t, strings.HasPrefix(def.Description, w.descStart), "%s: description %q", def.Name, def.Description)
		assert.True(t, strings.HasSuffix(def.Description, w.descEnd), "%s: description %q", def.Name, def.Description)
		assert.True(t, strings.HasPrefix(def.Prompt, w.promptStart), "%s: prompt %q", def.Name, def.Prompt)
		assert.Equal(t, w.tools, def.Tools, def.Name)
		assert.Equal(t, w.model, def.Model, def.Name)
	}

	ic := mustFind(t, r, "incident-commander")
	assert.Equal(t, 25, ic.MaxTurns)
	assert.True(t, ic.Background)
	assert.True(t, ic.ForkContext)
	assert.Equal(t, []string{"postmortem-template", "runbooks"}, ic.Skills)
	require.Len(t, ic.MCPServers, 2)
	assert.JSONEq(t, `{"command":"npx","args":["-y","@grafana/mcp-server"],"env":{"GRAFANA_URL":"https://grafana.example.com"}}`,
		string(ic.MCPServers[1].Config))
	assert.Equal(t, "Never print secrets found in logs.", mustFind(t, r, "log-investigator").CriticalSystemReminder)
	assert.Equal(t, []string{"write_file", "edit_file"}, mustFind(t, r, "security-auditor").DisallowedTools)
	assert.Equal(t, "Expert code review specialist. Proactively reviews code for quality, security, and maintainability. Use immediately after writing or modifying code.",
		mustFind(t, r, "code-reviewer").Description, "the first of two files with one name counts")
}

// The corpus's warnings: each names its file and line and says what
// happens.
func TestCorpusWarnings(t *testing.T) {
	project := corpusProject(t)
	r := agents.Load(agents.Options{ProjectDir: project, NoBuiltins: true})
	dir := filepath.Join(project, ".claude", "agents") + string(filepath.Separator)
	var got []string
	for _, m := range messages(r.Warnings()) {
		got = append(got, strings.TrimPrefix(m, dir))
	}
	lenient := `the frontmatter is not valid YAML (mapping values are not allowed in this context); it was read line by line instead. To make it valid, quote values that contain ": " and indent with spaces`
	assert.Equal(t, []string{
		"README.md:1: no frontmatter: an agent file starts with a line ---, then name: and description:, then a line ---, then the agent's instructions; the file is skipped",
		"docs-writer.md:4: the frontmatter does not begin on the first line (blank lines or indentation come before its ---), so Claude Code would not read it either: start the file with the line --- to make it an agent; the file is skipped",
		"api-documenter.md:3: " + lenient,
		"code-reviewer.md:4: Claude Code's Bash tool in tools runs commands with the bash tool, which is not offered here (offshoot run and chat offer it with --allow bash); it is dropped, and the agent runs without it",
		"data-scientist.md:4: Claude Code's Bash tool in tools runs commands with the bash tool, which is not offered here (offshoot run and chat offer it with --allow bash); it is dropped, and the agent runs without it",
		`gpt-agent.md:4: model "gpt-4o" is not configured (known: main, light, sonnet, opus, haiku, or inherit); the agent uses its caller's model`,
		`python-devops.md:2: name "Python DevOps/CI-CD Expert" is not a valid agent name (lower-case letters, digits and hyphens); it is used as "python-devops-ci-cd-expert"`,
		"python-devops.md:11: Claude Code's Bash tool in tools runs commands with the bash tool, which is not offered here (offshoot run and chat offer it with --allow bash); it is dropped, and the agent runs without it",
		"rapid-prototyper.md:3: " + lenient,
		"rapid-prototyper.md:23: Claude Code's Bash tool in tools runs commands with the bash tool, which is not offered here (offshoot run and chat offer it with --allow bash); it is dropped, and the agent runs without it",
		`rapid-prototyper.md:23: "Task" in tools lets the agent hand work to other agents, which a subagent may do only below the nesting limit (by default a subagent starts none, and loses Task, TaskOutput and TaskStop): the agent has them as the main agent (offshoot run --agent), or as a subagent when the limit is raised (offshoot.Options.MaxDepth)`,
		"release-notes.md:4: tools: [] gives the agent no tools at all; leave tools out to give it its caller's tools",
		`reviewer-v2.md:2: agent "code-reviewer" is defined twice, in ` + dir + "code-reviewer.md and in " + dir + "reviewer-v2.md; the first one counts",
		`security-auditor.md:4: "mcp__semgrep__scan" in tools belongs to the MCP server "semgrep", which is not configured: add it to mcpServers; until then the entry is dropped, and the agent runs without it`,
		"security-auditor.md:4: Claude Code's WebSearch tool in tools has no equivalent here; it is dropped, and the agent runs without it",
		"shell-runner.md:4: Claude Code's Bash tool in tools runs commands with the bash tool, which is not offered here (offshoot run and chat offer it with --allow bash); it is dropped, and the agent runs without it",
		"shell-runner.md:4: Claude Code's BashOutput tool in tools has no equivalent here; it is dropped, and the agent runs without it",
		"shell-runner.md:4: Claude Code's KillShell tool in tools has no equivalent here; it is dropped, and the agent runs without it",
		`team-lead.md:4: "Agent" in tools lets the agent hand work to other agents, which a subagent may do only below the nesting limit (by default a subagent starts none, and loses Task, TaskOutput and TaskStop): the agent has them as the main agent (offshoot run --agent), or as a subagent when the limit is raised (offshoot.Options.MaxDepth)`,
		"team-lead.md:4: Claude Code's SendMessage tool in tools has no equivalent here; it is dropped, and the agent runs without it",
		"team-lead.md:4: Claude Code's TaskCreate tool in tools has no equivalent here; it is dropped, and the agent runs without it",
		"team-lead.md:4: Claude Code's TaskList tool in tools has no equivalent here; it is dropped, and the agent runs without it",
		"team-lead.md:4: Claude Code's TeamCreate tool in tools has no equivalent here; it is dropped, and the agent runs without it",
		"test-writer-fixer.md:3: " + lenient,
		"test-writer-fixer.md:4: Claude Code's Bash tool in tools runs commands with the bash tool, which is not offered here (offshoot run and chat offer it with --allow bash); it is dropped, and the agent runs without it",
	}, got)
}

// An agent file's body may be long: 64 KB prompts and descriptions of a
// few thousand characters load.
func TestLargeRealisticFile(t *testing.T) {
	desc := strings.Repeat("Use this agent when the task needs it. ", 100) // ~3,900 characters
	prompt := strings.Repeat("You follow these instructions carefully.\n", 1600)
	project := tree(t, map[string]string{".claude/agents/big.md": agentFile("big", desc, prompt)})
	r := agents.Load(agents.Options{ProjectDir: project})
	require.Empty(t, r.Errors())
	def := mustFind(t, r, "big")
	assert.Equal(t, strings.TrimSpace(desc), def.Description)
	assert.Greater(t, len(def.Prompt), 64000)
}
