package cli

import (
	"github.com/offshoot-dev/offshoot/agents"
	"github.com/offshoot-dev/offshoot/model"
)

// AgentOptions returns the options agents.Load reads the project's and the
// user's definitions with: checked against the tools of a main agent
// (toolNames), the configured MCP servers and the known models (router,
// nil for the default names).
func (e *Env) AgentOptions(toolNames, servers []string, router *model.Router) agents.Options {
	return agents.Options{
		ProjectDir: e.ProjectDir,
		HomeDir:    e.HomeDir,
		ToolNames:  toolNames,
		MCPServers: servers,
		Router:     router,
	}
}
