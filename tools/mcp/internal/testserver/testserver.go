// Package testserver is the MCP server the tests of package mcp run: a
// handful of tools that echo, fail, sleep, crash, return an image, start
// a child process, and read the environment. It is built with the official
// SDK, so the tests exercise the real protocol. The stdio subdirectory
// runs it as a program.
package testserver

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// EchoArgs are the arguments of echo.
type EchoArgs struct {
	Text string `json:"text" jsonschema:"the text to send back"`
}

// FailArgs are the arguments of fail.
type FailArgs struct {
	Message string `json:"message" jsonschema:"what went wrong"`
}

// SlowArgs are the arguments of slow.
type SlowArgs struct {
	Millis int `json:"ms" jsonschema:"how long to sleep, in milliseconds"`
}

// EnvArgs are the arguments of env.
type EnvArgs struct {
	Name string `json:"name" jsonschema:"the variable to read"`
}

// Sum is the structured result of add.
type Sum struct {
	Sum int `json:"sum"`
}

// AddArgs are the arguments of add.
type AddArgs struct {
	A int `json:"a"`
	B int `json:"b"`
}

// None stands for no arguments.
type None struct{}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// New returns the server with all its tools.
func New() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "testserver", Version: "1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Send the text back.", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, _ *mcp.CallToolRequest, a EchoArgs) (*mcp.CallToolResult, any, error) {
			return text("echo: " + a.Text), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "fail", Description: "Fail with the message."},
		func(_ context.Context, _ *mcp.CallToolRequest, a FailArgs) (*mcp.CallToolResult, any, error) {
			r := text(a.Message)
			r.IsError = true
			return r, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "slow", Description: "Sleep, then answer."},
		func(ctx context.Context, _ *mcp.CallToolRequest, a SlowArgs) (*mcp.CallToolResult, any, error) {
			select {
			case <-time.After(time.Duration(a.Millis) * time.Millisecond):
				return text("slept"), nil, nil
			case <-ctx.Done():
				return nil, nil, ctx.Err()
			}
		})
	mcp.AddTool(s, &mcp.Tool{Name: "crash", Description: "Exit the server at once."},
		func(context.Context, *mcp.CallToolRequest, None) (*mcp.CallToolResult, any, error) {
			fmt.Fprintln(os.Stderr, "crashing on purpose")
			os.Exit(3)
			return nil, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "image", Description: "Return a chart and its caption."},
		func(context.Context, *mcp.CallToolRequest, None) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{
				&mcp.TextContent{Text: "Sales by month."},
				&mcp.ImageContent{MIMEType: "image/png", Data: make([]byte, 2048)},
			}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "spawn", Description: "Start a long-running child process and return its process id."},
		func(context.Context, *mcp.CallToolRequest, None) (*mcp.CallToolResult, any, error) {
			cmd := exec.Command("sleep", "300")
			if err := cmd.Start(); err != nil {
				return nil, nil, err
			}
			return text(fmt.Sprint(cmd.Process.Pid)), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "pid", Description: "Return the server's process id."},
		func(context.Context, *mcp.CallToolRequest, None) (*mcp.CallToolResult, any, error) {
			return text(fmt.Sprint(os.Getpid())), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "env", Description: "Return an environment variable of the server."},
		func(_ context.Context, _ *mcp.CallToolRequest, a EnvArgs) (*mcp.CallToolResult, any, error) {
			wd, _ := os.Getwd()
			return text(os.Getenv(a.Name) + " in " + wd), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "add", Description: "Add two numbers."},
		func(_ context.Context, _ *mcp.CallToolRequest, a AddArgs) (*mcp.CallToolResult, Sum, error) {
			return nil, Sum{a.A + a.B}, nil
		})
	return s
}
