package mcp_test

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/tools/mcp"
)

// TestHelperParent is the parent process of TestServersDieWithTheirParent:
// it starts a stdio server, says so, and waits to be killed.
func TestHelperParent(t *testing.T) {
	bin, marker := os.Getenv("MCP_DEATHSIG_BIN"), os.Getenv("MCP_DEATHSIG_MARKER")
	if bin == "" {
		t.Skip("run by TestServersDieWithTheirParent")
	}
	m, err := mcp.NewManager(map[string]mcp.ServerConfig{"s": {Command: bin, Args: []string{"-outlive", "-tag", marker}}})
	require.NoError(t, err)
	_, err = m.Tools(ctx, "s")
	require.NoError(t, err)
	fmt.Println("ready")
	select {} // until killed
}

// When offshoot is killed with SIGKILL — nothing of it runs to stop its
// servers — the kernel ends its stdio MCP servers with it, even one that
// keeps running when its input closes (as some npm servers do): none is
// left running under init.
func TestServersDieWithTheirParent(t *testing.T) {
	requireLinux(t)
	if runtime.GOOS != "linux" {
		t.Skip("the parent-death signal is Linux's")
	}
	marker := fmt.Sprintf("deathsig-%d", os.Getpid())
	parent := exec.Command(os.Args[0], "-test.run=^TestHelperParent$", "-test.count=1")
	parent.Env = append(os.Environ(), "MCP_DEATHSIG_BIN="+serverBinary(t), "MCP_DEATHSIG_MARKER="+marker)
	out, err := parent.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, parent.Start())
	defer func() { _ = parent.Process.Kill(); _ = parent.Wait() }()
	ready := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if strings.TrimSpace(sc.Text()) == "ready" {
				ready <- true
				return
			}
		}
		ready <- false
	}()
	select {
	case ok := <-ready:
		require.True(t, ok, "the parent did not start its server")
	case <-time.After(time.Minute): // watchdog
		t.Fatal("the parent did not start its server within a minute")
	}
	servers := processesWith(t, marker)
	require.Len(t, servers, 1, "the server runs")

	require.NoError(t, parent.Process.Signal(syscall.SIGKILL))
	_ = parent.Wait()
	waitGone(t, servers[0])
}

// A server that writes what is no MCP on its standard output is reported
// with the protocol error that made offshoot stop it, not as a process
// that ended by a signal.
func TestAServerThatWritesGarbage(t *testing.T) {
	requireLinux(t)
	m := newManager(t, map[string]mcp.ServerConfig{"noisy": stdioConfig(t, "-garbage")})
	_, _ = m.Tools(ctx, "noisy") // an unavailable server is a warning
	warnings := m.Warnings()
	require.Len(t, warnings, 1)
	msg := warnings[0].Error()
	require.NotContains(t, msg, "signal: terminated")
	require.NotContains(t, msg, "signal: killed")
	require.Contains(t, msg, "invalid character")
}
