package cli

import (
	"fmt"
	"strings"

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

// ReplacedBuiltins names the project's agents that take the name of a
// built-in agent (explore, plan, general-purpose…), and so replace it for
// every call of that agent, with their files: what run and chat say at
// their start, since the project's files may be anyone's. It is "" when
// none does.
func (e *Env) ReplacedBuiltins(reg *agents.Registry) string {
	builtin := map[string]bool{}
	for _, d := range agents.Load(agents.Options{}).All() {
		builtin[d.Name] = d.Source == agents.Builtin
	}
	var parts []string
	for _, d := range reg.All() {
		if d.Source == agents.Project && builtin[d.Name] {
			parts = append(parts, fmt.Sprintf("%s (%s)", Printable(d.Name), Printable(e.Show(d.Path))))
		}
	}
	switch len(parts) {
	case 0:
		return ""
	case 1:
		return "the project's agent replaces the built-in " + parts[0]
	}
	return "the project's agents replace the built-in " + strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}
