package offshoot_test

import (
	"bytes"
	"log/slog"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot"
	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/tools/mcp"
)

// A server that cannot be started is a warning on the client's logger;
// the query goes on without its tools.
func TestUnavailableServerIsAWarning(t *testing.T) {
	var logged bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logged, &slog.HandlerOptions{Level: slog.LevelWarn}))
	missing := filepath.Join(t.TempDir(), "no-such-server")
	m := scripted.New(scripted.Text("Done without it."))
	c := newClient(t, m, offshoot.Options{Logger: logger, MCPServers: map[string]mcp.ServerConfig{"notes": {Command: missing}}})
	r := final(t, collect(t, c, "Search the notes."))
	require.NoError(t, r.Err)
	assert.Equal(t, "Done without it.", r.Text)
	assert.Contains(t, logged.String(), `level=WARN msg="offshoot: an MCP server is unavailable; the agents go on without its tools" error="MCP server \"notes\": `)
	for _, s := range m.Calls()[0].Request.Tools {
		assert.NotContains(t, s.Name, "mcp__notes")
	}
}
