package mcp_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/offshoot-dev/offshoot/tools"
	"github.com/offshoot-dev/offshoot/tools/mcp"
	"github.com/offshoot-dev/offshoot/tools/mcp/internal/testserver"
)

var ctx = context.Background()

// binDir holds the test server program, built once by serverBinary.
var binDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "mcp-test-bin-")
	if err != nil {
		panic(err)
	}
	binDir = dir
	goleak.VerifyTestMain(m, goleak.Cleanup(func(int) { _ = os.RemoveAll(dir) }))
}

var (
	buildOnce sync.Once
	buildErr  error
)

// serverBinary builds the test server program (internal/testserver/stdio)
// with go build, once, and returns its path.
func serverBinary(t testing.TB) string {
	t.Helper()
	bin := filepath.Join(binDir, "testserver")
	buildOnce.Do(func() {
		out, err := exec.Command("go", "build", "-o", bin, "./internal/testserver/stdio").CombinedOutput()
		if err != nil {
			buildErr = &buildError{err: err, out: string(out)}
		}
	})
	require.NoError(t, buildErr)
	return bin
}

type buildError struct {
	err error
	out string
}

func (e *buildError) Error() string {
	return "building the test server: " + e.err.Error() + "\n" + e.out
}

// stdioConfig runs the test server program with args.
func stdioConfig(t testing.TB, args ...string) mcp.ServerConfig {
	return mcp.ServerConfig{Command: serverBinary(t), Args: args}
}

// inMemory connects a new test server in this process.
func inMemory(t testing.TB) mcp.ServerConfig {
	t.Helper()
	return inMemoryOf(t, testserver.New())
}

func inMemoryOf(t testing.TB, srv *sdk.Server) mcp.ServerConfig {
	t.Helper()
	serverSide, clientSide := sdk.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, serverSide, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = ss.Close() })
	return mcp.ServerConfig{Transport: clientSide}
}

// newManager returns a Manager closed when the test ends.
func newManager(t testing.TB, servers map[string]mcp.ServerConfig, opts ...mcp.Option) *mcp.Manager {
	t.Helper()
	m, err := mcp.NewManager(servers, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, m.Close()) })
	return m
}

// toolsOf returns the tools of the named servers.
func toolsOf(t testing.TB, m *mcp.Manager, names ...string) tools.Toolset {
	t.Helper()
	ts, err := m.Tools(ctx, names...)
	require.NoError(t, err)
	return ts
}

// call calls the tool named name of ts.
func call(t testing.TB, ts tools.Toolset, name, args string) tools.Outcome {
	t.Helper()
	tool, ok := ts.Lookup(name)
	require.True(t, ok, "no tool %s in %v", name, ts.Names())
	return tool.Call(ctx, nil, []byte(args))
}

// gone reports whether the process pid no longer runs: it does not exist
// or is a zombie waiting for its parent to reap it.
func gone(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	// The state follows the command name, which is in parentheses.
	s := string(stat)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] == 'Z' || s[i+2] == 'X'
	}
	return false
}

// waitGone waits for pid to stop, with a watchdog of thirty seconds.
func waitGone(t testing.TB, pid int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !gone(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("process %d still runs", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// processesWith returns the ids of the running processes whose command
// line contains marker.
func processesWith(t testing.TB, marker string) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	require.NoError(t, err)
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil || !strings.Contains(string(cmdline), marker) || gone(pid) {
			continue
		}
		pids = append(pids, pid)
	}
	return pids
}

// requireLinux skips tests that read /proc.
func requireLinux(t testing.TB) {
	t.Helper()
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc to check processes")
	}
}
