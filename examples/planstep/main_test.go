package main

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	if os.Getenv("PLANSTEP_RUN_MAIN") == "1" {
		main()
		os.Exit(0)
	}
	goleak.VerifyTestMain(m)
}

func TestRun(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run(&out))
	got := out.String()
	for _, want := range []string{
		"── prompt demo/planner rendered",
		"     ## 4. Subagents",
		"▸ model turn 1 (scripted): calls planning_setup_plan",
		"▸ model turn 2 (scripted): calls dispatch_subagent, dispatch_subagent",
		"  ┌ subagent agent-1 started: agents/reviewer, forked from s1, depth 1",
		"  ┌ subagent agent-2 started: agents/reviewer, forked from s1, depth 1",
		"   ✓ read_file {\"file_path\":\"billing/invoice.py\"}",
		"   ✓ write_file {\"file_path\":\"notes/tax.md\"",
		"   ✎ invoice.py: subtotal sums floats",
		"▸   ✎ Both steps are done",
		"  S001 Review billing/invoice.py [done]",
		"  S002 Review billing/tax.py [done]",
		"      Subagent: invoice.py: subtotal sums floats",
		"  ✓ artifact: notes/invoice.md, written by a child, reached the parent with the child's result",
		"  ✓ teardown: all 2 children closed and detached from the bus",
	} {
		assert.Contains(t, got, want)
	}
	assert.Equal(t, 2, strings.Count(got, "  ✓ parity: child session"))
	assert.Equal(t, 2, strings.Count(got, "  ✓ isolation: the parent's state did not change"))
	assert.Equal(t, 2, strings.Count(got, "finished in"))
	assert.NotContains(t, got, "✗")
}

// TestMainExitsZero runs the program itself, as `go run ./examples/planstep`
// does, and checks its exit code and output.
func TestMainExitsZero(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "PLANSTEP_RUN_MAIN=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), "stderr: %s", stderr.String())
	assert.Equal(t, 0, cmd.ProcessState.ExitCode())
	assert.Contains(t, stdout.String(), "Checks:")
	assert.Empty(t, stderr.String())
}
