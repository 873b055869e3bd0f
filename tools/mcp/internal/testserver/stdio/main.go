// Command stdio runs the test server over standard input and output.
//
//	-exit-at-start   write a reason to standard error and exit 1 at once
//	-hang-at-start   never answer
//	-tag TEXT        ignored; marks the process for tests that look for it
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/offshoot-dev/offshoot/tools/mcp/internal/testserver"
)

func main() {
	exitAtStart := flag.Bool("exit-at-start", false, "exit at once with a reason on standard error")
	hangAtStart := flag.Bool("hang-at-start", false, "never answer")
	flag.String("tag", "", "ignored: marks the process, so that tests can find it")
	flag.Parse()
	switch {
	case *exitAtStart:
		fmt.Fprintln(os.Stderr, "cannot open the database: permission denied")
		os.Exit(1)
	case *hangAtStart:
		time.Sleep(time.Hour)
	}
	if err := testserver.New().Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
