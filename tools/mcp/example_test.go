package mcp_test

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/tools"
	"github.com/offshoot-dev/offshoot/tools/mcp"
)

// An agent uses the tools of an MCP server: the Manager starts the server
// when its tools are first asked for, the tools reach the evaluation as
// inherited tools, and Close stops the server when the run ends. The server
// here runs in this process; a configured one (LoadProject) would be started
// as a command or reached over HTTP in the same way.
func ExampleManager() {
	ctx := context.Background()

	// A small MCP server with one tool, built with the official SDK.
	type WeatherArgs struct {
		City string `json:"city"`
	}
	server := sdk.NewServer(&sdk.Implementation{Name: "weather"}, nil)
	sdk.AddTool(server, &sdk.Tool{Name: "forecast", Description: "Tomorrow's weather in a city."},
		func(_ context.Context, _ *sdk.CallToolRequest, a WeatherArgs) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "Sunny in " + a.City + ", 21°C."}}}, nil, nil
		})
	serverSide, clientSide := sdk.NewInMemoryTransports()
	if _, err := server.Connect(ctx, serverSide, nil); err != nil {
		fmt.Println(err)
		return
	}

	m, err := mcp.NewManager(map[string]mcp.ServerConfig{"weather": {Transport: clientSide}})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer m.Close() // the run is over: stop every server

	mcpTools, err := m.Tools(ctx, "weather")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("tools:", mcpTools.Names())

	agent, _ := prompt.New("agents", "main", prompt.Markdown[prompt.NoParams]("Role", "You plan trips."))
	s, _ := session.New()
	defer s.Close()
	resp, err := runner.Evaluate(ctx, runner.Request{
		Prompt: agent, Session: s, UserMessage: "Should I pack an umbrella for Lisbon?",
		Model: scripted.New(
			scripted.ToolCall("mcp__weather__forecast", `{"city":"Lisbon"}`),
			scripted.Text("No umbrella needed: sunny and 21°C."),
		),
		Tools: mcpTools,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for r := range session.All[runner.ToolInvoked](s) {
		fmt.Println("tool said:", r.Result)
	}
	fmt.Println("answer:", resp.Text)
	fmt.Println("warnings:", len(m.Warnings()))
	// Output:
	// tools: [mcp__weather__forecast]
	// tool said: Sunny in Lisbon, 21°C.
	// answer: No umbrella needed: sunny and 21°C.
	// warnings: 0
}

// A project's servers come from its .mcp.json, in Claude Code's format,
// and from .offshoot/config.json, whose entries win.
func ExampleLoadProject() {
	dir, _ := os.MkdirTemp("", "project")
	defer os.RemoveAll(dir)
	_ = os.WriteFile(filepath.Join(dir, ".mcp.json"), []byte(`{"mcpServers": {
		"memory": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"]},
		"docs": {"type": "http", "url": "https://docs.example.com/mcp"}
	}}`), 0o644)
	_ = os.Mkdir(filepath.Join(dir, ".offshoot"), 0o755)
	_ = os.WriteFile(filepath.Join(dir, ".offshoot", "config.json"), []byte(`{"mcpServers": {
		"docs": {"type": "http", "url": "http://localhost:8080/mcp"}
	}}`), 0o644)

	servers, err := mcp.LoadProject(dir)
	if err != nil {
		fmt.Println(err)
	}
	for _, name := range slices.Sorted(maps.Keys(servers)) {
		cfg := servers[name]
		fmt.Println(name, cfg.Type, cfg.Command+cfg.URL, filepath.Base(cfg.Source))
	}
	// Output:
	// docs http http://localhost:8080/mcp config.json
	// memory stdio npx .mcp.json
}

// An agent definition may give a server inline; ParseServer reads it,
// replacing ${VAR} and ${VAR:-default} from the environment.
func ExampleParseServer() {
	_ = os.Setenv("EXAMPLE_DOCS_TOKEN", "s3cret")
	defer os.Unsetenv("EXAMPLE_DOCS_TOKEN")
	cfg, err := mcp.ParseServer("docs", []byte(`{
		"type": "http",
		"url": "${EXAMPLE_DOCS_URL:-https://docs.example.com}/mcp",
		"headers": {"Authorization": "Bearer ${EXAMPLE_DOCS_TOKEN}"}
	}`))
	fmt.Println(cfg.URL, cfg.Headers["Authorization"], err)

	_, err = mcp.ParseServer("docs", []byte(`{"type": "http", "url": "${EXAMPLE_DOCS_MISSING}/mcp"}`))
	fmt.Println(err)
	// Output:
	// https://docs.example.com/mcp Bearer s3cret <nil>
	// mcp: server "docs": url: environment variable EXAMPLE_DOCS_MISSING is not set; set it, or give a default with ${EXAMPLE_DOCS_MISSING:-value}
}

// Tool names follow Claude Code's ("mcp__server__tool"); a filter entry
// that names a server ("mcp__server") selects all its tools.
func Example_toolNames() {
	deny := tools.Filter{Deny: []string{"mcp__github"}}
	fmt.Println(deny.Allows("mcp__github__create_issue"), deny.Allows("mcp__claude-mem__search_nodes"))
	// Output:
	// false true
}
