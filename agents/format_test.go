package agents_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/agents"
)

func TestFormat(t *testing.T) {
	out, err := agents.Format(agents.Definition{
		Name:        "code-reviewer",
		Description: "Reviews code: quality, security. Use it after changes.",
		Prompt:      "You review code.\n\nBe brief.\n",
		Tools:       []string{"read_file", "grep"},
		Model:       "light",
		Source:      agents.Project,
		Path:        "ignored.md",
	})
	require.NoError(t, err)
	assert.Equal(t, `---
name: code-reviewer
description: 'Reviews code: quality, security. Use it after changes.'
tools: [read_file, grep]
model: light
---

You review code.

Be brief.
`, string(out))
}

// What Format writes, Load reads back as it was.
func TestFormatRoundTrip(t *testing.T) {
	defs := []agents.Definition{
		{Name: "a", Description: "Does A.", Prompt: "You do A."},
		{Name: "b", Description: "Use when: \"quotes\", #hashes, --- and [brackets]: all fine", Prompt: "---\nnot a fence inside the body\n---", Tools: []string{}},
		{
			Name: "incident", Description: "Leads incidents.", Prompt: "You lead.",
			Tools: []string{"read_file", "mcp__grafana__*"}, DisallowedTools: []string{"write_file"},
			Model: "haiku", MaxTurns: 25, Background: true, ForkContext: true, Skills: []string{"postmortem"},
			MCPServers: []agents.MCPServer{
				{Name: "pagerduty"},
				{Name: "grafana", Config: json.RawMessage(`{"command":"npx","args":["-y","grafana-mcp"],"env":{"URL":"https://g.example.com"}}`)},
			},
			CriticalSystemReminder: "Stay calm.",
		},
		{Name: "unicode", Description: "Vérifie 日本語 🌍", Prompt: "Tu es relecteur. ✅"},
		{Name: "escapes", Description: `Matches \n and \t literally`, Prompt: "x"},
	}
	for _, def := range defs {
		out, err := agents.Format(def)
		require.NoError(t, err, def.Name)
		project := tree(t, map[string]string{".offshoot/agents/" + def.Name + ".md": string(out)})
		r := agents.Load(agents.Options{ProjectDir: project, MCPServers: []string{"grafana"}})
		require.Empty(t, r.Errors(), string(out))
		if def.Tools == nil || len(def.Tools) > 0 {
			require.Empty(t, r.Warnings(), string(out))
		}
		got := mustFind(t, r, def.Name)
		for i := range def.MCPServers {
			if def.MCPServers[i].Config != nil {
				assert.JSONEq(t, string(def.MCPServers[i].Config), string(got.MCPServers[i].Config))
				got.MCPServers[i].Config = def.MCPServers[i].Config
			}
		}
		got.Source, got.Path = "", ""
		assert.Equal(t, def, got, string(out))
	}
}

// Format writes only what strict rules allow.
func TestFormatStrict(t *testing.T) {
	ok := agents.Definition{Name: "a", Description: "Does A.", Prompt: "x"}
	tests := []struct {
		name   string
		change func(*agents.Definition)
		want   string
	}{
		{"name not a slug", func(d *agents.Definition) { d.Name = "Code Reviewer" },
			`agent "Code Reviewer": name "Code Reviewer" must be 1 to 64 lower-case letters, digits and hyphens, starting with a letter or digit (such as "code-reviewer")`},
		{"name empty", func(d *agents.Definition) { d.Name = "" },
			`name "" must be 1 to 64 lower-case letters, digits and hyphens, starting with a letter or digit (such as "")`},
		{"description missing", func(d *agents.Definition) { d.Description = " " },
			`agent "a": description is required: say in one line when the main agent should use this agent`},
		{"description on two lines", func(d *agents.Definition) { d.Description = "One.\nTwo." },
			`agent "a": description must be one line; put examples in the prompt instead`},
		{"description too long", func(d *agents.Definition) { d.Description = strings.Repeat("x", 1025) },
			`agent "a": description is 1025 characters long; shorten it to at most 1024`},
		{"prompt missing", func(d *agents.Definition) { d.Prompt = "\n" },
			`agent "a": prompt is required: give the agent's system prompt`},
		{"tool with an argument rule", func(d *agents.Definition) { d.Tools = []string{"Bash(git:*)"} },
			`agent "a": "Bash(git:*)" in tools must be a tool name or a pattern such as "mcp__github__*"`},
		{"malformed deny pattern", func(d *agents.Definition) { d.DisallowedTools = []string{"read_["} },
			`agent "a": "read_[" in disallowedTools must be a tool name or a pattern such as "mcp__github__*"`},
		{"maxTurns negative", func(d *agents.Definition) { d.MaxTurns = -1 },
			`agent "a": maxTurns must be from 1 to 10000, or 0 for the default`},
		{"tool name not UTF-8", func(d *agents.Definition) { d.Tools = []string{"read\xff"} },
			`agent "a": "read\xff" in tools must be a tool name or a pattern such as "mcp__github__*"`},
		{"denied tool not UTF-8", func(d *agents.Definition) { d.DisallowedTools = []string{"\xc3"} },
			`agent "a": "\xc3" in disallowedTools must be a tool name or a pattern such as "mcp__github__*"`},
		{"description not UTF-8", func(d *agents.Definition) { d.Description = "Does \xffA." },
			`agent "a": description is not valid UTF-8 text; write it in UTF-8`},
		{"prompt not UTF-8", func(d *agents.Definition) { d.Prompt = "You \xfe." },
			`agent "a": prompt is not valid UTF-8 text; write it in UTF-8`},
		{"model not UTF-8", func(d *agents.Definition) { d.Model = "li\xffght" },
			`agent "a": model is not valid UTF-8 text; write it in UTF-8`},
		{"skill not UTF-8", func(d *agents.Definition) { d.Skills = []string{"\xff"} },
			`agent "a": "\xff" in skills must be a skill name, without spaces or commas`},
		{"skill blank", func(d *agents.Definition) { d.Skills = []string{" "} },
			`agent "a": " " in skills must be a skill name, without spaces or commas`},
		{"reminder not UTF-8", func(d *agents.Definition) { d.CriticalSystemReminder = "\xff" },
			`agent "a": criticalSystemReminder is not valid UTF-8 text; write it in UTF-8`},
		{"server name not UTF-8", func(d *agents.Definition) { d.MCPServers = []agents.MCPServer{{Name: "\xff"}} },
			`agent "a": mcpServers is not valid UTF-8 text; write it in UTF-8`},
		{"inline MCP config not an object", func(d *agents.Definition) {
			d.MCPServers = []agents.MCPServer{{Name: "x", Config: json.RawMessage(`[1]`)}}
		},
			`mcpServers: the configuration of server "x" must be a JSON object`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := ok
			tt.change(&d)
			_, err := agents.Format(d)
			require.EqualError(t, err, tt.want)
			var diag *agents.Diagnostic
			assert.ErrorAs(t, err, &diag)
		})
	}
}
