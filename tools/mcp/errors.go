package mcp

import (
	"errors"
	"fmt"
	"strings"
)

// configError says that the configuration of a server, or a file of them,
// cannot be used. Its message names the file and the server and says what
// to change.
type configError struct {
	// File is the file the configuration was read from; empty when it was
	// given in Go or inline.
	File string
	// Server is the server's name; empty when the whole file is at fault.
	Server string
	// Err says what is wrong.
	Err error
}

// Error returns "mcp: FILE: server \"NAME\": PROBLEM".
func (e *configError) Error() string {
	var b strings.Builder
	b.WriteString("mcp: ")
	if e.File != "" {
		b.WriteString(e.File)
		b.WriteString(": ")
	}
	if e.Server != "" {
		fmt.Fprintf(&b, "server %q: ", e.Server)
	}
	if e.Err == nil {
		b.WriteString("invalid configuration")
	} else {
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Unwrap returns the cause.
func (e *configError) Unwrap() error { return e.Err }

// ServerError says that a server could not be started, or stopped while a
// run used it. A Manager reports each one as a warning (see WithWarnings);
// the tool calls it fails carry it as their cause. Its message is in plain
// words, for the model as well as for people.
type ServerError struct {
	// Server is the server's name.
	Server string
	// Err is what happened: the start failure, the exit status, a timeout.
	Err error
	// Stderr is the end of what a command server wrote to its standard
	// error, when it wrote anything: usually the reason it failed.
	Stderr string
}

// Error returns `MCP server "NAME" …: CAUSE`, with the end of the
// server's error output when there is some.
func (e *ServerError) Error() string {
	msg := fmt.Sprintf("MCP server %q: %v", e.Server, e.Err)
	if e.Stderr != "" {
		msg += " (its last error output: " + e.Stderr + ")"
	}
	return msg
}

// Unwrap returns the cause.
func (e *ServerError) Unwrap() error { return e.Err }

// errClosed is returned by a Manager's methods, and by calls of its tools,
// once the Manager is closed. Its text is what the model reads.
var errClosed = errors.New("the MCP servers of this run were shut down when the run ended; start a new run to use them again")
