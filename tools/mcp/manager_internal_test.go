package mcp

import (
	"context"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
)

// sliceTransport is a transport value that == cannot compare.
type sliceTransport []string

func (sliceTransport) Connect(context.Context) (sdk.Connection, error) { return nil, nil }

func TestSameTransportNeverPanics(t *testing.T) {
	a, b := sliceTransport{"a"}, sliceTransport{"a"}
	mem, _ := sdk.NewInMemoryTransports()
	assert.False(t, sameTransport(a, b))
	assert.False(t, sameTransport(a, mem))
	assert.True(t, sameTransport(mem, mem))
	assert.True(t, sameTransport(nil, nil))
	assert.False(t, sameTransport(nil, mem))
	assert.False(t, sameConfig(ServerConfig{Transport: a}, ServerConfig{Transport: b}))
}
