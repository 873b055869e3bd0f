// Command stdio runs the test server over standard input and output.
//
//	-exit-at-start   write a reason to standard error and exit 1 at once
//	-hang-at-start   never answer
//	-garbage         write lines that are no JSON-RPC on standard output, then wait
//	-outlive         when standard input closes, keep running for an hour,
//	                 as servers that ignore the end of their input do
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
	outlive := flag.Bool("outlive", false, "keep running when standard input closes")
	garbage := flag.Bool("garbage", false, "write what is no JSON-RPC on standard output, then wait")
	flag.String("tag", "", "ignored: marks the process, so that tests can find it")
	flag.Parse()
	switch {
	case *exitAtStart:
		fmt.Fprintln(os.Stderr, "cannot open the database: permission denied")
		os.Exit(1)
	case *hangAtStart:
		time.Sleep(time.Hour)
	case *garbage:
		fmt.Println("Welcome to the server! Starting up...")
		time.Sleep(time.Hour)
	}
	err := testserver.New().Run(context.Background(), &mcp.StdioTransport{})
	if *outlive {
		time.Sleep(time.Hour)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
