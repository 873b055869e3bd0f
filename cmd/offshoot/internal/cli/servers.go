package cli

import (
	"maps"
	"slices"

	"github.com/offshoot-dev/offshoot/tools/mcp"
)

// ServerNames returns the names of servers, sorted.
func ServerNames(servers map[string]mcp.ServerConfig) []string {
	return slices.Sorted(maps.Keys(servers))
}
