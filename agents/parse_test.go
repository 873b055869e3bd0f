package agents

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// parsed is what reading one agent file gave.
type parsed struct {
	def          Definition
	errs, warns  []string
	skipped      bool
	errorsAsDiag []*Diagnostic
}

// parseText reads text as the agent file a.md and checks it as Load does.
func parseText(t testing.TB, text string) parsed {
	t.Helper()
	d, skip := parseMarkdown("a.md", []byte(text), Project)
	if skip != nil {
		return parsed{skipped: true, warns: []string{skip.Error()}}
	}
	newEnv(Options{}).finish(d, fromMarkdown)
	p := parsed{def: d.def, errorsAsDiag: d.errs}
	for _, e := range d.errs {
		p.errs = append(p.errs, e.Error())
	}
	for _, w := range d.warns {
		p.warns = append(p.warns, w.Error())
	}
	return p
}

const lenientWarning = `the frontmatter is not valid YAML (mapping values are not allowed in this context); it was read line by line instead. To make it valid, quote values that contain ": " and indent with spaces`

// Every case of real files the loader must read: a valid file stays valid,
// and each tolerant reading gives the definition its author meant.
func TestParseTolerantCases(t *testing.T) {
	tests := []struct {
		name      string
		text      string
		want      Definition // Name, Description, Prompt, Tools, Model are compared
		wantWarns []string
	}{
		{
			name: "plain valid file",
			text: "---\nname: a\ndescription: Does A.\ntools: Read, Grep\nmodel: sonnet\n---\n\nYou do A.\n",
			want: Definition{Name: "a", Description: "Does A.", Prompt: "You do A.", Tools: []string{"read_file", "grep"}, Model: "sonnet"},
		},
		{
			name:      "unquoted colon in the description",
			text:      "---\nname: a\ndescription: Use when: the user asks for A. Examples: do A now\ntools: Read\n---\nYou do A.",
			want:      Definition{Name: "a", Description: "Use when: the user asks for A. Examples: do A now", Prompt: "You do A.", Tools: []string{"read_file"}},
			wantWarns: []string{"a.md:3: " + lenientWarning},
		},
		{
			name: "multi-line unindented description with examples",
			text: "---\nname: a\ndescription: Use this agent for A. Examples:\n\n<example>\nContext: the user wants A\nuser: \"do A\"\nassistant: \"I'll use the a agent\"\n<commentary>\nA is needed.\n</commentary>\n</example>\ncolor: blue\nmodel: haiku\n---\nYou do A.",
			want: Definition{Name: "a", Prompt: "You do A.", Model: "haiku",
				Description: "Use this agent for A. Examples:\n\n<example>\nContext: the user wants A\nuser: \"do A\"\nassistant: \"I'll use the a agent\"\n<commentary>\nA is needed.\n</commentary>\n</example>"},
			wantWarns: []string{"a.md:3: " + lenientWarning},
		},
		{
			name: "key-shaped lines inside an open example continue the description",
			text: "---\nname: a\ndescription: Examples: <example>\nmodel: this line is part of the example\ntools: so is this one\n</example>\ntools: Grep\n---\nYou do A.",
			want: Definition{Name: "a", Prompt: "You do A.", Tools: []string{"grep"},
				Description: "Examples: <example>\nmodel: this line is part of the example\ntools: so is this one\n</example>"},
			wantWarns: []string{"a.md:3: " + lenientWarning},
		},
		{
			name: "quoted values, blocks and lists still parse in a lenient file",
			text: "---\nname: \"a\"\ndescription: Use when: needed\ntools: [Read, Grep, Read]\ndisallowedTools:\n  - Write\n  - Edit\nmodel: 'light'\ncriticalSystemReminder: |\n  Line one.\n  Line two.\n---\nYou do A.",
			want: Definition{Name: "a", Description: "Use when: needed", Prompt: "You do A.", Model: "light",
				Tools: []string{"read_file", "grep"}, DisallowedTools: []string{"write_file", "edit_file"},
				CriticalSystemReminder: "Line one.\nLine two."},
			wantWarns: []string{"a.md:3: " + lenientWarning},
		},
		{
			name:      "a list indented with tabs",
			text:      "---\nname: a\ndescription: A.\ntools:\n\t- Read\n\t- Grep\n---\nYou do A.",
			want:      Definition{Name: "a", Description: "A.", Prompt: "You do A.", Tools: []string{"read_file", "grep"}},
			wantWarns: []string{"a.md:5: the frontmatter is not valid YAML (found character that cannot start any token); it was read line by line instead. To make it valid, quote values that contain \": \" and indent with spaces"},
		},
		{
			name: "folded description",
			text: "---\nname: a\ndescription: >\n  Does A\n  and more.\n---\nYou do A.",
			want: Definition{Name: "a", Description: "Does A and more.", Prompt: "You do A."},
		},
		{
			name: "byte order mark and CRLF",
			text: "\uFEFF---\r\nname: a\r\ndescription: Does A.\r\n---\r\n\r\nYou do A.\r\nThen stop.\r\n",
			want: Definition{Name: "a", Description: "Does A.", Prompt: "You do A.\nThen stop."},
		},
		{
			name: "long closing fence, no final newline",
			text: "---\nname: a\ndescription: Does A.\n--------\nYou do A.",
			want: Definition{Name: "a", Description: "Does A.", Prompt: "You do A."},
		},
		{
			name: "non-ASCII text",
			text: "---\nname: a\ndescription: Vérifie les traductions 日本語 🌍\n---\nTu es relecteur. ✅",
			want: Definition{Name: "a", Description: "Vérifie les traductions 日本語 🌍", Prompt: "Tu es relecteur. ✅"},
		},
		{
			name: "literal \\n in a plain description becomes a newline, not in a quoted one",
			text: "---\nname: a\ndescription: First line.\\nSecond line.\ncriticalSystemReminder: 'keep \\n'\n---\nYou do A.",
			want: Definition{Name: "a", Description: "First line.\nSecond line.", Prompt: "You do A.", CriticalSystemReminder: `keep \n`},
		},
		{
			name:      "name with capitals, spaces and slashes becomes a slug",
			text:      "---\nname: Python DevOps/CI-CD Expert\ndescription: Pipelines.\n---\nYou do CI.",
			want:      Definition{Name: "python-devops-ci-cd-expert", Description: "Pipelines.", Prompt: "You do CI."},
			wantWarns: []string{`a.md:2: name "Python DevOps/CI-CD Expert" is not a valid agent name (lower-case letters, digits and hyphens); it is used as "python-devops-ci-cd-expert"`},
		},
		{
			name: "unknown keys are ignored, whatever their type",
			text: "---\nname: a\ndescription: Does A.\ncolor: red\ncategory: qa\ntags: [x, y]\nversion: 1.0\nauthor: {name: me}\nmode: plan\n---\nYou do A.",
			want: Definition{Name: "a", Description: "Does A.", Prompt: "You do A."},
		},
		{
			name: "keys in other spellings",
			text: "---\nName: a\nDescription: Does A.\nallowed-tools: Read\ndisallowed_tools: Write\nmax_turns: 3\n---\nYou do A.",
			want: Definition{Name: "a", Description: "Does A.", Prompt: "You do A.", Tools: []string{"read_file"}, DisallowedTools: []string{"write_file"}, MaxTurns: 3},
		},
		{
			name:      "tools as a comma string with argument rules, spaces and duplicates",
			text:      "---\nname: a\ndescription: Does A.\ntools: Read, Bash(git add:*, git commit:*),  Grep Read ,Edit\n---\nYou do A.",
			want:      Definition{Name: "a", Description: "Does A.", Prompt: "You do A.", Tools: []string{"read_file", "grep", "edit_file"}},
			wantWarns: []string{`a.md:4: Claude Code's Bash tool in tools runs commands with the bash tool, which is not offered here (offshoot run and chat offer it with --allow bash); it is dropped, and the agent runs without it`},
		},
		{
			name:      "tools: [] means no tools",
			text:      "---\nname: a\ndescription: Does A.\ntools: []\n---\nYou do A.",
			want:      Definition{Name: "a", Description: "Does A.", Prompt: "You do A.", Tools: []string{}},
			wantWarns: []string{"a.md:4: tools: [] gives the agent no tools at all; leave tools out to give it its caller's tools"},
		},
		{
			name:      "tools: \"\" inherits",
			text:      "---\nname: a\ndescription: Does A.\ntools: \"\"\n---\nYou do A.",
			want:      Definition{Name: "a", Description: "Does A.", Prompt: "You do A."},
			wantWarns: []string{"a.md:4: tools is empty, so the agent gets all its caller's tools; write tools: [] for none, or leave tools out"},
		},
		{
			name: "tools: with no value inherits",
			text: "---\nname: a\ndescription: Does A.\ntools:\n---\nYou do A.",
			want: Definition{Name: "a", Description: "Does A.", Prompt: "You do A."},
		},
		{
			name: "tools: * inherits",
			text: "---\nname: a\ndescription: Does A.\ntools: \"*\"\n---\nYou do A.",
			want: Definition{Name: "a", Description: "Does A.", Prompt: "You do A."},
		},
		{
			name: "every tool dropped stays a list",
			text: "---\nname: a\ndescription: Does A.\ntools: Bash, WebSearch\n---\nYou do A.",
			want: Definition{Name: "a", Description: "Does A.", Prompt: "You do A.", Tools: []string{}},
			wantWarns: []string{
				"a.md:4: Claude Code's Bash tool in tools runs commands with the bash tool, which is not offered here (offshoot run and chat offer it with --allow bash); it is dropped, and the agent runs without it",
				"a.md:4: Claude Code's WebSearch tool in tools has no equivalent here; it is dropped, and the agent runs without it",
			},
		},
		{
			name:      "prose before the first key is ignored with a warning",
			text:      "---\nThis agent does A\nname: a\ndescription: Use when: A\n---\nYou do A.",
			want:      Definition{Name: "a", Description: "Use when: A", Prompt: "You do A."},
			wantWarns: []string{"a.md:3: " + lenientWarning, "a.md:2: this line is not a key: value line and is ignored"},
		},
		{
			name: "a key given twice keeps the first",
			text: "---\nname: a\ndescription: First.\ndescription: Second.\n---\nYou do A.",
			want: Definition{Name: "a", Description: "First.", Prompt: "You do A."},
			wantWarns: []string{
				"a.md:4: description is given more than once (first on line 3); the first one counts",
			},
		},
		{
			name: "prompt key used when the body is empty",
			text: "---\nname: a\ndescription: Does A.\nprompt: You do A.\n---\n",
			want: Definition{Name: "a", Description: "Does A.", Prompt: "You do A."},
		},
		{
			name:      "unknown model warns and is kept",
			text:      "---\nname: a\ndescription: Does A.\nmodel: gpt-4o\n---\nYou do A.",
			want:      Definition{Name: "a", Description: "Does A.", Prompt: "You do A.", Model: "gpt-4o"},
			wantWarns: []string{`a.md:4: model "gpt-4o" is not configured (known: main, light, sonnet, opus, haiku, or inherit); the agent uses its caller's model`},
		},
		{
			name: "full Claude model id",
			text: "---\nname: a\ndescription: Does A.\nmodel: claude-sonnet-4-20250514\n---\nYou do A.",
			want: Definition{Name: "a", Description: "Does A.", Prompt: "You do A.", Model: "claude-sonnet-4-20250514"},
		},
		{
			name:      "invalid UTF-8 is replaced",
			text:      "---\nname: a\ndescription: Caf\xe9 agent.\n---\nYou do A.",
			want:      Definition{Name: "a", Description: "Caf\uFFFD agent.", Prompt: "You do A."},
			wantWarns: []string{`a.md: agent "a": the file is not valid UTF-8; its invalid bytes were replaced`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := parseText(t, tt.text)
			require.Empty(t, p.errs)
			assert.Equal(t, tt.wantWarns, p.warns)
			got := p.def
			assert.Equal(t, tt.want.Name, got.Name)
			assert.Equal(t, tt.want.Description, got.Description)
			assert.Equal(t, tt.want.Prompt, got.Prompt)
			assert.Equal(t, tt.want.Tools, got.Tools)
			assert.Equal(t, tt.want.DisallowedTools, got.DisallowedTools)
			assert.Equal(t, tt.want.Model, got.Model)
			assert.Equal(t, tt.want.MaxTurns, got.MaxTurns)
			assert.Equal(t, tt.want.CriticalSystemReminder, got.CriticalSystemReminder)
		})
	}
}

// Every other field, read from YAML.
func TestParseAllFields(t *testing.T) {
	p := parseText(t, `---
name: incident
description: Leads incidents.
tools: Read, mcp__grafana__*
disallowedTools: [Write]
model: light
maxTurns: 25
background: true
forkContext: yes
skills: [postmortem, runbooks]
mcpServers:
  - pagerduty
  - grafana:
      command: npx
      args: ["-y", "grafana-mcp"]
criticalSystemReminder_EXPERIMENTAL: Stay calm.
---
You lead.`)
	require.Empty(t, p.errs)
	require.Empty(t, p.warns)
	def := p.def
	assert.Equal(t, 25, def.MaxTurns)
	assert.True(t, def.Background)
	assert.True(t, def.ForkContext)
	assert.Equal(t, []string{"postmortem", "runbooks"}, def.Skills)
	require.Len(t, def.MCPServers, 2)
	assert.Equal(t, MCPServer{Name: "pagerduty"}, def.MCPServers[0])
	assert.Equal(t, "grafana", def.MCPServers[1].Name)
	assert.JSONEq(t, `{"command": "npx", "args": ["-y", "grafana-mcp"]}`, string(def.MCPServers[1].Config))
	assert.Equal(t, []string{"read_file", "mcp__grafana__*"}, def.Tools)
	assert.Equal(t, []string{"write_file"}, def.DisallowedTools)
	assert.Equal(t, "Stay calm.", def.CriticalSystemReminder)
	assert.Equal(t, Project, def.Source)
	assert.Equal(t, "a.md", def.Path)
}

func TestParseMCPServersShapes(t *testing.T) {
	tests := []struct{ value, want string }{
		{"mcpServers: github, jira", `[{github} {jira}]`},
		{"mcpServers:\n  github:\n  local:\n    command: ./srv", `[{github} {local {"command":"./srv"}}]`},
		{"mcpServers: [github, github]", `[{github}]`},
	}
	for _, tt := range tests {
		p := parseText(t, "---\nname: a\ndescription: A.\n"+tt.value+"\n---\nx")
		require.Empty(t, p.errs, tt.value)
		var parts []string
		for _, s := range p.def.MCPServers {
			if s.Config == nil {
				parts = append(parts, "{"+s.Name+"}")
			} else {
				parts = append(parts, "{"+s.Name+" "+string(s.Config)+"}")
			}
		}
		assert.Equal(t, tt.want, "["+strings.Join(parts, " ")+"]", tt.value)
	}
}

// Each validation error, with its exact message and line.
func TestParseValidationErrors(t *testing.T) {
	long := strings.Repeat("x", 70)
	tests := []struct {
		name string
		text string
		want []string
	}{
		{"name missing", "---\ndescription: Does A.\n---\nx",
			[]string{"a.md:1: name is required: add a line such as name: code-reviewer (lower-case letters, digits and hyphens)"}},
		{"name without letters or digits", "---\nname: '!!!'\ndescription: Does A.\n---\nx",
			[]string{`a.md:2: name "!!!" has no letters or digits; use lower-case letters, digits and hyphens`}},
		{"name too long", "---\nname: " + long + "\ndescription: Does A.\n---\nx",
			[]string{`a.md:2: name "` + long + `" is 70 characters long; use at most 64`}},
		{"name not text", "---\nname: [a, b]\ndescription: Does A.\n---\nx",
			[]string{`a.md:2: name must be text, not a list`}},
		{"description missing", "---\nname: a\n---\nx",
			[]string{"a.md:1: description is required: say in a sentence when the main agent should use this agent"}},
		{"description empty", "---\nname: a\ndescription:\n---\nx",
			[]string{"a.md:3: description is required: say in a sentence when the main agent should use this agent"}},
		{"description too long", "---\nname: a\ndescription: " + strings.Repeat("é", 16385) + "\n---\nx",
			[]string{"a.md:3: description is 16385 characters long; shorten it to at most 16384"}},
		{"body empty", "---\nname: a\ndescription: Does A.\n---\n\n  \n",
			[]string{"a.md:1: the agent has no instructions: write its system prompt below the closing ---"}},
		{"tools of the wrong type", "---\nname: a\ndescription: Does A.\ntools: {read: yes}\n---\nx",
			[]string{"a.md:4: tools must be a comma-separated list or a YAML list of names, not a set of keys"}},
		{"tools list with a nested list", "---\nname: a\ndescription: Does A.\ntools:\n  - [Read]\n---\nx",
			[]string{"a.md:5: tools must be a comma-separated list or a YAML list of names, not a list"}},
		{"maxTurns not a number", "---\nname: a\ndescription: Does A.\nmaxTurns: many\n---\nx",
			[]string{`a.md:4: maxTurns must be a whole number from 1 to 10000, not "many"`}},
		{"maxTurns zero", "---\nname: a\ndescription: Does A.\nmaxTurns: 0\n---\nx",
			[]string{`a.md:4: maxTurns must be a whole number from 1 to 10000, not "0"`}},
		{"maxTurns too large", "---\nname: a\ndescription: Does A.\nmaxTurns: 10001\n---\nx",
			[]string{`a.md:4: maxTurns must be a whole number from 1 to 10000, not "10001"`}},
		{"background not a boolean", "---\nname: a\ndescription: Does A.\nbackground: maybe\n---\nx",
			[]string{`a.md:4: background must be true or false, not "maybe"`}},
		{"forkContext a list", "---\nname: a\ndescription: Does A.\nforkContext: [true]\n---\nx",
			[]string{`a.md:4: forkContext must be true or false, not a list`}},
		{"custom tag", "---\nname: !shell a\ndescription: Does A.\n---\nx",
			[]string{"a.md:2: name: the YAML tag !shell is not allowed; write the value without a tag"}},
		{"binary tag", "---\nname: a\ndescription: !!binary aGVsbG8=\n---\nx",
			[]string{"a.md:3: description: the YAML tag !!binary is not allowed; write the value without a tag"}},
		{"mcpServers entry of the wrong shape", "---\nname: a\ndescription: Does A.\nmcpServers:\n  - [x]\n---\nx",
			[]string{"a.md:5: mcpServers: each entry must be a server name or a server's configuration, not a list"}},
		{"mcpServers config not a mapping", "---\nname: a\ndescription: Does A.\nmcpServers:\n  local: ./srv\n---\nx",
			[]string{`a.md:5: mcpServers: the configuration of server "local" must be a set of keys such as command and args, not "./srv"`}},
		{"frontmatter too long", "---\nname: a\ndescription: " + strings.Repeat("x", 70000) + "\n---\nx",
			[]string{"a.md:1: the frontmatter is 70021 bytes long; keep it under 65536 and put the agent's instructions below the closing ---"}},
		{"too many tools", "---\nname: a\ndescription: Does A.\ntools: " + strings.Repeat("x, ", 1001) + "\n---\nx",
			[]string{"a.md:4: tools lists 1001 entries; give at most 1000"}},
		{"frontmatter not closed", "---\nname: a\ndescription: Does A.\n",
			[]string{"a.md:1: the frontmatter opened here is never closed: add a line --- after its last key, before the agent's instructions"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := parseText(t, tt.text)
			assert.Equal(t, tt.want, p.errs)
		})
	}
}

func TestParseSkipsFilesWithoutFrontmatter(t *testing.T) {
	for _, text := range []string{"", "\n\n", "# Agents\n---\nname: a\n---\n", "just text"} {
		p := parseText(t, text)
		assert.True(t, p.skipped, "%q", text)
	}
}

// A config.json entry is checked like a file.
func TestConfigEntries(t *testing.T) {
	c, diag := parseConfig("config.json", []byte(`{
  "models": {"main": {"model_id": "x"}},
  "agents": {
    "Code Reviewer": {
      "description": "Reviews.\nCarefully.",
      "prompt": "You review.",
      "tools": "Read, Grep",
      "disallowedTools": ["Write"],
      "model": "haiku",
      "maxTurns": 5,
      "background": false,
      "forkContext": true,
      "skills": ["s"],
      "mcpServers": ["github", {"local": {"command": "./srv", "args": ["--port", 8080]}}],
      "criticalSystemReminder_EXPERIMENTAL": "Be brief.",
      "color": "blue"
    }
  },
  "mcpServers": {"github": {}}
}`))
	require.Nil(t, diag)
	assert.Equal(t, []string{"github"}, c.servers)
	drafts := agentDrafts("config.json", c.agents, User)
	require.Len(t, drafts, 1)
	d := drafts[0]
	e := newEnv(Options{MCPServers: c.servers})
	require.True(t, e.finish(d, fromJSON))
	assert.Equal(t, []string{`config.json:4: name "Code Reviewer" is not a valid agent name (lower-case letters, digits and hyphens); it is used as "code-reviewer"`},
		messages(d.warns))
	def := d.def
	assert.Equal(t, "code-reviewer", def.Name)
	assert.Equal(t, "Reviews.\nCarefully.", def.Description)
	assert.Equal(t, []string{"read_file", "grep"}, def.Tools)
	assert.Equal(t, []string{"write_file"}, def.DisallowedTools)
	assert.Equal(t, "haiku", def.Model)
	assert.Equal(t, 5, def.MaxTurns)
	assert.True(t, def.ForkContext)
	assert.Equal(t, []string{"s"}, def.Skills)
	require.Len(t, def.MCPServers, 2)
	assert.JSONEq(t, `{"command": "./srv", "args": ["--port", 8080]}`, string(def.MCPServers[1].Config))
	assert.Equal(t, "Be brief.", def.CriticalSystemReminder)
	assert.Equal(t, User, def.Source)
}

func TestConfigEntryErrors(t *testing.T) {
	c, diag := parseConfig("config.json", []byte("{\"agents\": {\"a\": {\n\"description\": 3,\n\"prompt\": \"x\",\n\"maxTurns\": 2.5,\n\"tools\": {\"x\": 1},\n\"background\": \"sometimes\"}}}"))
	require.Nil(t, diag)
	d := agentDrafts("config.json", c.agents, User)[0]
	require.False(t, newEnv(Options{}).finish(d, fromJSON))
	assert.Equal(t, []string{
		`config.json:4: maxTurns must be a whole number from 1 to 10000, not "2.5"`,
		"config.json:5: tools must be a comma-separated list or a YAML list of names, not a set of keys",
		`config.json:6: background must be true or false, not "sometimes"`,
	}, messages(d.errs))
	assert.Equal(t, "3", d.def.Description, "a number is text enough for a description")
}

func messages(ds []*Diagnostic) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.Error())
	}
	return out
}
