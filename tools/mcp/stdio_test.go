package mcp_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/tools/mcp"
)

func TestStdioServerRoundTrip(t *testing.T) {
	dir := t.TempDir()
	cfg := stdioConfig(t)
	cfg.Env = map[string]string{"GREETING": "hello from the config"}
	cfg.Dir = dir
	m := newManager(t, map[string]mcp.ServerConfig{"local": cfg})
	ts := toolsOf(t, m, "local")
	assert.Contains(t, ts.Names(), "mcp__local__echo")

	assert.Equal(t, "echo: over stdio", call(t, ts, "mcp__local__echo", `{"text":"over stdio"}`).Text)
	real, err := filepath.EvalSymlinks(dir)
	require.NoError(t, err)
	assert.Equal(t, "hello from the config in "+real, call(t, ts, "mcp__local__env", `{"name":"GREETING"}`).Text)
	t.Setenv("OFFSHOOT_TEST_INHERITED", "inherited")
	// The process started before the variable was set: it sees only what it
	// was started with.
	assert.Equal(t, " in "+real, call(t, ts, "mcp__local__env", `{"name":"OFFSHOOT_TEST_INHERITED"}`).Text)
	out := call(t, ts, "mcp__local__fail", `{"message":"quota exceeded"}`)
	assert.False(t, out.Success)
	assert.Equal(t, "quota exceeded", out.Text)
	assert.Empty(t, m.Warnings())
}

func TestStdioServerGetsThisProcessEnvironment(t *testing.T) {
	t.Setenv("OFFSHOOT_TEST_INHERITED", "inherited")
	m := newManager(t, map[string]mcp.ServerConfig{"local": stdioConfig(t)})
	out := call(t, toolsOf(t, m, "local"), "mcp__local__env", `{"name":"OFFSHOOT_TEST_INHERITED"}`)
	assert.True(t, strings.HasPrefix(out.Text, "inherited in "), out.Text)
}

func TestServerThatFailsToStart(t *testing.T) {
	tests := []struct {
		name   string
		cfg    func(t *testing.T) mcp.ServerConfig
		opts   []mcp.Option
		want   []string
		stderr string
	}{
		{
			name:   "exits at once",
			cfg:    func(t *testing.T) mcp.ServerConfig { return stdioConfig(t, "-exit-at-start") },
			want:   []string{`MCP server "broken": could not be started: its process ended (exit status 1); check its configuration in .mcp.json`},
			stderr: "cannot open the database: permission denied",
		},
		{
			name: "command not found",
			cfg: func(*testing.T) mcp.ServerConfig {
				return mcp.ServerConfig{Command: "offshoot-no-such-mcp-server"}
			},
			want: []string{`MCP server "broken": could not be started: exec: "offshoot-no-such-mcp-server": executable file not found in $PATH`},
		},
		{
			name: "never answers",
			cfg: func(t *testing.T) mcp.ServerConfig {
				return stdioConfig(t, "-hang-at-start", "-tag", "hang-"+strconv.Itoa(os.Getpid()))
			},
			opts: []mcp.Option{mcp.WithStartTimeout(200 * time.Millisecond)},
			want: []string{`MCP server "broken": could not be started: did not start within 200ms; check that its command runs by hand, or allow it more time`},
		},
		{
			name: "HTTP server not there",
			cfg: func(*testing.T) mcp.ServerConfig {
				return mcp.ServerConfig{Type: "http", URL: "http://127.0.0.1:1/mcp"}
			},
			want: []string{`MCP server "broken": could not be started: `},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var seen []*mcp.ServerError
			var mu sync.Mutex
			opts := append(tt.opts, mcp.WithWarnings(func(e *mcp.ServerError) {
				mu.Lock()
				defer mu.Unlock()
				seen = append(seen, e)
			}))
			cfg := tt.cfg(t)
			cfg.Source = ".mcp.json"
			m := newManager(t, map[string]mcp.ServerConfig{"broken": cfg, "good": inMemory(t)}, opts...)

			ts, err := m.Tools(ctx, "broken", "good")
			require.NoError(t, err, "a broken server never fails the run")
			assert.NotContains(t, strings.Join(ts.Names(), " "), "broken")
			assert.Contains(t, ts.Names(), "mcp__good__echo")

			warnings := m.Warnings()
			require.Len(t, warnings, 1)
			w := warnings[0]
			assert.Equal(t, "broken", w.Server)
			for _, want := range tt.want {
				assert.Contains(t, w.Error(), want)
			}
			assert.Equal(t, tt.stderr, w.Stderr)
			mu.Lock()
			assert.Equal(t, warnings, seen, "the callback saw the same warnings")
			mu.Unlock()

			// Asking again does not start it again.
			_, err = m.Tools(ctx, "broken")
			require.NoError(t, err)
			assert.Len(t, m.Warnings(), 1)
			if tt.name == "never answers" {
				requireLinux(t)
				assert.Empty(t, processesWith(t, "hang-"+strconv.Itoa(os.Getpid())), "the server that never answered was stopped")
			}
		})
	}
}

func TestServerThatExitsMidRun(t *testing.T) {
	m := newManager(t, map[string]mcp.ServerConfig{"local": stdioConfig(t)})
	ts := toolsOf(t, m, "local")
	pid := call(t, ts, "mcp__local__pid", `{}`).Text

	out := call(t, ts, "mcp__local__crash", `{}`)
	assert.False(t, out.Success)
	assert.Equal(t, `Tool 'mcp__local__crash' execution failed: the server stopped while the tool was running: MCP server "local": stopped: its process ended (exit status 3) (its last error output: crashing on purpose)`, out.Text)
	var se *mcp.ServerError
	require.ErrorAs(t, out.Err, &se)
	assert.Equal(t, "local", se.Server)
	require.Len(t, m.Warnings(), 1)
	assert.Equal(t, se, m.Warnings()[0])

	// The next call starts the server again.
	again := call(t, ts, "mcp__local__pid", `{}`)
	require.True(t, again.Success, again.Text)
	assert.NotEqual(t, pid, again.Text)

	// At most twice: the third time it stays down for the rest of the run.
	call(t, ts, "mcp__local__crash", `{}`)
	require.True(t, call(t, ts, "mcp__local__pid", `{}`).Success)
	call(t, ts, "mcp__local__crash", `{}`)
	out = call(t, ts, "mcp__local__echo", `{"text":"x"}`)
	assert.False(t, out.Success)
	assert.Equal(t, `Tool 'mcp__local__echo' execution failed: MCP server "local": stopped 3 times during this run and is not started again; the last time it stopped: its process ended (exit status 3) (its last error output: crashing on purpose)`, out.Text)
	assert.Len(t, m.Warnings(), 3)
	assert.Equal(t, ts.Names(), toolsOf(t, m, "local").Names(), "its tools stay listed, and their calls say why they fail")
}

func TestNoProcessIsLeftBehind(t *testing.T) {
	requireLinux(t)
	tag := fmt.Sprintf("orphans-%d", os.Getpid())
	m, err := mcp.NewManager(map[string]mcp.ServerConfig{"local": stdioConfig(t, "-tag", tag)})
	require.NoError(t, err)
	ts := toolsOf(t, m, "local")
	serverPID, err := strconv.Atoi(call(t, ts, "mcp__local__pid", `{}`).Text)
	require.NoError(t, err)
	childPID, err := strconv.Atoi(call(t, ts, "mcp__local__spawn", `{}`).Text)
	require.NoError(t, err)
	assert.False(t, gone(serverPID))
	assert.False(t, gone(childPID))
	assert.Equal(t, []int{serverPID}, processesWith(t, tag))

	require.NoError(t, m.Close())
	assert.True(t, gone(serverPID), "Close waits for the server to stop")
	waitGone(t, childPID)
	assert.Empty(t, processesWith(t, tag))
}

func TestServerGroupIsStoppedWhenItDies(t *testing.T) {
	requireLinux(t)
	m := newManager(t, map[string]mcp.ServerConfig{"local": stdioConfig(t)})
	ts := toolsOf(t, m, "local")
	childPID, err := strconv.Atoi(call(t, ts, "mcp__local__spawn", `{}`).Text)
	require.NoError(t, err)
	call(t, ts, "mcp__local__crash", `{}`)
	waitGone(t, childPID)
}

func TestManyAgentsShareOneServer(t *testing.T) {
	m := newManager(t, map[string]mcp.ServerConfig{"local": stdioConfig(t)})
	var wg sync.WaitGroup
	pids := make([]string, 8)
	for i := range pids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ts, err := m.Tools(ctx, "local")
			if !assert.NoError(t, err) {
				return
			}
			pids[i] = call(t, ts, "mcp__local__pid", `{}`).Text
		}()
	}
	wg.Wait()
	for _, p := range pids {
		assert.Equal(t, pids[0], p, "one process serves every agent of the run")
	}
}
