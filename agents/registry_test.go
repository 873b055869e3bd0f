package agents_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/agents"
)

// The scenario of the priority rules: "debugger" is defined in the user's
// files, the project's files and the project's config.json; the project's
// config.json wins, and agents of other names from every level are all
// there.
func TestLoadPriorityScenario(t *testing.T) {
	home := tree(t, map[string]string{
		".offshoot/agents/personal.md": agentFile("personal", "My personal assistant.", "You help me."),
		".offshoot/agents/debugger.md": agentFile("debugger", "Debugger v1.", "You debug (v1)."),
		".offshoot/config.json":        `{"agents": {"helper": {"description": "Helps.", "prompt": "You help."}}}`,
	})
	project := tree(t, map[string]string{
		".offshoot/agents/code-reviewer.md": agentFile("code-reviewer", "Reviews code.", "You review."),
		".offshoot/agents/debugger.md":      agentFile("debugger", "Debugger v2.", "You debug (v2)."),
		".offshoot/config.json": `{
  "models": {"main": {"model_id": "gpt-4.1"}},
  "agents": {
    "debugger": {"description": "Debugger v3.", "prompt": "You debug (v3).", "tools": ["Read", "Grep"]}
  },
  "mcpServers": {}
}`,
	})
	r := agents.Load(agents.Options{ProjectDir: project, HomeDir: home, NoBuiltins: true})
	require.Empty(t, r.Errors())
	require.Empty(t, r.Warnings())

	var names []string
	for _, d := range r.All() {
		names = append(names, d.Name)
	}
	assert.Equal(t, []string{"code-reviewer", "debugger", "helper", "personal"}, names)

	debugger := mustFind(t, r, "debugger")
	assert.Equal(t, "Debugger v3.", debugger.Description)
	assert.Equal(t, "You debug (v3).", debugger.Prompt)
	assert.Equal(t, []string{"read_file", "grep"}, debugger.Tools)
	assert.Equal(t, agents.Project, debugger.Source)
	assert.Equal(t, filepath.Join(project, ".offshoot", "config.json"), debugger.Path)

	personal := mustFind(t, r, "personal")
	assert.Equal(t, agents.User, personal.Source)
	assert.Equal(t, filepath.Join(home, ".offshoot", "agents", "personal.md"), personal.Path)
	assert.Equal(t, agents.User, mustFind(t, r, "helper").Source)
	assert.Equal(t, agents.Project, mustFind(t, r, "code-reviewer").Source)
}

// Each level overrides the levels below it, by name, in the order Load
// documents.
func TestLoadLevels(t *testing.T) {
	def := func(prompt string) string { return agentFile("worker", "Does work.", prompt) }
	cfg := func(prompt string) string {
		return `{"agents": {"worker": {"description": "Does work.", "prompt": "` + prompt + `"}}}`
	}
	tests := []struct {
		name         string
		home, proj   map[string]string
		program      map[string]agents.Definition
		programJSON  string
		want         string
		wantSource   agents.Source
		overBuiltins bool
	}{
		{name: "user .claude alone", home: map[string]string{".claude/agents/w.md": def("user claude")},
			want: "user claude", wantSource: agents.User},
		{name: "user .offshoot over user .claude",
			home: map[string]string{".claude/agents/w.md": def("user claude"), ".offshoot/agents/w.md": def("user offshoot")},
			want: "user offshoot", wantSource: agents.User},
		{name: "user config over user files",
			home: map[string]string{".offshoot/agents/w.md": def("user offshoot"), ".offshoot/config.json": cfg("user config")},
			want: "user config", wantSource: agents.User},
		{name: "program over user",
			home:    map[string]string{".offshoot/config.json": cfg("user config")},
			program: map[string]agents.Definition{"worker": {Description: "Does work.", Prompt: "program"}},
			want:    "program", wantSource: agents.Program},
		{name: "--agents over the program's map",
			program:     map[string]agents.Definition{"worker": {Description: "Does work.", Prompt: "program"}},
			programJSON: `{"worker": {"description": "Does work.", "prompt": "flag"}}`,
			want:        "flag", wantSource: agents.Program},
		{name: "project .claude over program",
			program: map[string]agents.Definition{"worker": {Description: "Does work.", Prompt: "program"}},
			proj:    map[string]string{".claude/agents/w.md": def("project claude")},
			want:    "project claude", wantSource: agents.Project},
		{name: "project .offshoot over project .claude",
			proj: map[string]string{".claude/agents/w.md": def("project claude"), ".offshoot/agents/w.md": def("project offshoot")},
			want: "project offshoot", wantSource: agents.Project},
		{name: "project config over project files",
			proj: map[string]string{".offshoot/agents/w.md": def("project offshoot"), ".offshoot/config.json": cfg("project config")},
			want: "project config", wantSource: agents.Project},
		{name: "user agent over a built-in", overBuiltins: true,
			home: map[string]string{".offshoot/agents/explore.md": agentFile("explore", "My explorer.", "mine")},
			want: "mine", wantSource: agents.User},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := agents.Options{Agents: tt.program, AgentsJSON: []byte(tt.programJSON)}
			if tt.home != nil {
				opts.HomeDir = tree(t, tt.home)
			}
			if tt.proj != nil {
				opts.ProjectDir = tree(t, tt.proj)
			}
			r := agents.Load(opts)
			require.Empty(t, r.Errors())
			name := "worker"
			if tt.overBuiltins {
				name = "explore"
			}
			got := mustFind(t, r, name)
			assert.Equal(t, tt.want, got.Prompt)
			assert.Equal(t, tt.wantSource, got.Source)
		})
	}
}

// A Claude Code agent file, with Claude Code's tool names and keys this
// package does not know, loads with warnings and no errors.
func TestLoadClaudeCodeFile(t *testing.T) {
	project := tree(t, map[string]string{".claude/agents/reviewer.md": `---
name: code-reviewer
description: Expert code review specialist. Use immediately after writing or modifying code.
tools: Read, Grep, Glob, Bash, Edit, MultiEdit, TodoWrite, WebFetch
model: haiku
color: red
category: quality
---

You are a senior code reviewer.
`})
	r := agents.Load(agents.Options{ProjectDir: project})
	require.Empty(t, r.Errors())
	def := mustFind(t, r, "code-reviewer")
	assert.Equal(t, []string{"read_file", "grep", "glob", "edit_file",
		"planning_setup_plan", "planning_add_step", "planning_update_step", "planning_mark_step",
		"planning_clear_plan", "planning_read_plan"}, def.Tools, "Bash and WebFetch are dropped")
	assert.Equal(t, "haiku", def.Model)
	file := filepath.Join(project, ".claude", "agents", "reviewer.md")
	assert.Equal(t, []string{
		file + ":4: Claude Code's Bash tool in tools runs commands with the bash tool, which is not offered here (offshoot run and chat offer it with --allow bash); it is dropped, and the agent runs without it",
		file + ":4: Claude Code's WebFetch tool in tools fetches pages with the web_fetch tool, which is not offered here (offshoot run and chat offer it with --allow webfetch); it is dropped, and the agent runs without it",
	}, messages(r.Warnings()))
}

// Two files of one directory with the same name: the first in sorted order
// counts, and the warning names both files.
func TestLoadDuplicateInDirectory(t *testing.T) {
	project := tree(t, map[string]string{
		".offshoot/agents/b-reviewer.md": agentFile("reviewer", "Second.", "second"),
		".offshoot/agents/a-reviewer.md": agentFile("reviewer", "First.", "first"),
		".offshoot/agents/c-reviewer.md": agentFile("Reviewer", "Third, slugged to the same name.", "third"),
	})
	r := agents.Load(agents.Options{ProjectDir: project, NoBuiltins: true})
	require.Empty(t, r.Errors())
	assert.Equal(t, "first", mustFind(t, r, "reviewer").Prompt)
	dir := filepath.Join(project, ".offshoot", "agents")
	a, b, c := filepath.Join(dir, "a-reviewer.md"), filepath.Join(dir, "b-reviewer.md"), filepath.Join(dir, "c-reviewer.md")
	assert.Equal(t, []string{
		b + `:2: agent "reviewer" is defined twice, in ` + a + " and in " + b + "; the first one counts",
		c + `:2: name "Reviewer" is not a valid agent name (lower-case letters, digits and hyphens); it is used as "reviewer"`,
		c + `:2: agent "reviewer" is defined twice, in ` + a + " and in " + c + "; the first one counts",
	}, messages(r.Warnings()))
}

// A key given twice in one config.json: the first counts.
func TestLoadDuplicateInConfig(t *testing.T) {
	project := tree(t, map[string]string{".offshoot/config.json": `{"agents": {
  "helper": {"description": "One.", "prompt": "one"},
  "helper": {"description": "Two.", "prompt": "two"}
}}`})
	r := agents.Load(agents.Options{ProjectDir: project, NoBuiltins: true})
	require.Empty(t, r.Errors())
	assert.Equal(t, "one", mustFind(t, r, "helper").Prompt)
	cfg := filepath.Join(project, ".offshoot", "config.json")
	assert.Equal(t, []string{cfg + `:3: agent "helper" is defined twice, in ` + cfg + ":2 and in " + cfg + ":3; the first one counts"},
		messages(r.Warnings()))
}

// A definition with an error keeps its name from lower levels: a broken
// project agent never turns into the user's agent of the same name, and
// Find says what is wrong with it.
func TestLoadBrokenDefinitionHidesLowerLevels(t *testing.T) {
	home := tree(t, map[string]string{".offshoot/agents/deployer.md": agentFile("deployer", "Deploys with every tool.", "deploy")})
	project := tree(t, map[string]string{".offshoot/agents/deployer.md": "---\nname: deployer\ntools: Read\n---\nDeploy carefully.\n"})
	r := agents.Load(agents.Options{ProjectDir: project, HomeDir: home})
	_, err := r.Find("deployer")
	var diag *agents.Diagnostic
	require.ErrorAs(t, err, &diag)
	assert.Equal(t, filepath.Join(project, ".offshoot", "agents", "deployer.md")+
		":1: description is required: say in a sentence when the main agent should use this agent", err.Error())
	assert.Equal(t, []string{err.Error()}, messages(r.Errors()))
	for _, d := range r.All() {
		assert.NotEqual(t, "deployer", d.Name)
	}
}

func TestLoadProblems(t *testing.T) {
	big := "---\nname: big\ndescription: Too big.\n---\n" + strings.Repeat("x", 1<<20)
	tests := []struct {
		name      string
		files     map[string]string
		wantErrs  []string // with the project directory as "P"
		wantWarns []string
	}{
		{name: "config.json that is not JSON",
			files:    map[string]string{".offshoot/config.json": "{\n  \"agents\": {\n    \"a\": {,}\n  }\n}"},
			wantErrs: []string{"P/.offshoot/config.json: not valid JSON: line 3: invalid character ','; fix the file (its agents are not loaded)"}},
		{name: "config.json whose agents is a list",
			files:    map[string]string{".offshoot/config.json": `{"agents": ["a"]}`},
			wantErrs: []string{`P/.offshoot/config.json:1: "agents" must be an object whose keys are agent names: {"agents": {"code-reviewer": {"description": …, "prompt": …}}}`}},
		{name: "config.json agent that is not an object",
			files:    map[string]string{".offshoot/config.json": "{\"agents\": {\n\"a\": \"x\"}}"},
			wantErrs: []string{`P/.offshoot/config.json:2: the definition of "a" must be an object with description and prompt, not "x"`}},
		{name: "config.json agent without prompt",
			files:    map[string]string{".offshoot/config.json": "{\"agents\": {\n\"a\": {\"description\": \"A.\"}}}"},
			wantErrs: []string{`P/.offshoot/config.json:2: prompt is required: give the agent's system prompt`}},
		{name: "file over 1 MiB",
			files:    map[string]string{".offshoot/agents/big.md": big},
			wantErrs: []string{"P/.offshoot/agents/big.md: cannot read the agent file: the file is larger than 1048576 bytes; an agent file holds one agent's frontmatter and prompt"}},
		{name: "README without frontmatter is skipped",
			files:     map[string]string{".claude/agents/README.md": "# Agents\n\nCopy these."},
			wantWarns: []string{"P/.claude/agents/README.md:1: no frontmatter: an agent file starts with a line ---, then name: and description:, then a line ---, then the agent's instructions; the file is skipped"}},
		{name: "hidden files, other extensions and directories are not read",
			files: map[string]string{
				".claude/agents/.draft.md": "broken", ".claude/agents/notes.txt": "broken",
				".claude/agents/sub/x.md": "broken", ".claude/agents/UPPER.MD": agentFile("upper", "Upper-case extension.", "x"),
			}},
		{name: "unclosed frontmatter",
			files:    map[string]string{".offshoot/agents/a.md": "---\nname: a\ndescription: A.\nYou do things.\n"},
			wantErrs: []string{"P/.offshoot/agents/a.md:1: the frontmatter opened here is never closed: add a line --- after its last key, before the agent's instructions"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			project := tree(t, tt.files)
			r := agents.Load(agents.Options{ProjectDir: project, NoBuiltins: true})
			fix := func(list []string) []string {
				var out []string
				for _, s := range list {
					out = append(out, strings.ReplaceAll(s, "P/", filepath.ToSlash(project)+"/"))
				}
				return out
			}
			slash := func(ds []*agents.Diagnostic) []string {
				var out []string
				for _, s := range messages(ds) {
					out = append(out, filepath.ToSlash(s))
				}
				return out
			}
			assert.Equal(t, fix(tt.wantErrs), slash(r.Errors()))
			assert.Equal(t, fix(tt.wantWarns), slash(r.Warnings()))
		})
	}
}

func TestLoadMissingDirectories(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nowhere")
	r := agents.Load(agents.Options{ProjectDir: missing, HomeDir: t.TempDir()})
	assert.Equal(t, []string{missing + ": the project directory does not exist or is not a directory; check Options"}, messages(r.Errors()))
	assert.Len(t, r.All(), 4, "the built-ins are still there")
}

// When the project is the home directory, its files are read once.
func TestLoadProjectIsHome(t *testing.T) {
	dir := tree(t, map[string]string{".offshoot/agents/a.md": agentFile("A", "Slugged.", "x")})
	r := agents.Load(agents.Options{ProjectDir: dir, HomeDir: dir, NoBuiltins: true})
	assert.Len(t, r.Warnings(), 1)
	assert.Equal(t, agents.Project, mustFind(t, r, "a").Source)
}

// Definitions given in Go go through the same checks as files.
func TestLoadProgramDefinitions(t *testing.T) {
	r := agents.Load(agents.Options{NoBuiltins: true, Agents: map[string]agents.Definition{
		"reviewer": {Name: "other", Description: "Reviews.", Prompt: "Review.", Tools: []string{"Read", "Grpe"}},
		"broken":   {Prompt: "No description."},
		"quiet":    {Description: "No tools, on purpose: no warning.", Prompt: "x", Tools: []string{}},
	}})
	assert.Equal(t, []string{`Options.Agents: agent "broken": description is required: say in a sentence when the main agent should use this agent`},
		messages(r.Errors()))
	assert.Equal(t, []string{
		`Options.Agents: agent "reviewer": the key "reviewer" names this agent; its Name "other" is ignored`,
		`Options.Agents: agent "reviewer": unknown tool "Grpe" in tools (known: Task, TaskOutput, TaskStop, dispatch_subagent, edit_file, glob, grep, ls, planning_add_step, planning_clear_plan, planning_mark_step, planning_read_plan, planning_setup_plan, planning_update_step, read_file, rm, write_file); the agent runs without it`,
	}, messages(r.Warnings()))
	def := mustFind(t, r, "reviewer")
	assert.Equal(t, []string{"read_file", "Grpe"}, def.Tools)
	assert.Equal(t, agents.Program, def.Source)
	assert.Equal(t, []string{}, mustFind(t, r, "quiet").Tools)
}

func TestLoadAgentsJSONProblems(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`{"a": `, "--agents: not valid JSON: the JSON ends too early: a brace or bracket is not closed"},
		{`["a"]`, `--agents: --agents must be a JSON object of agents by name: {"reviewer": {"description": "…", "prompt": "…"}}`},
		{`{"a": {"description": "A.", "prompt": "x"}} {}`, "--agents: not valid JSON: line 1: unexpected data after the JSON value"},
	} {
		r := agents.Load(agents.Options{AgentsJSON: []byte(tt.in)})
		assert.Equal(t, []string{tt.want}, messages(r.Errors()), tt.in)
	}
}

// The MCP servers configured in config.json make their tools known.
func TestLoadMCPServersFromConfig(t *testing.T) {
	project := tree(t, map[string]string{
		".offshoot/config.json":     `{"mcpServers": {"github": {"command": "gh-mcp"}}}`,
		".offshoot/agents/issue.md": agentFile("issues", "Files issues.", "x", "tools: mcp__github__create_issue, mcp__jira__create"),
	})
	r := agents.Load(agents.Options{ProjectDir: project})
	require.Empty(t, r.Errors())
	assert.Equal(t, []string{filepath.Join(project, ".offshoot", "agents", "issue.md") +
		`:4: "mcp__jira__create" in tools belongs to the MCP server "jira", which is not configured: add it to mcpServers; until then the entry is dropped, and the agent runs without it`},
		messages(r.Warnings()))
}

// What Load returns is the registry's own: changing a returned definition,
// or the options, changes nothing in it.
func TestRegistryIsImmutable(t *testing.T) {
	program := map[string]agents.Definition{"a": {Description: "A.", Prompt: "x", Tools: []string{"read_file"}, Skills: []string{"s"}}}
	r := agents.Load(agents.Options{Agents: program})
	program["a"].Tools[0] = "rm"
	program["a"].Skills[0] = "changed"
	def := mustFind(t, r, "a")
	def.Tools[0] = "write_file"
	r.All()[0].Tools = nil
	again := mustFind(t, r, "a")
	assert.Equal(t, []string{"read_file"}, again.Tools)
	assert.Equal(t, []string{"s"}, again.Skills)
}

func TestZeroRegistry(t *testing.T) {
	var r agents.Registry
	_, err := r.Find("explore")
	assert.True(t, errors.Is(err, agents.ErrNoAgents))
	assert.Empty(t, r.All())
	assert.Empty(t, r.Listing())
}

func TestLoadUnreadableDirectory(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads every directory")
	}
	project := tree(t, map[string]string{".offshoot/agents/a.md": agentFile("a", "A.", "x")})
	dir := filepath.Join(project, ".offshoot", "agents")
	require.NoError(t, os.Chmod(dir, 0o000))
	t.Cleanup(func() { _ = os.Chmod(dir, 0o755) })
	r := agents.Load(agents.Options{ProjectDir: project})
	require.Len(t, r.Errors(), 1)
	assert.Contains(t, r.Errors()[0].Error(), "cannot read the agents directory")
}

// A Claude Code tool with no equivalent here, and an mcp__ tool of a server
// not configured, are dropped from the definition with a warning — from
// tools and from disallowedTools — unless the program has a tool of exactly
// that name; an unknown name stays, so that the agent fails to start
// rather than run without the tools it needs.
func TestLoadDropsToolsWithNoEquivalent(t *testing.T) {
	file := agentFile("runner", "Runs things.", "x",
		"tools: Read, Bash, Bash(git:*), WebFetch, mcp__jira__create, mcp__github__issue, Grpe",
		"disallowedTools: Write, NotebookEdit, mcp__jira__delete")
	for _, tt := range []struct {
		name       string
		toolNames  []string
		tools      []string
		disallowed []string
		dropped    int
	}{
		{"offshoot's tools", nil, []string{"read_file", "mcp__github__issue", "Grpe"}, []string{"write_file"}, 6},
		// Bash(git:*) stays, standing for no tool: an argument rule is not
		// supported, and granting all of Bash is not safe.
		{"a program with a Bash tool", []string{"read_file", "write_file", "Bash"},
			[]string{"read_file", "Bash", "Bash(git:*)", "mcp__github__issue", "Grpe"}, []string{"write_file"}, 4},
	} {
		t.Run(tt.name, func(t *testing.T) {
			project := tree(t, map[string]string{
				".offshoot/config.json":    `{"mcpServers": {"github": {"command": "gh-mcp"}}}`,
				".claude/agents/runner.md": file,
			})
			r := agents.Load(agents.Options{ProjectDir: project, NoBuiltins: true, ToolNames: tt.toolNames})
			require.Empty(t, r.Errors())
			def := mustFind(t, r, "runner")
			assert.Equal(t, tt.tools, def.Tools)
			assert.Equal(t, tt.disallowed, def.DisallowedTools)
			n := 0
			for _, m := range messages(r.Warnings()) {
				if strings.Contains(m, "dropped") {
					n++
				}
			}
			assert.Equal(t, tt.dropped, n, "one warning per dropped entry: %q", messages(r.Warnings()))
		})
	}
}
