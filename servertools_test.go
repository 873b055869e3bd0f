package offshoot_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot"
	"github.com/offshoot-dev/offshoot/agents"
	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/tools/mcp"
)

// notesServer is an MCP server over HTTP with one tool, search.
func notesServer(t *testing.T) string {
	t.Helper()
	s := sdk.NewServer(&sdk.Implementation{Name: "notes", Version: "1.0.0"}, nil)
	type query struct {
		Query string `json:"query"`
	}
	sdk.AddTool(s, &sdk.Tool{Name: "search", Description: "Search the notes."},
		func(context.Context, *sdk.CallToolRequest, query) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "no notes"}}}, nil, nil
		})
	ts := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil))
	t.Cleanup(ts.Close)
	return ts.URL
}

// ServerTools starts the MCP servers before any query and returns their
// tools — the configured servers' and those an agent configures inline —
// which Tools leaves out; a query offers the main agent the same tools.
func TestServerToolsBeforeTheFirstQuery(t *testing.T) {
	url := notesServer(t)
	notes, err := mcp.ParseServer("notes", []byte(`{"type": "http", "url": "`+url+`"}`))
	require.NoError(t, err)
	noter := agents.Definition{Description: "Keeps notes.", Prompt: "You keep notes.",
		MCPServers: []agents.MCPServer{{Name: "scratch", Config: []byte(`{"type": "http", "url": "` + url + `"}`)}}}
	m := scripted.New(scripted.Text("Done."))
	c := newClient(t, m, offshoot.Options{MCPServers: map[string]mcp.ServerConfig{"notes": notes}, Agents: map[string]agents.Definition{"noter": noter}})
	_, ok := c.Tools().Lookup("mcp__notes__search")
	assert.False(t, ok, "Tools leaves the servers' out")

	set, err := c.ServerTools(within(t))
	require.NoError(t, err)
	assert.Equal(t, []string{"mcp__notes__search", "mcp__scratch__search"}, set.Names())
	again, err := c.ServerTools(within(t))
	require.NoError(t, err)
	assert.Equal(t, set.Names(), again.Names(), "started once")

	require.NoError(t, final(t, collect(t, c, "Search.")).Err)
	var offered []string
	for _, s := range m.Calls()[0].Request.Tools {
		offered = append(offered, s.Name)
	}
	assert.Contains(t, offered, "mcp__notes__search")

	require.NoError(t, c.Close())
	_, err = c.ServerTools(context.Background())
	require.ErrorIs(t, err, offshoot.ErrClosed)
}
