package mcp_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/tools/mcp"
	"github.com/offshoot-dev/offshoot/tools/mcp/internal/testserver"
)

// authorized serves h to requests that carry the token, and 401 to others.
func authorized(token string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+token {
			http.Error(w, "missing or wrong token", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
}

func TestHTTPServers(t *testing.T) {
	srv := testserver.New()
	getServer := func(*http.Request) *sdk.Server { return srv }
	tests := []struct {
		name    string
		handler http.Handler
		typ     string
	}{
		{"streamable HTTP", sdk.NewStreamableHTTPHandler(getServer, nil), "http"},
		{"HTTP with SSE", sdk.NewSSEHandler(getServer, nil), "sse"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := httptest.NewServer(authorized("s3cret", tt.handler))
			defer ts.Close()
			t.Setenv("OFFSHOOT_TEST_TOKEN", "s3cret")
			t.Setenv("OFFSHOOT_TEST_BASE", ts.URL)
			cfg, err := mcp.ParseServer("remote", []byte(`{
				"type": "`+tt.typ+`",
				"url": "${OFFSHOOT_TEST_BASE}/mcp",
				"headers": {"Authorization": "Bearer ${OFFSHOOT_TEST_TOKEN}"}
			}`))
			require.NoError(t, err)
			assert.Equal(t, ts.URL+"/mcp", cfg.URL)

			m, err := mcp.NewManager(map[string]mcp.ServerConfig{"remote": cfg})
			require.NoError(t, err)
			set := toolsOf(t, m, "remote")
			assert.Contains(t, set.Names(), "mcp__remote__echo")
			assert.Equal(t, "echo: over HTTP", call(t, set, "mcp__remote__echo", `{"text":"over HTTP"}`).Text)
			out := call(t, set, "mcp__remote__fail", `{"message":"rate limited"}`)
			assert.False(t, out.Success)
			assert.Equal(t, "rate limited", out.Text)
			require.NoError(t, m.Close())
			assert.Empty(t, m.Warnings())
		})
	}
}

func TestHTTPServerWithoutItsHeaders(t *testing.T) {
	ts := httptest.NewServer(authorized("s3cret", sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return testserver.New() }, nil)))
	defer ts.Close()
	m := newManager(t, map[string]mcp.ServerConfig{"remote": {URL: ts.URL}})
	set := toolsOf(t, m, "remote")
	assert.Equal(t, 0, set.Len())
	require.Len(t, m.Warnings(), 1)
	assert.Contains(t, m.Warnings()[0].Error(), `MCP server "remote": could not be started: `)
	assert.Contains(t, m.Warnings()[0].Error(), "Unauthorized")
}

func TestHTTPServerThatGoesAway(t *testing.T) {
	srv := testserver.New()
	ts := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	t.Cleanup(func() {
		for ss := range srv.Sessions() {
			_ = ss.Close()
		}
	})
	m := newManager(t, map[string]mcp.ServerConfig{"remote": {URL: ts.URL}})
	set := toolsOf(t, m, "remote")
	require.True(t, call(t, set, "mcp__remote__echo", `{"text":"x"}`).Success)
	ts.CloseClientConnections()
	ts.Close()

	started := time.Now()
	out := call(t, set, "mcp__remote__echo", `{"text":"x"}`)
	assert.Less(t, time.Since(started), 2*time.Second)
	assert.False(t, out.Success)
	assert.True(t, strings.HasPrefix(out.Text, `Tool 'mcp__remote__echo' execution failed: MCP server "remote": could not be reached: `), out.Text)
	require.Len(t, m.Warnings(), 1)
	assert.Contains(t, m.Warnings()[0].Error(), `MCP server "remote": could not be reached: `)
}
