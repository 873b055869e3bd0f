package mcp_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/tools/mcp"
)

func TestParseServer(t *testing.T) {
	t.Setenv("OFFSHOOT_TEST_TOKEN", "tok")
	t.Setenv("OFFSHOOT_TEST_EMPTY", "")
	tests := []struct {
		name string
		json string
		want mcp.ServerConfig
	}{
		{"stdio", `{"command":"npx","args":["-y","@modelcontextprotocol/server-memory"]}`,
			mcp.ServerConfig{Type: "stdio", Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-memory"}}},
		{"stdio with its type and env", `{"type":"stdio","command":"server","env":{"DEBUG":"1"}}`,
			mcp.ServerConfig{Type: "stdio", Command: "server", Env: map[string]string{"DEBUG": "1"}}},
		{"http", `{"type":"http","url":"https://mcp.example.com/mcp","headers":{"X-API-Key":"k"}}`,
			mcp.ServerConfig{Type: "http", URL: "https://mcp.example.com/mcp", Headers: map[string]string{"X-API-Key": "k"}}},
		{"sse", `{"type":"sse","url":"http://localhost:8080/sse"}`,
			mcp.ServerConfig{Type: "sse", URL: "http://localhost:8080/sse"}},
		{"a url without a type is streamable HTTP", `{"url":"https://h/mcp"}`,
			mcp.ServerConfig{Type: "http", URL: "https://h/mcp"}},
		{"streamable-http", `{"type":"streamable-http","url":"https://h/mcp"}`,
			mcp.ServerConfig{Type: "http", URL: "https://h/mcp"}},
		{"streamableHttp", `{"type":"streamableHttp","url":"https://h/mcp"}`,
			mcp.ServerConfig{Type: "http", URL: "https://h/mcp"}},
		{"cwd", `{"command":"./server","cwd":"tools"}`,
			mcp.ServerConfig{Type: "stdio", Command: "./server", Dir: "tools"}},
		{"keys of other clients are ignored", `{"command":"s","description":"x","timeout":30,"disabled":false,"autoApprove":["a"],"oauth":{"clientId":"c"}}`,
			mcp.ServerConfig{Type: "stdio", Command: "s"}},
		{"expansion everywhere", `{"command":"${OFFSHOOT_TEST_TOKEN}-bin","args":["--token=${OFFSHOOT_TEST_TOKEN}","${OFFSHOOT_TEST_UNSET:-fallback}"],"env":{"K":"${OFFSHOOT_TEST_TOKEN}"},"cwd":"${OFFSHOOT_TEST_UNSET:-/srv}"}`,
			mcp.ServerConfig{Type: "stdio", Command: "tok-bin", Args: []string{"--token=tok", "fallback"}, Env: map[string]string{"K": "tok"}, Dir: "/srv"}},
		{"expansion in url and headers", `{"type":"http","url":"${OFFSHOOT_TEST_BASE:-https://api.example.com}/mcp","headers":{"Authorization":"Bearer ${OFFSHOOT_TEST_TOKEN}"}}`,
			mcp.ServerConfig{Type: "http", URL: "https://api.example.com/mcp", Headers: map[string]string{"Authorization": "Bearer tok"}}},
		{"a set but empty variable is empty", `{"command":"s","args":["[${OFFSHOOT_TEST_EMPTY}]","${OFFSHOOT_TEST_EMPTY:-default}"]}`,
			mcp.ServerConfig{Type: "stdio", Command: "s", Args: []string{"[]", "default"}}},
		{"a bare $VAR stays", `{"command":"s","args":["$OFFSHOOT_TEST_TOKEN","${}","${open"]}`,
			mcp.ServerConfig{Type: "stdio", Command: "s", Args: []string{"$OFFSHOOT_TEST_TOKEN", "${}", "${open"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := mcp.ParseServer("srv", []byte(tt.json))
			require.NoError(t, err)
			assert.Equal(t, tt.want, mcp.Values(got))
		})
	}
}

func TestParseServerErrors(t *testing.T) {
	tests := []struct {
		name, json, want string
	}{
		{"not an object", `["npx"]`, `mcp: server "srv": the configuration must be a JSON object such as {"command": "...", "args": [...]} or {"type": "http", "url": "..."}`},
		{"not JSON", `{"command":`, `mcp: server "srv": the configuration is not valid JSON: unexpected end of JSON input`},
		{"args as a string", `{"command":"npx","args":"-y server"}`, `mcp: server "srv": args must be a list of strings, not a JSON string`},
		{"env value not a string", `{"command":"npx","env":{"PORT":8080}}`, `mcp: server "srv": env must be an object of strings, and one of its values is a JSON number; quote it`},
		{"env a list", `{"command":"npx","env":["A=1"]}`, `mcp: server "srv": env must be an object of strings, not a JSON array`},
		{"args with a number", `{"command":"npx","args":["--port",8080]}`, `mcp: server "srv": args must be a list of strings, and one of its values is a JSON number; quote it`},
		{"command a list", `{"command":["npx","-y"]}`, `mcp: server "srv": command must be a string, not a JSON array`},
		{"no command", `{"args":["x"]}`, `mcp: server "srv": no command to start; give a "command" (and "args"), or a "url" for a server reached over HTTP`},
		{"empty", `{}`, `mcp: server "srv": no command to start; give a "command" (and "args"), or a "url" for a server reached over HTTP`},
		{"command and url", `{"command":"x","url":"https://h"}`, `mcp: server "srv": both command and url are set; set "type" to "stdio" to start the command or to "http" to use the url`},
		{"unsupported type", `{"type":"ws","url":"ws://h"}`, `mcp: server "srv": type "ws" is not supported; use "stdio" (a command), "http" (streamable HTTP) or "sse"`},
		{"http without url", `{"type":"http","command":"x"}`, `mcp: server "srv": type "http" needs a "url", such as "https://mcp.example.com/mcp"`},
		{"relative url", `{"type":"http","url":"/mcp"}`, `mcp: server "srv": url "/mcp" must be an absolute http:// or https:// URL`},
		{"other scheme", `{"url":"ftp://h/mcp"}`, `mcp: server "srv": url "ftp://h/mcp" must be an absolute http:// or https:// URL`},
		{"bad header name", `{"url":"https://h","headers":{"X Key":"v"}}`, `mcp: server "srv": header name "X Key" is not valid`},
		{"header with a line break", `{"url":"https://h","headers":{"X-Key":"a\r\nInjected: 1"}}`, `mcp: server "srv": header X-Key: a value may not contain line breaks`},
		{"unset variable", `{"command":"s","args":["${OFFSHOOT_TEST_UNSET}"]}`, `mcp: server "srv": args[0]: environment variable OFFSHOOT_TEST_UNSET is not set; set it, or give a default with ${OFFSHOOT_TEST_UNSET:-value}`},
		{"unset variable in a header", `{"url":"https://h","headers":{"Authorization":"Bearer ${OFFSHOOT_TEST_UNSET}"}}`, `mcp: server "srv": headers.Authorization: environment variable OFFSHOOT_TEST_UNSET is not set; set it, or give a default with ${OFFSHOOT_TEST_UNSET:-value}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := mcp.ParseServer("srv", []byte(tt.json))
			require.Error(t, err)
			assert.Equal(t, tt.want, err.Error())
			var ce *mcp.ConfigError
			require.ErrorAs(t, err, &ce)
			assert.Equal(t, "srv", ce.Server)
		})
	}
	_, err := mcp.ParseServer(" ", []byte(`{"command":"x"}`))
	assert.EqualError(t, err, `mcp: server " ": a server needs a name: the key of its entry in "mcpServers"`)
}

func TestServerConfigWritesClaudeCodeFormat(t *testing.T) {
	cfg, err := mcp.ParseServer("gh", []byte(`{"type":"http","url":"https://h/mcp","headers":{"A":"b"}}`))
	require.NoError(t, err)
	cfg.Source = "x"
	b, err := json.Marshal(cfg)
	require.NoError(t, err)
	assert.JSONEq(t, `{"type":"http","url":"https://h/mcp","headers":{"A":"b"}}`, string(b))
	back, err := mcp.ParseServer("gh", b)
	require.NoError(t, err)
	cfg.Source = ""
	assert.Equal(t, cfg, back)
}
