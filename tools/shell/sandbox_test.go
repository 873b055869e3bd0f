package shell_test

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/tools/shell"
)

// confined returns a bash tool that runs commands in bubblewrap, or skips
// the test where bubblewrap cannot run.
func confined(t *testing.T, opts shell.Options) *shell.Tool {
	t.Helper()
	tool := newTool(t, opts)
	if !tool.Confined() {
		t.Skip("bubblewrap (bwrap) is not installed here, or cannot make namespaces (containers often forbid them): " +
			"the confined commands are not tested; install bubblewrap (Debian's bubblewrap package) to test them")
	}
	return tool
}

// TestConfined: inside bubblewrap a command sees the scratch directory
// and the system's programs, not the rest of the machine, and has no
// network; its files come back as unconfined ones do.
func TestConfined(t *testing.T) {
	secretDir := t.TempDir()
	secret := filepath.Join(secretDir, "id_rsa")
	require.NoError(t, os.WriteFile(secret, []byte("PRIVATE KEY"), 0o600))
	tmp, err := os.CreateTemp("", "offshoot-shell-test-*")
	require.NoError(t, err)
	require.NoError(t, tmp.Close())
	t.Cleanup(func() { _ = os.Remove(tmp.Name()) })
	tests := []struct {
		name    string
		command string
		exit    int    // 0, or -2 for any other than 0
		output  string // the output holds it
		not     string // the output does not hold it
	}{
		{name: "files come back", command: "sed -i s/a/b/ a.txt && echo new > n.txt && cat a.txt", output: "b\n"},
		{name: "host files hidden", command: "cat " + secret, exit: -2, not: "PRIVATE KEY"},
		{name: "shadow hidden", command: "cat /etc/shadow", exit: -2},
		{name: "home hidden", command: "ls -A /root /home 2>/dev/null | grep -v : | wc -l", output: "0\n"},
		{name: "system read-only", command: "touch /usr/offshoot-test", exit: -2},
		{name: "programs there", command: "awk 'BEGIN { print 6*7 }'", output: "42\n"},
		{name: "no network", command: "tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '", output: "lo\n"},
		{name: "private tmp", command: "ls -A /tmp; cat " + tmp.Name() + " 2>/dev/null && echo visible", exit: -2, not: filepath.Base(tmp.Name())},
		{name: "home is the scratch directory", command: `test "$HOME" = "$(pwd)" && echo same`, output: "same\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := watchdog(t)
			tool := confined(t, shell.Options{})
			s := newSession(t, tool, map[string]string{"a.txt": "a\n"})
			out := run(t, ctx, tool, s, tt.command, 0)
			r := resultOf(t, out)
			if tt.exit == 0 {
				assert.Equal(t, 0, r.ExitCode, out.Text)
			} else {
				assert.NotEqual(t, 0, r.ExitCode, out.Text)
			}
			assert.Contains(t, r.Output, tt.output)
			if tt.not != "" {
				assert.NotContains(t, r.Output, tt.not)
			}
		})
	}
	t.Run("changes reach the session", func(t *testing.T) {
		ctx := watchdog(t)
		tool := confined(t, shell.Options{})
		s := newSession(t, tool, map[string]string{"a.txt": "a\n", "old.txt": "x"})
		out := run(t, ctx, tool, s, "sed -i s/a/b/ a.txt && echo new > n.txt && rm old.txt", 0)
		assert.Contains(t, out.Text, "Files changed: edited a.txt, created n.txt, deleted old.txt.")
		assert.Equal(t, map[string]string{"a.txt": "b\n", "n.txt": "new\n"}, files(s))
	})
}

// TestConfinedKilled: a confined command's background children and a
// command past its timeout leave nothing running.
func TestConfinedKilled(t *testing.T) {
	tests := []struct {
		name    string
		command string
		ms      int
	}{
		{"background child", "sleep 61.%d & echo left", 0},
		{"timeout", "sleep 61.%d", 1000},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := watchdog(t)
			tool := confined(t, shell.Options{})
			s := newSession(t, tool, nil)
			marker := "61." + strings.Repeat("7", i+3)
			cmd := strings.Replace(tt.command, "61.%d", marker, 1)
			out := run(t, ctx, tool, s, cmd, tt.ms)
			if tt.ms > 0 {
				assert.True(t, resultOf(t, out).TimedOut, out.Text)
			}
			requireNoProcess(t, ctx, "sleep\x00"+marker)
		})
	}
}

// TestDescription: the model is told whether commands run confined.
func TestDescription(t *testing.T) {
	assert.Contains(t, unconfined(t).Spec().Description, "It runs unconfined, as the user")
	for _, what := range []string{"the user's keys", "the environment of the program that runs it", "the network"} {
		assert.Contains(t, unconfined(t).Spec().Description, what, "unconfined says plainly what it can reach")
	}
	assert.Contains(t, unconfined(t).Spec().Description, "It may run 2 minutes (timeout")
	assert.Contains(t, newTool(t, shell.Options{Unconfined: true, Timeout: 90 * time.Second}).Spec().Description, "It may run 90 seconds (timeout")
	tool := newTool(t, shell.Options{})
	if tool.Confined() {
		assert.Contains(t, tool.Spec().Description, "It runs in a sandbox")
		assert.Contains(t, tool.Spec().Description, "without network")
		net := newTool(t, shell.Options{Network: true})
		assert.Contains(t, net.Spec().Description, "it may use the network")
	} else {
		assert.Contains(t, tool.Spec().Description, "It runs unconfined, as the user")
	}
}

// requireNoProcess waits (up to the watchdog) until no process runs with
// a command line holding marker.
func requireNoProcess(t *testing.T, ctx interface{ Done() <-chan struct{} }, marker string) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("reading processes needs Linux's /proc")
	}
	for {
		var live []string
		paths, _ := filepath.Glob("/proc/[0-9]*/cmdline")
		for _, p := range paths {
			data, err := os.ReadFile(p)
			if err == nil && bytes.Contains(data, []byte(marker)) {
				if stat, err := os.ReadFile(filepath.Join(filepath.Dir(p), "stat")); err == nil && !zombie(stat) {
					live = append(live, p)
				}
			}
		}
		if len(live) == 0 {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("processes of the command are still running: %v", live)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// zombie reports whether a /proc/PID/stat is a zombie's.
func zombie(stat []byte) bool {
	i := bytes.LastIndexByte(stat, ')')
	return i >= 0 && i+2 < len(stat) && (stat[i+2] == 'Z' || stat[i+2] == 'X')
}

// TestBwrapArgs: bubblewrap is asked for new namespaces, network only
// when allowed, the scratch directory writable, and /etc in parts.
func TestBwrapArgs(t *testing.T) {
	for _, network := range []bool{false, true} {
		args := shell.BwrapArgs("/usr/bin/bwrap", "/tmp/s", "echo hi", network)
		joined := strings.Join(args, " ")
		assert.Equal(t, "/usr/bin/bwrap", args[0])
		assert.Contains(t, joined, "--unshare-all")
		assert.Equal(t, network, strings.Contains(joined, "--share-net"))
		assert.Contains(t, joined, "--bind /tmp/s /tmp/s --chdir /tmp/s")
		assert.Equal(t, []string{"--", "/bin/sh", "-c", "echo hi"}, args[len(args)-4:])
		assert.NotContains(t, joined, "--ro-bind /etc /etc")
		assert.NotContains(t, joined, "/home")
		assert.NotContains(t, joined, "/etc/shadow")
	}
}
