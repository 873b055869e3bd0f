package mcp_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/tools/mcp"
)

const secretValue = "sk-very-secret"

// Describe shows a server as its file writes it, and no message shows the
// value of a ${VAR} it refers to: such values are usually keys.
func TestServersAreShownAsWritten(t *testing.T) {
	t.Setenv("OFFSHOOT_TEST_SECRET_KEY", secretValue)
	t.Setenv("OFFSHOOT_TEST_SECRET_URL", "ftp://"+secretValue+"@h/mcp")
	tests := []struct {
		name, json, shown string
	}{
		{"url", `{"url":"http://127.0.0.1:1/mcp?key=${OFFSHOOT_TEST_SECRET_KEY}","headers":{"Authorization":"Bearer ${OFFSHOOT_TEST_SECRET_KEY}"}}`,
			"http://127.0.0.1:1/mcp?key=${OFFSHOOT_TEST_SECRET_KEY}"},
		{"command", `{"command":"offshoot-no-such-${OFFSHOOT_TEST_SECRET_KEY}","args":["--key=${OFFSHOOT_TEST_SECRET_KEY}"]}`,
			"offshoot-no-such-${OFFSHOOT_TEST_SECRET_KEY} --key=${OFFSHOOT_TEST_SECRET_KEY}"},
		{"no reference", `{"command":"server","args":["a b"]}`, "server a b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := mcp.ParseServer("srv", []byte(tt.json))
			require.NoError(t, err)
			assert.Equal(t, tt.shown, cfg.Describe())

			m, err := mcp.NewManager(map[string]mcp.ServerConfig{"srv": cfg})
			require.NoError(t, err)
			defer func() { _ = m.Close() }()
			_, err = m.Tools(context.Background(), "srv")
			require.NoError(t, err)
			if tt.name == "no reference" {
				return
			}
			require.Len(t, m.Warnings(), 1)
			assert.Contains(t, m.Warnings()[0].Error(), "could not be started")
			assert.NotContains(t, m.Warnings()[0].Error(), secretValue)
		})
	}

	_, err := mcp.ParseServer("srv", []byte(`{"url":"${OFFSHOOT_TEST_SECRET_URL}"}`))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `url "${OFFSHOOT_TEST_SECRET_URL}"`)
	assert.NotContains(t, err.Error(), secretValue)

	assert.Equal(t, "https://h/mcp", mcp.ServerConfig{URL: "https://h/mcp"}.Describe(), "a configuration given in Go is shown as it is")
}
