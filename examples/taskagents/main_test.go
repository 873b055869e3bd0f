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
	if os.Getenv("TASKAGENTS_RUN_MAIN") == "1" {
		main()
		os.Exit(0)
	}
	goleak.VerifyTestMain(m)
}

func TestRun(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run(&out, "."))
	got := out.String()
	for _, want := range []string{
		// The agents, from the files beside the program.
		"  security-reviewer  project file .claude/agents/security-reviewer.md — model sonnet, tools: read_file, grep, glob\n",
		"  summarizer         project file .offshoot/agents/summarizer.md — model light, tools: read_file, glob\n",
		"  and the built-ins: explore, general-purpose, plan, summary\n",
		// The main agent has the agents section and Task.
		"▸ prompt demo/main: 1. Assistant, 2. Virtual Filesystem, 3. Agents; tools: ls, read_file, write_file, edit_file, glob, grep, rm, Task, TaskOutput, TaskStop\n",
		"▸ model turn 1 (scripted-main): calls Task, Task, Task\n",
		// Each agent: its model, its prompt's shape, only its own tools.
		"  ┌ summarizer started (agent-",
		", model scripted-light, forked from s1)\n",
		"  ┌ security-reviewer started (agent-",
		", model scripted-main, forked from s1)\n",
		"  │ summarizer prompt task/agent: (# Task), 1. Starting State, 2. Subagent; tools: read_file, glob\n",
		"  │ security-reviewer prompt task/agent: (# Task), 1. Starting State, 2. Subagent; tools: read_file, glob, grep\n",
		"  │ security-reviewer   ✓ read_file {\"file_path\":\"app/login.py\"} → app/login.py: lines 1-9 of 9\n",
		// Their text, streamed line by line.
		"  │ security-reviewer   ✎ app/login.py:7 builds its SQL with an f-string: injection. Use a parameter (WHERE name = ?).\n",
		"  │ summarizer   ✎ Open: keep or drop 30-day \"remember me\" tokens.\n",
		"  └ security-reviewer finished: 2 tool calls, ",
		"  └ summarizer finished: 1 tool call, ",
		// What the main agent reads, and its answer.
		"→ Subagent (security-reviewer, scripted-main) completed.\n",
		"→ Subagent (summarizer, scripted-light) completed.\n",
		"▸   ✎ No, not yet: login.py is open to SQL injection (line 7) and compares plaintext passwords (line 9).\n",
		"  Task completed by security-reviewer (agent-",
		" on scripted-main): grep ×1, read_file ×1, ",
		"  Task completed by summarizer (agent-",
		" on scripted-light): read_file ×1, ",
		// The background agent: launched, the main agent answers, it ends,
		// and the main agent's next model call reads its notification.
		"  ┌ explore started (agent-",
		"▸   ✓ Task {\"subagent_type\":\"explore\",\"description\":\"Find other password handlin… → Subagent (explore, scripted-light) started in the backgroun…\n",
		"  Task started in the background by explore (agent-",
		"\nThe main agent has answered; the explore agent works on in the background.\n",
		"  │ explore   ✎ Only app/login.py handles passwords (lines 6-9): it reads the stored one and compares it in plaintext.\n",
		"  └ explore finished: 1 tool call, ",
		" completed; its notification waits for the main agent's next model call\n",
		") has completed.\n" +
			"▸   ✎ The explore agent is done: app/login.py is the only code that handles passwords, so fixing it covers everything.\n",
	} {
		assert.Contains(t, got, want)
	}
	// The order of what the background agent did.
	assert.Regexp(t, `(?s)An explore agent is still looking.*\n▸ model turn 2 \(scripted-main\): answers\n\nThe main agent has answered.*`+
		`└ explore finished.*◆ background task agent-\d completed.*▸ reads: <task-notification> The background task agent-\d \(Find other password handling, by the explore agent\) has completed\.\n`, got)
	assert.NotContains(t, got, "warning")
	assert.NotContains(t, got, "✗")
	// The read-only reviewer never had a tool to write with.
	assert.NotRegexp(t, `security-reviewer prompt [^\n]*write_file`, got)
}

// TestMainExitsZero runs the program itself, as `go run ./examples/taskagents`
// does, and checks its exit code and output.
func TestMainExitsZero(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "TASKAGENTS_RUN_MAIN=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), "stderr: %s", stderr.String())
	assert.True(t, strings.HasPrefix(stdout.String(), "offshoot taskagents demo"))
	assert.Contains(t, stdout.String(), "usage: main agent ")
}
