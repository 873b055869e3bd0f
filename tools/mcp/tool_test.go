package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/tools"
	"github.com/offshoot-dev/offshoot/tools/mcp"
	"github.com/offshoot-dev/offshoot/tools/mcp/internal/testserver"
)

func TestToolsAreNamedAndDescribedAfterTheServer(t *testing.T) {
	m := newManager(t, map[string]mcp.ServerConfig{"test": inMemory(t)})
	ts := toolsOf(t, m, "test")
	assert.Equal(t, []string{ // in the order the server lists them
		"mcp__test__add", "mcp__test__crash", "mcp__test__echo", "mcp__test__env", "mcp__test__fail",
		"mcp__test__image", "mcp__test__pid", "mcp__test__slow", "mcp__test__spawn",
	}, ts.Names())
	echo, _ := ts.Lookup("mcp__test__echo")
	assert.Equal(t, "Send the text back.", echo.Spec().Description)
	assert.True(t, echo.Spec().ConcurrentSafe, "a read-only tool may run beside others")
	fail, _ := ts.Lookup("mcp__test__fail")
	assert.False(t, fail.Spec().ConcurrentSafe)
	assert.Empty(t, echo.Spec().Examples)
	assert.JSONEq(t, `{"type":"object","properties":{"text":{"type":"string","description":"the text to send back"}},"required":["text"],"additionalProperties":false}`,
		string(echo.Spec().Params))
	assert.JSONEq(t, `{}`, string(echo.Spec().Result))
	add, _ := ts.Lookup("mcp__test__add")
	assert.JSONEq(t, `{"type":"object","properties":{"sum":{"type":"integer"}},"required":["sum"],"additionalProperties":false}`,
		string(add.Spec().Result))

	again := toolsOf(t, m, "test")
	assert.Equal(t, ts.Tools(), again.Tools(), "every toolset holds the same tool values")
}

func TestInputSchemaReachesTheModelUnchanged(t *testing.T) {
	schema := `{
		"type": "object",
		"$defs": {"when": {"type": "string", "format": "date-time"}},
		"properties": {
			"query": {"type": "string", "pattern": "^[a-z]+$", "x-vendor": {"weight": 2.5}},
			"since": {"$ref": "#/$defs/when"},
			"limit": {"type": "integer", "minimum": 1, "maximum": 1000, "default": 20}
		},
		"required": ["query"]
	}`
	srv := sdk.NewServer(&sdk.Implementation{Name: "raw"}, nil)
	srv.AddTool(&sdk.Tool{Name: "search", Description: "Search.", InputSchema: json.RawMessage(schema)},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "found"}}}, nil
		})
	m := newManager(t, map[string]mcp.ServerConfig{"raw": inMemoryOf(t, srv)})
	tool, ok := toolsOf(t, m, "raw").Lookup("mcp__raw__search")
	require.True(t, ok)
	assert.JSONEq(t, schema, string(tool.Spec().Params))
}

func TestCallResults(t *testing.T) {
	m := newManager(t, map[string]mcp.ServerConfig{"test": inMemory(t)})
	ts := toolsOf(t, m, "test")
	tests := []struct {
		name, tool, args string
		text             string
		success          bool
	}{
		{"text content", "mcp__test__echo", `{"text":"hello"}`, "echo: hello", true},
		{"an isError result is a failure with the server's words", "mcp__test__fail", `{"message":"no such repository: acme/x"}`, "no such repository: acme/x", false},
		{"non-text content gets a placeholder", "mcp__test__image", `{}`, "Sales by month.\n[The tool returned an image (image/png, 2 KB), which cannot be shown here.]", true},
		{"structured content as JSON", "mcp__test__add", `{"a":2,"b":3}`, `{"sum":5}`, true},
		{"empty arguments mean none", "mcp__test__image", ``, "Sales by month.\n[The tool returned an image (image/png, 2 KB), which cannot be shown here.]", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := call(t, ts, tt.tool, tt.args)
			assert.Equal(t, tt.text, out.Text)
			assert.Equal(t, tt.success, out.Success)
			assert.NoError(t, out.Err)
		})
	}
}

func TestArgumentsTheServerRejects(t *testing.T) {
	m := newManager(t, map[string]mcp.ServerConfig{"test": inMemory(t)})
	ts := toolsOf(t, m, "test")
	for _, args := range []string{`[]`, `"x"`, `42`, `{"text":`, `null`} {
		out := call(t, ts, "mcp__test__echo", args)
		assert.False(t, out.Success, args)
		var ve *tools.ValidationError
		require.ErrorAs(t, out.Err, &ve, args)
		assert.Equal(t, "Tool validation failed: mcp__test__echo: the arguments must be a JSON object", out.Text)
	}
	// The server checks arguments against its schema; its refusal reaches
	// the model as the tool's failed result.
	out := call(t, ts, "mcp__test__echo", `{"text":1}`)
	assert.False(t, out.Success)
	assert.NoError(t, out.Err)
	assert.Contains(t, out.Text, `validating /properties/text: type: 1 has type "integer", want "string"`)
}

func TestSlowToolIsCutByTheCallTimeout(t *testing.T) {
	m := newManager(t, map[string]mcp.ServerConfig{"test": inMemory(t)}, mcp.WithCallTimeout(100*time.Millisecond))
	ts := toolsOf(t, m, "test")
	started := time.Now()
	out := call(t, ts, "mcp__test__slow", `{"ms":60000}`)
	assert.Less(t, time.Since(started), 5*time.Second)
	assert.False(t, out.Success)
	assert.Equal(t, `Tool 'mcp__test__slow' execution failed: the MCP tool "slow" of server "test" did not answer within 100ms, so the call was cancelled; try a smaller request`, out.Text)

	// The server is still there for the next call.
	assert.Equal(t, "echo: still here", call(t, ts, "mcp__test__echo", `{"text":"still here"}`).Text)
}

func TestCallHonoursItsContext(t *testing.T) {
	m := newManager(t, map[string]mcp.ServerConfig{"test": inMemory(t)})
	tool, ok := toolsOf(t, m, "test").Lookup("mcp__test__slow")
	require.True(t, ok)
	cctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	done := make(chan tools.Outcome, 1)
	go func() { done <- tool.Call(cctx, nil, []byte(`{"ms":60000}`)) }()
	select {
	case out := <-done:
		assert.False(t, out.Success)
		assert.ErrorIs(t, out.Err, context.DeadlineExceeded)
		assert.Equal(t, "Tool 'mcp__test__slow' execution failed: context deadline exceeded", out.Text)
	case <-time.After(10 * time.Second):
		t.Fatal("the call did not end with its context")
	}
}

func TestConcurrentCalls(t *testing.T) {
	m := newManager(t, map[string]mcp.ServerConfig{"test": inMemory(t)})
	ts := toolsOf(t, m, "test")
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			text := strings.Repeat("x", i)
			out := call(t, ts, "mcp__test__echo", `{"text":"`+text+`"}`)
			assert.Equal(t, "echo: "+text, out.Text)
		}()
	}
	wg.Wait()
}

func TestDescriptions(t *testing.T) {
	long := strings.Repeat("word ", 400)
	srv := sdk.NewServer(&sdk.Implementation{Name: "d"}, nil)
	handler := func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return &sdk.CallToolResult{}, nil
	}
	schema := json.RawMessage(`{"type":"object"}`)
	srv.AddTool(&sdk.Tool{Name: "bare", InputSchema: schema}, handler)
	srv.AddTool(&sdk.Tool{Name: "titled", Title: "List open issues", InputSchema: schema}, handler)
	srv.AddTool(&sdk.Tool{Name: "long", Description: long, InputSchema: schema}, handler)
	srv.AddTool(&sdk.Tool{Name: "padded", Description: "  Padded.\n", InputSchema: schema}, handler)
	m := newManager(t, map[string]mcp.ServerConfig{"docs": inMemoryOf(t, srv)})
	ts := toolsOf(t, m, "docs")
	desc := func(name string) string {
		tool, ok := ts.Lookup(name)
		require.True(t, ok, name)
		return tool.Spec().Description
	}
	assert.Equal(t, "The bare tool of the docs MCP server.", desc("mcp__docs__bare"))
	assert.Equal(t, "List open issues (the titled tool of the docs MCP server).", desc("mcp__docs__titled"))
	assert.Equal(t, "Padded.", desc("mcp__docs__padded"))
	d := desc("mcp__docs__long")
	assert.Equal(t, tools.MaxDescription, len([]rune(d)))
	assert.True(t, strings.HasSuffix(d, "…"))

	out := call(t, ts, "mcp__docs__bare", `{}`)
	assert.True(t, out.Success)
	assert.Equal(t, "The tool finished without output.", out.Text)
}

func TestNamesThatCollideOnceSanitizedGetHashes(t *testing.T) {
	srv := sdk.NewServer(&sdk.Implementation{Name: "c"}, nil)
	handler := func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: req.Params.Name}}}, nil
	}
	schema := json.RawMessage(`{"type":"object"}`)
	for _, n := range []string{"get.file", "get_file", "list"} {
		srv.AddTool(&sdk.Tool{Name: n, Description: "x", InputSchema: schema}, handler)
	}
	m := newManager(t, map[string]mcp.ServerConfig{"fs": inMemoryOf(t, srv)})
	ts := toolsOf(t, m, "fs")
	names := ts.Names()
	require.Len(t, names, 3)
	assert.Equal(t, "mcp__fs__list", names[2])
	assert.NotEqual(t, names[0], names[1])
	for i, remote := range []string{"get.file", "get_file"} {
		assert.Regexp(t, `^mcp__fs__get_file_[0-9a-f]{8}$`, names[i])
		assert.Equal(t, remote, call(t, ts, names[i], `{}`).Text, "each name calls its own tool")
	}
}

func TestManagerConfiguration(t *testing.T) {
	_, err := mcp.NewManager(map[string]mcp.ServerConfig{"my.server": {Command: "a"}, "my_server": {Command: "b"}})
	assert.EqualError(t, err, `mcp: server "my_server": its tools would be named like those of server "my.server" (mcp__my_server__…); rename one of them`)

	_, err = mcp.NewManager(map[string]mcp.ServerConfig{"x": {Type: "ws", URL: "ws://h", Source: ".mcp.json"}})
	var ce *mcp.ConfigError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, ".mcp.json", ce.File)
	assert.Equal(t, "x", ce.Server)

	m := newManager(t, map[string]mcp.ServerConfig{"b": {Command: "b"}, "a": {URL: "https://h/mcp"}})
	assert.Equal(t, []string{"a", "b"}, m.Names())
	require.NoError(t, m.Add("b", mcp.ServerConfig{Command: "b"}), "the same configuration again")
	err = m.Add("b", mcp.ServerConfig{Command: "other", Source: "agents/reviewer.md"})
	assert.EqualError(t, err, `mcp: agents/reviewer.md: server "b": another server of this name is already configured; rename one of them`)
	require.NoError(t, m.Add("c", mcp.ServerConfig{Command: "c"}))
	assert.Equal(t, []string{"a", "b", "c"}, m.Names())

	_, err = m.Tools(ctx, "a", "nope")
	assert.EqualError(t, err, `mcp: no MCP server is named "nope"; the configured servers are a, b, c`)
	empty := newManager(t, nil)
	_, err = empty.Tools(ctx, "nope")
	assert.EqualError(t, err, `mcp: no MCP server is named "nope": none is configured; add it to .mcp.json or .offshoot/config.json`)
	ts, err := empty.Tools(ctx)
	require.NoError(t, err)
	assert.Equal(t, 0, ts.Len())
}

func TestClosedManager(t *testing.T) {
	m, err := mcp.NewManager(map[string]mcp.ServerConfig{"test": inMemory(t)})
	require.NoError(t, err)
	ts := toolsOf(t, m, "test")
	require.NoError(t, m.Close())
	require.NoError(t, m.Close(), "Close is idempotent")

	_, err = m.Tools(ctx, "test")
	assert.ErrorIs(t, err, mcp.ErrClosed)
	assert.ErrorIs(t, m.Add("x", mcp.ServerConfig{Command: "x"}), mcp.ErrClosed)
	out := call(t, ts, "mcp__test__echo", `{"text":"late"}`)
	assert.False(t, out.Success)
	assert.True(t, errors.Is(out.Err, mcp.ErrClosed))
	assert.Equal(t, "Tool 'mcp__test__echo' execution failed: the MCP servers of this run were shut down when the run ended; start a new run to use them again", out.Text)
	assert.Empty(t, m.Warnings(), "closing is not a problem")
}

func TestToolsWaitsWithinItsContext(t *testing.T) {
	m := newManager(t, map[string]mcp.ServerConfig{"hang": stdioConfig(t, "-hang-at-start")},
		mcp.WithStartTimeout(10*time.Second))
	cctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	started := time.Now()
	_, err := m.Tools(cctx, "hang")
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Less(t, time.Since(started), 5*time.Second)
}

func TestInProcessServerThatCloses(t *testing.T) {
	serverSide, clientSide := sdk.NewInMemoryTransports()
	ss, err := testserver.New().Connect(ctx, serverSide, nil)
	require.NoError(t, err)
	m := newManager(t, map[string]mcp.ServerConfig{"mem": {Transport: clientSide}})
	ts := toolsOf(t, m, "mem")
	require.True(t, call(t, ts, "mcp__mem__echo", `{"text":"a"}`).Success)

	require.NoError(t, ss.Close())
	require.Eventually(t, func() bool { return len(m.Warnings()) == 1 }, 30*time.Second, 10*time.Millisecond)
	assert.Equal(t, `MCP server "mem": stopped: the connection to it was lost`, m.Warnings()[0].Error())

	// An in-memory transport connects once: starting it again fails, at once.
	out := call(t, ts, "mcp__mem__echo", `{"text":"a"}`)
	assert.False(t, out.Success)
	assert.Contains(t, out.Text, `Tool 'mcp__mem__echo' execution failed: MCP server "mem": could not be started: `)
	assert.Len(t, m.Warnings(), 2)
}
