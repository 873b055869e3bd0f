package runcmd

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"
)

// waiterEnv, set to a directory, makes the test binary an MCP server over
// standard input and output instead (see waiter).
const waiterEnv = "RUNCMD_TEST_WAITER"

func TestMain(m *testing.M) {
	if dir := os.Getenv(waiterEnv); dir != "" {
		waiter(dir)
		return
	}
	goleak.VerifyTestMain(m)
}

// waiter is an MCP server with one tool, wait, that records each call in
// dir/calls and answers only when the call is cancelled. It writes its
// process id to dir/pid when it starts.
func waiter(dir string) {
	if err := os.WriteFile(filepath.Join(dir, "pid"), fmt.Appendf(nil, "%d", os.Getpid()), 0o644); err != nil {
		os.Exit(1)
	}
	type none struct{}
	s := sdk.NewServer(&sdk.Implementation{Name: "waiter", Version: "1.0.0"}, nil)
	sdk.AddTool(s, &sdk.Tool{Name: "wait", Description: "Wait for the build."},
		func(ctx context.Context, _ *sdk.CallToolRequest, _ none) (*sdk.CallToolResult, any, error) {
			f, err := os.OpenFile(filepath.Join(dir, "calls"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
			if err == nil {
				fmt.Fprintln(f, "wait")
				f.Close()
			}
			<-ctx.Done()
			return nil, nil, ctx.Err()
		})
	if err := s.Run(context.Background(), &sdk.StdioTransport{}); err != nil {
		os.Exit(1)
	}
	os.Exit(0)
}
