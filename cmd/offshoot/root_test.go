package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/cli"
)

// run runs offshoot in this process on a project and a home of its own.
func run(t *testing.T, ctx context.Context, project string, vars map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	env := &cli.Env{
		Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut,
		Getenv: func(k string) string { return vars[k] },
	}
	code = Run(ctx, env, append([]string{"--project", project}, args...))
	return code, out.String(), errOut.String()
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
}

func TestRunExitCodes(t *testing.T) {
	project, home := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(project, ".offshoot/agents/bad.md"), "---\nname: bad\n---\nNo description.\n")
	vars := map[string]string{"HOME": home}
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"success", []string{"agents", "list"}, cli.ExitOK, "left out"},
		{"help", []string{"--help"}, cli.ExitOK, ""},
		{"operation failed", []string{"agents", "validate"}, cli.ExitFailed, "fix the files above"},
		{"not found", []string{"agents", "show", "nobody"}, cli.ExitFailed, `no agent is called "nobody"`},
		{"unknown command", []string{"nothing"}, cli.ExitUsage, "run 'offshoot --help' for usage"},
		{"unknown subcommand", []string{"agents", "nothing"}, cli.ExitUsage, `has no command "nothing"`},
		{"unknown flag", []string{"agents", "list", "--nope"}, cli.ExitUsage, "unknown flag: --nope"},
		{"missing argument", []string{"agents", "rm"}, cli.ExitUsage, "takes one argument, NAME"},
		{"bad name", []string{"agents", "new", "No Good", "--description", "d"}, cli.ExitUsage, "must be 1 to 64 lower-case letters"},
		{"no model", []string{"agents", "new", "drafted", "--generate", "reviews code"}, cli.ExitUsage, "LLM_MODEL_ID"},
		{"unreadable snapshot", []string{"snapshot", "diff", "a", "b"}, cli.ExitUsage, "cannot read the snapshot"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := run(t, context.Background(), project, vars, tt.args...)
			assert.Equal(t, tt.code, code, stderr)
			if tt.stderr != "" {
				assert.Contains(t, stderr, tt.stderr)
			}
			if code != cli.ExitOK {
				assert.True(t, strings.HasPrefix(stderr, "offshoot: ") || strings.Contains(stderr, "\noffshoot: "), "errors are prefixed: %q", stderr)
			}
		})
	}
}

// TestShowInterrupted checks that Ctrl-C while MCP servers start ends
// agents show at once, with no server process and no goroutine left.
func TestShowInterrupted(t *testing.T) {
	if _, err := os.Stat("/proc/self/cmdline"); err != nil {
		t.Skip("needs /proc to look for the server's process")
	}
	project, home := t.TempDir(), t.TempDir()
	const marker = "4242.4242"
	// The user's own server: agents show starts it without asking (a
	// project's server only once approved).
	writeFile(t, filepath.Join(home, ".offshoot", "config.json"), `{"mcpServers": {"slow": {"command": "sleep", "args": ["`+marker+`"]}}}`)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	var code int
	var stderr string
	go func() {
		defer close(done)
		code, _, stderr = run(t, ctx, project, map[string]string{"HOME": home}, "agents", "show", "general-purpose")
	}()
	require.Eventually(t, func() bool { return len(processesWith(t, marker)) > 0 }, 10*time.Second, 20*time.Millisecond, "the server never started")
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("agents show did not stop after the interrupt")
	}
	assert.Equal(t, cli.ExitFailed, code)
	assert.Contains(t, stderr, "interrupted while the MCP servers started")
	assert.Empty(t, processesWith(t, marker), "the server's process is left behind")
}

// processesWith returns the ids of running processes whose command line
// holds marker.
func processesWith(t *testing.T, marker string) []string {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	require.NoError(t, err)
	var pids []string
	for _, e := range entries {
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !bytes.Contains(cmdline, []byte(marker)) {
			continue
		}
		if stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err == nil {
			if i := bytes.LastIndexByte(stat, ')'); i > 0 && i+2 < len(stat) && (stat[i+2] == 'Z' || stat[i+2] == 'X') {
				continue
			}
		}
		pids = append(pids, e.Name())
	}
	return pids
}

// Every command's help reads well in an 80-column terminal: its
// paragraphs are filled, not ragged, and no line is longer than 80.
func TestHelpIsFilled(t *testing.T) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, para := range strings.Split(c.Long, "\n\n") {
			lines := strings.Split(para, "\n")
			for i, l := range lines {
				assert.LessOrEqual(t, utf8.RuneCountInString(l), 80, "%s: %q", c.CommandPath(), l)
				if i < len(lines)-1 && !strings.HasPrefix(l, " ") && !strings.HasPrefix(lines[i+1], " ") {
					assert.GreaterOrEqual(t, utf8.RuneCountInString(l)+len(strings.Fields(lines[i+1])[0]), 66,
						"%s: the line %q is short for its paragraph", c.CommandPath(), l)
				}
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRoot(&cli.Env{}))
}
