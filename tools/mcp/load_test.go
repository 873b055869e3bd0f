package mcp_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/tools/mcp"
)

func write(t *testing.T, path, content string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
}

func TestLoadFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, ".mcp.json")
	write(t, path, `{
		"mcpServers": {
			"memory": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"]},
			"broken": {"type": "http"},
			"remote": {"type": "http", "url": "https://mcp.example.com/mcp"},
			"wrong": {"command": "x", "args": "y"}
		}
	}`)
	servers, err := mcp.LoadFile(path)
	assert.Equal(t, map[string]mcp.ServerConfig{
		"memory": {Type: "stdio", Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-memory"}, Source: path},
		"remote": {Type: "http", URL: "https://mcp.example.com/mcp", Source: path},
	}, servers, "the good entries load despite the broken ones")
	require.Error(t, err)
	assert.Equal(t, "mcp: "+path+`: server "broken": type "http" needs a "url", such as "https://mcp.example.com/mcp"`+"\n"+
		"mcp: "+path+`: server "wrong": args must be a list of strings, not a JSON string`, err.Error())
	var ce *mcp.ConfigError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, path, ce.File)
	assert.Equal(t, "broken", ce.Server)
}

func TestLoadFileShapes(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, content string
		want          map[string]mcp.ServerConfig
		err           string
	}{
		{"offshoot config with other keys", `{"models":{"main":{"model":"m"}},"agents":{},"mcpServers":{"a":{"command":"a"}}}`,
			map[string]mcp.ServerConfig{"a": {Type: "stdio", Command: "a"}}, ""},
		{"no mcpServers", `{"models":{}}`, map[string]mcp.ServerConfig{}, ""},
		{"null mcpServers", `{"mcpServers":null}`, map[string]mcp.ServerConfig{}, ""},
		{"mcpServers a list", `{"mcpServers":[{"command":"a"}]}`, nil,
			`: "mcpServers" must be an object of named servers, such as {"mcpServers": {"memory": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"]}}}`},
		{"not JSON", `{"mcpServers":`, nil, `: not a valid JSON object: unexpected end of JSON input`},
		{"not an object", `[]`, nil, `: not a valid JSON object: json: cannot unmarshal array into Go value of type struct { MCPServers json.RawMessage "json:\"mcpServers\"" }`},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, "f"+string(rune('a'+i))+".json")
			write(t, path, tt.content)
			got, err := mcp.LoadFile(path)
			if tt.err != "" {
				assert.EqualError(t, err, "mcp: "+path+tt.err)
				assert.Nil(t, got)
				return
			}
			require.NoError(t, err)
			for name, cfg := range tt.want {
				cfg.Source = path
				tt.want[name] = cfg
			}
			assert.Equal(t, tt.want, got)
		})
	}

	_, err := mcp.LoadFile(filepath.Join(dir, "missing.json"))
	assert.ErrorIs(t, err, fs.ErrNotExist)
}

func TestLoadProject(t *testing.T) {
	t.Setenv("OFFSHOOT_TEST_TOKEN", "tok")
	dir := t.TempDir()
	mcpJSON := filepath.Join(dir, ".mcp.json")
	configJSON := filepath.Join(dir, ".offshoot", "config.json")
	write(t, mcpJSON, `{"mcpServers": {
		"shared": {"command": "shared-server"},
		"both": {"command": "from-mcp-json"},
		"fixed-in-offshoot": {"command": "ok-in-mcp-json"},
		"local": {"command": "./bin/server", "cwd": "sub"},
		"abs": {"command": "server", "cwd": "/opt/srv"},
		"remote": {"url": "https://h/mcp", "headers": {"Authorization": "Bearer ${OFFSHOOT_TEST_TOKEN}"}}
	}}`)
	write(t, configJSON, `{"models": {}, "mcpServers": {
		"both": {"command": "from-offshoot"},
		"fixed-in-offshoot": {"type": "http"},
		"own": {"type": "sse", "url": "http://localhost:9/sse"}
	}}`)
	servers, err := mcp.LoadProject(dir)
	assert.EqualError(t, err, "mcp: "+configJSON+`: server "fixed-in-offshoot": type "http" needs a "url", such as "https://mcp.example.com/mcp"`)
	for name, cfg := range servers {
		servers[name] = mcp.Values(cfg)
	}
	assert.Equal(t, map[string]mcp.ServerConfig{
		"shared": {Type: "stdio", Command: "shared-server", Dir: dir, Source: mcpJSON},
		"both":   {Type: "stdio", Command: "from-offshoot", Dir: dir, Source: configJSON},
		"local":  {Type: "stdio", Command: "./bin/server", Dir: filepath.Join(dir, "sub"), Source: mcpJSON},
		"abs":    {Type: "stdio", Command: "server", Dir: "/opt/srv", Source: mcpJSON},
		"remote": {Type: "http", URL: "https://h/mcp", Headers: map[string]string{"Authorization": "Bearer tok"}, Source: mcpJSON},
		"own":    {Type: "sse", URL: "http://localhost:9/sse", Source: configJSON},
	}, servers, ".offshoot/config.json wins, and its broken entry hides the other file's")

	empty, err := mcp.LoadProject(t.TempDir())
	require.NoError(t, err)
	assert.Empty(t, empty)

	onlyMCP := t.TempDir()
	write(t, filepath.Join(onlyMCP, ".mcp.json"), `{"mcpServers":{"a":{"command":"a"}}}`)
	got, err := mcp.LoadProject(onlyMCP)
	require.NoError(t, err)
	assert.Equal(t, []string{"a"}, keys(got))

	unreadable := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(unreadable, ".mcp.json"), 0o755))
	_, err = mcp.LoadProject(unreadable)
	require.Error(t, err, "a .mcp.json that cannot be read is reported")
	assert.False(t, errors.Is(err, fs.ErrNotExist))
}

func keys(m map[string]mcp.ServerConfig) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
