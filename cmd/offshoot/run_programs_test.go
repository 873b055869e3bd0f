package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rogpeppe/go-internal/testscript"
)

// mcpWait is an MCP server over standard input and output with one tool,
// wait, that answers only when the call is cancelled: "mcp-wait DIR"
// writes its process id to DIR/pid when it starts and a line to
// DIR/calls for each call.
func mcpWait() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: mcp-wait DIR")
		os.Exit(2)
	}
	dir := os.Args[1]
	if err := os.WriteFile(filepath.Join(dir, "pid"), []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	type none struct{}
	s := sdk.NewServer(&sdk.Implementation{Name: "waiter", Version: "1.0.0"}, nil)
	sdk.AddTool(s, &sdk.Tool{Name: "wait", Description: "Wait for the build."},
		func(ctx context.Context, _ *sdk.CallToolRequest, _ none) (*sdk.CallToolResult, any, error) {
			if f, err := os.OpenFile(filepath.Join(dir, "calls"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
				fmt.Fprintln(f, "wait")
				f.Close()
			}
			<-ctx.Done()
			return nil, nil, ctx.Err()
		})
	if err := s.Run(context.Background(), &sdk.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// waitFor waits until a file holds at least a number of lines, for at
// most 30 seconds: "waitfor FILE [LINES]" (one line by default).
func waitFor(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: waitfor FILE [LINES | /REGEXP/]")
	}
	want := 1
	var re *regexp.Regexp
	if len(args) == 2 {
		if rest, ok := strings.CutPrefix(args[1], "/"); ok && strings.HasSuffix(rest, "/") && len(rest) > 1 {
			var err error
			if re, err = regexp.Compile("(?m)" + strings.TrimSuffix(rest, "/")); err != nil {
				ts.Fatalf("waitfor: %v", err)
			}
		} else {
			n, err := strconv.Atoi(args[1])
			if err != nil || n < 1 {
				ts.Fatalf("waitfor: %q is neither a number of lines nor a /regexp/", args[1])
			}
			want = n
		}
	}
	path := ts.MkAbs(args[0])
	deadline := time.Now().Add(30 * time.Second) // a watchdog, not an expectation
	for {
		data, err := os.ReadFile(path)
		if err == nil && (re == nil && strings.Count(string(data), "\n") >= want || re != nil && re.Match(data)) {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("waitfor: %s does not hold %s after 30s", args[0], args[len(args)-1])
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// gone checks that the process whose id a file holds has ended: "gone
// PIDFILE".
func gone(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: gone PIDFILE")
	}
	pid, err := strconv.Atoi(strings.TrimSpace(ts.ReadFile(args[0])))
	if err != nil {
		ts.Fatalf("gone: %s holds no process id", args[0])
	}
	if alive(pid) {
		ts.Fatalf("gone: the process %d is still there", pid)
	}
}

// alive reports whether the process pid runs.
func alive(pid int) bool {
	p, err := os.FindProcess(pid)
	return err == nil && p.Signal(syscall.Signal(0)) == nil
}

// waitGone waits until the processes whose ids a file holds have ended,
// for at most 30 seconds: "waitgone FILE /REGEXP/" takes the ids from the
// regexp's groups. A process that ended and that no one reaped (a zombie)
// has ended.
func waitGone(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 || !strings.HasPrefix(args[1], "/") || !strings.HasSuffix(args[1], "/") || len(args[1]) < 3 {
		ts.Fatalf("usage: waitgone FILE /REGEXP/")
	}
	re, err := regexp.Compile(args[1][1 : len(args[1])-1])
	if err != nil {
		ts.Fatalf("waitgone: %v", err)
	}
	m := re.FindStringSubmatch(ts.ReadFile(args[0]))
	if len(m) < 2 {
		ts.Fatalf("waitgone: %s holds no process ids matching %s", args[0], args[1])
	}
	deadline := time.Now().Add(30 * time.Second) // a watchdog, not an expectation
	for _, s := range m[1:] {
		pid, err := strconv.Atoi(s)
		if err != nil {
			ts.Fatalf("waitgone: %q is no process id", s)
		}
		for running(pid) {
			if time.Now().After(deadline) {
				ts.Fatalf("waitgone: the process %d is still there after 30s", pid)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// running reports whether the process pid runs: alive, and not a zombie
// (on systems with /proc).
func running(pid int) bool {
	if !alive(pid) {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	_, rest, ok := strings.Cut(string(stat), ") ")
	return !ok || !strings.HasPrefix(rest, "Z")
}
