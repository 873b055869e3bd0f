// Package mcp gives agents the tools of Model Context Protocol servers, on
// the official Go SDK (github.com/modelcontextprotocol/go-sdk).
//
// Servers are configured as in Claude Code: an "mcpServers" object whose
// entries start a command that speaks MCP on its standard input and output
// ({"command", "args", "env"}) or reach a server over HTTP ({"type":
// "http", "url", "headers"}; "sse" for the older transport), with ${VAR}
// and ${VAR:-default} replaced by environment variables. LoadProject reads
// a project's .mcp.json and .offshoot/config.json (whose entries win);
// LoadFile reads one file; ParseServer reads one entry, such as a server an
// agent definition gives inline.
//
// A Manager runs the servers of one run. Its Tools method starts the named
// servers (those not started yet, at the same time) and returns their tools
// as offshoot tools named mcp__SERVER__TOOL (see ToolName), whose parameter
// schema is the server's input schema, passed on unchanged. Hand them to an
// evaluation as runner.Request.Tools; a subagent inherits them with
// its parent's toolset, and tools.Filter entries select them: "mcp__SERVER"
// or "mcp__SERVER__*" for one server's tools, "mcp__*" for all.
//
// A call sends the model's arguments to the server and shows the model the
// text of the result; an image, audio or binary file gets a sentence in its
// place; a result the server marks as an error is a failed call. Calls
// honour their context and a per-call timeout of 5 minutes; starting a
// server and listing its tools may take 30 seconds.
//
// Servers are shared by every agent of the run and stopped by Close: a
// command server's whole process group is killed, so nothing it started is
// left behind. A server that cannot be started, or stops, never fails the
// run: it becomes a warning (WithWarnings, Warnings), and calls of its
// tools fail with a result that says why. A server that stopped is started
// again on the next call, at most twice in a run.
package mcp
