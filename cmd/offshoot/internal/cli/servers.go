package cli

import (
	"errors"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"

	"github.com/offshoot-dev/offshoot/tools/mcp"
)

// Servers returns the configured MCP servers: the project's (.mcp.json and
// .offshoot/config.json, whose entries win) over the user's
// (~/.offshoot/config.json). An entry or a file that cannot be read is
// left out and printed as a warning, so one mistake never stops a command
// that does not need that server.
func (e *Env) Servers() map[string]mcp.ServerConfig {
	servers := map[string]mcp.ServerConfig{}
	if e.HomeDir != "" {
		home, err := mcp.LoadFile(filepath.Join(e.HomeDir, mcp.ConfigFile))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			e.Warn("%v", err)
		}
		maps.Copy(servers, home)
	}
	project, err := mcp.LoadProject(e.ProjectDir)
	if err != nil {
		e.Warn("%v", err)
	}
	maps.Copy(servers, project)
	return servers
}

// ServerNames returns the names of servers, sorted.
func ServerNames(servers map[string]mcp.ServerConfig) []string {
	return slices.Sorted(maps.Keys(servers))
}
