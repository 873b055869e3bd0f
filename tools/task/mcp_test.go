package task_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/agents"
	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/tools/mcp"
	"github.com/offshoot-dev/offshoot/tools/task"
)

type forecastArgs struct {
	City string `json:"city"`
}

// weatherServers returns an MCP manager running an in-memory "weather"
// server, closed when the test ends.
func weatherServers(t *testing.T) *mcp.Manager {
	t.Helper()
	server := sdk.NewServer(&sdk.Implementation{Name: "weather"}, nil)
	sdk.AddTool(server, &sdk.Tool{Name: "forecast", Description: "Tomorrow's weather in a city."},
		func(_ context.Context, _ *sdk.CallToolRequest, a forecastArgs) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "Sunny in " + a.City + "."}}}, nil, nil
		})
	serverSide, clientSide := sdk.NewInMemoryTransports()
	ss, err := server.Connect(ctx, serverSide, nil)
	require.NoError(t, err)
	m, err := mcp.NewManager(map[string]mcp.ServerConfig{"weather": {Transport: clientSide}})
	require.NoError(t, err)
	t.Cleanup(func() {
		require.NoError(t, m.Close())
		_ = ss.Close()
	})
	return m
}

// An agent gets the tools of the MCP servers its definition names, besides
// its caller's; a server configured nowhere is left out; an inline server
// that cannot be configured fails the start, saying why.
func TestAnAgentGetsItsMCPServersTools(t *testing.T) {
	defs := map[string]agents.Definition{
		"forecaster": {Description: "Forecasts.", Prompt: "You forecast.", Model: "light",
			Tools: []string{"mcp__weather__*", "read_file"}, MCPServers: []agents.MCPServer{{Name: "weather"}, {Name: "nowhere"}}},
		"broken": {Description: "Broken.", Prompt: "You break.", Model: "light",
			MCPServers: []agents.MCPServer{{Name: "pigeon", Config: json.RawMessage(`{"type":"carrier-pigeon"}`)}}},
	}
	w := newWorld(t, worldConfig{
		agents: defs,
		task:   task.Options{MCP: weatherServers(t)},
		light: []scripted.Turn{
			scripted.ToolCall("mcp__weather__forecast", `{"city":"Lisbon"}`),
			scripted.Text("Pack sunglasses."),
		},
	})
	res := result(t, w.call(t, scripted.New(), input("forecaster", "Check the weather", "Will it rain in Lisbon?")))
	require.Equal(t, "success", res.Status, res.Text)
	assert.Equal(t, []task.ToolCount{{Tool: "mcp__weather__forecast", Count: 1}}, res.Data.ToolSummary)
	req := childRequests(w.light)[0]
	assert.Equal(t, []string{"read_file", "mcp__weather__forecast"}, toolNames(req))
	assert.NotContains(t, strings.Join(w.tools(t).Names(), " "), "mcp__", "the caller's tools are unchanged")

	out := w.call(t, scripted.New(), input("broken", "Break things", "Break."))
	assert.False(t, out.Success)
	assert.True(t, strings.HasPrefix(out.Text, "Failed to initialize subagent: mcp: "), out.Text)
	assert.Contains(t, out.Text, `"pigeon"`)
}
