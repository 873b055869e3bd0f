package offshoot

import (
	"context"
	"fmt"

	"github.com/offshoot-dev/offshoot/agents"
	"github.com/offshoot-dev/offshoot/tools"
	"github.com/offshoot-dev/offshoot/tools/mcp"
)

// ServerTools returns every tool of an MCP server the client's agents may
// be given, starting the servers that have not started: those of
// Options.MCPServers, which a query offers the main agent besides Tools,
// and those the agents' files configure inline (a project's agents' only
// with Options.ProjectAgentServers), which the Task tool offers the agent
// that names them. It is for a program that must know every tool before
// the first query — the setup of remote workers, whose fingerprint counts
// the tools. A server that cannot start offers no tools and is logged, as
// at a query; an inline server whose configuration cannot be read, or
// clashes with another of its name, is left out, as a delegation to its
// agent would fail.
func (c *Client) ServerTools(ctx context.Context) (tools.Toolset, error) {
	if c.closed.Load() {
		return tools.Toolset{}, ErrClosed
	}
	set, err := c.serverTools(ctx)
	if err != nil || c.mcp == nil {
		return set, err
	}
	var names []string
	for _, d := range c.registry.All() {
		for _, s := range d.MCPServers {
			if s.Config == nil || d.Source == agents.Project && !c.agentServers {
				continue
			}
			cfg, err := mcp.ParseServer(s.Name, s.Config)
			if err != nil || c.mcp.Add(s.Name, cfg) != nil {
				continue
			}
			names = append(names, s.Name)
		}
	}
	if len(names) == 0 {
		return set, nil
	}
	inline, err := c.mcp.Tools(ctx, names...)
	if err != nil {
		return tools.Toolset{}, fmt.Errorf("offshoot: the agents' MCP servers: %w", err)
	}
	for t := range inline.All() {
		if _, ok := set.Lookup(t.Spec().Name); ok {
			continue
		}
		if set, err = set.With(t); err != nil {
			return tools.Toolset{}, fmt.Errorf("offshoot: the agents' MCP servers: %w", err)
		}
	}
	return set, nil
}
