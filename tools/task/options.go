package task

import "github.com/offshoot-dev/offshoot/tools/mcp"

// Options configures the Task tool (Tool, Tools, Section). The zero value
// is the default: the depth limit the engine gives (else defaultMaxDepth),
// no MCP servers, working directory ".", the files agents write copied
// into their caller's session.
type Options struct {
	// MaxDepth is how deep Task delegation may nest: at depth MaxDepth an
	// agent runs without Task, TaskOutput and TaskStop. With 2, the agents
	// the main agent starts may start agents of their own, which may not.
	// With 0 (or below 1), Task follows the engine's limit when the
	// program set one with subagent.Options.MaxDepth, and defaultMaxDepth
	// otherwise.
	MaxDepth int
	// MCP, when set, gives agents the tools of the MCP servers their
	// definitions name (mcpServers): a server configured inline in a
	// definition is added to it on first use. Without it, agents run with
	// their caller's tools only. The manager belongs to the program, which
	// closes it when the run ends.
	MCP *mcp.Manager
	// ProjectAgentServers lets the agents a project defines (source
	// agents.Project) start the MCP servers their files configure inline.
	// Such a server is a command run on this machine, written by whoever
	// wrote the project, so it is off by default: a program sets it once
	// the user approved them (as for a project's .mcp.json). Without it
	// those servers are left out, and the agent runs without their tools.
	ProjectAgentServers bool
	// WorkingDir is the working directory results report (context.cwd);
	// "." when empty.
	WorkingDir string
	// NoArtifactCopy leaves the files an agent wrote in the agent's own
	// session: by default, when an agent completes, each file it wrote
	// (each artifact of a tools.State of its toolset, such as the virtual
	// filesystem's) is copied into the caller's session, atomically with
	// the call's result.
	NoArtifactCopy bool
	// Instructions are the project's instructions (project.Memory's Text):
	// every agent's system prompt gets them after its own role, as Claude
	// Code gives its subagents the project's CLAUDE.md files. A
	// fork-context agent has them already, in its caller's system prompt.
	Instructions string
	// Skills are the instructions of the skills agents may preload, by
	// name: an agent whose definition lists skills (Definition.Skills)
	// gets the instructions of those found here in its system prompt, as
	// Claude Code preloads them; a name not found here is left out.
	Skills map[string]string
}
