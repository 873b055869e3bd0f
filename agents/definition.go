package agents

import (
	"bytes"
	"encoding/json"
	"slices"
)

// Definition describes one agent a main agent can delegate to: who it is
// (Name, Description), what it is told (Prompt), what it may use (Tools,
// DisallowedTools, MCPServers) and how it runs (Model, MaxTurns,
// Background, ForkContext). Definitions come from Markdown files,
// config.json, a program (Options.Agents) or the built-ins; Load gathers
// them into a Registry.
//
// A Definition is a plain value. Tool names may be offshoot's (read_file)
// or Claude Code's (Read): the registry maps Claude Code names when it
// loads a definition, and ResolveTools maps them again, so hand-written
// definitions work either way.
type Definition struct {
	// Name identifies the agent (the Task tool's subagent_type): lower-case
	// letters, digits and hyphens, at most 64 characters.
	Name string
	// Description tells the main agent when to use this agent.
	Description string
	// Prompt is the agent's system prompt (the body of a Markdown file).
	Prompt string
	// Tools lists the tools the agent may use, by name or path.Match
	// pattern. Nil means every tool of its caller; an empty, non-nil list
	// means none.
	Tools []string
	// DisallowedTools lists tools removed from what the agent would get,
	// by name or pattern.
	DisallowedTools []string
	// Model names the agent's model: "main", "light", an alias such as
	// "sonnet" or "haiku", a configured name, or a full Claude model id
	// (mapped by family). Empty or "inherit" means its caller's model.
	Model string
	// MaxTurns bounds the agent's model calls; 0 means the default.
	MaxTurns int
	// Background asks for the agent to run in the background by default.
	Background bool
	// ForkContext starts the agent from its caller's conversation and
	// state instead of only its task.
	ForkContext bool
	// Skills names skills to preload for the agent.
	Skills []string
	// MCPServers are MCP servers the agent uses besides its caller's.
	MCPServers []MCPServer
	// CriticalSystemReminder is a short text repeated to the agent to keep
	// it on track.
	CriticalSystemReminder string
	// Source says where the definition comes from.
	Source Source
	// Path is the file the definition was read from ("" for built-ins and
	// definitions given in Go).
	Path string
}

// MCPServer is one entry of a definition's mcpServers: the name of a
// server configured elsewhere (Config is nil), or a server configured
// inline, whose settings Config holds as JSON for the MCP package to read.
type MCPServer struct {
	// Name is the server's name; its tools are called mcp__<Name>__<tool>.
	Name string
	// Config is the inline server configuration, or nil for a reference to
	// a configured server.
	Config json.RawMessage
}

// Source says which level a definition comes from. From highest priority
// to lowest: Project, Program, User, Builtin.
type Source string

// The sources of definitions.
const (
	// Project definitions come from the project directory: .offshoot/agents,
	// .offshoot/config.json and .claude/agents.
	Project Source = "project"
	// Program definitions are given by the program (Options.Agents and
	// Options.AgentsJSON, the --agents flag).
	Program Source = "program"
	// User definitions come from the home directory: ~/.offshoot/agents,
	// ~/.offshoot/config.json and ~/.claude/agents.
	User Source = "user"
	// Builtin definitions ship with offshoot: general-purpose, explore,
	// plan and summary.
	Builtin Source = "built-in"
)

// clone returns d with slices of its own, so that a caller changing them
// cannot change the registry's copy.
func (d Definition) clone() Definition {
	d.Tools = slices.Clone(d.Tools)
	d.DisallowedTools = slices.Clone(d.DisallowedTools)
	d.Skills = slices.Clone(d.Skills)
	d.MCPServers = slices.Clone(d.MCPServers)
	for i := range d.MCPServers {
		d.MCPServers[i].Config = bytes.Clone(d.MCPServers[i].Config)
	}
	return d
}
