package cli

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An interrupt during the copy of the directory (the command's context
// cancelled) stops it at once: nothing is started, and the error says so.
func TestNewClientInterruptedCopy(t *testing.T) {
	e, _ := project(t, map[string]string{"main.go": "package main\n", "a/b.go": "package a\n"})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	c, err := e.NewClient(ctx, AgentFlags{}, nil)
	if c != nil {
		c.Close()
	}
	require.Error(t, err)
	assert.Equal(t, ExitFailed, Code(err, true))
	assert.Contains(t, err.Error(), "interrupted while copying "+e.ProjectDir+" in: nothing was started")
	assert.Nil(t, e.Stored, "the store is closed")
}

// What the mount could not do as asked — a .gitignore pattern past its
// bounds, not used — is a warning on standard error.
func TestNewClientCopyWarnings(t *testing.T) {
	e, stderr := project(t, map[string]string{
		"main.go":    "package main\n",
		".gitignore": "*.log\na*b*c*d*e*f*g*h*i*.txt\n",
	})
	c, err := e.NewClient(t.Context(), AgentFlags{}, nil)
	require.NoError(t, err)
	defer c.Close()
	assert.Contains(t, stderr.String(), "warning: .gitignore: 1 pattern was not used, on 1 line (the first is line 2: a*b*c*d*e*f*g*h*i*.txt)")
	assert.Contains(t, stderr.String(), "may have been copied in")
}
