package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	"go.uber.org/goleak"
)

// TestMain makes the test binary act as offshoot, and as the helper
// programs the scripts use, when run under those names; otherwise it runs
// the tests and then checks that none left a goroutine behind.
func TestMain(m *testing.M) {
	testscript.Main(leakChecked{m}, map[string]func(){
		"offshoot":         func() { os.Exit(runMain()) },
		"fake-editor":      fakeEditor,
		"mcp-notes":        mcpNotes,
		"make-snapshot":    makeSnapshot,
		"make-transcripts": makeTranscripts,
		"backdate":         backdate,
		"mcp-wait":         mcpWait,
		"sql":              runSQL,
		"nats-server":      natsServer,
	})
}

// leakChecked runs the tests, then fails the run if a goroutine leaked.
type leakChecked struct{ m *testing.M }

func (l leakChecked) Run() int {
	code := l.m.Run()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			return 1
		}
	}
	return code
}

// TestScripts runs the scripts of testdata/script: one per command family,
// each in a temporary project directory ($WORK) with a temporary home
// ($HOME), offline.
func TestScripts(t *testing.T) {
	// A watchdog: commands still running at the deadline are killed,
	// half a minute before the test binary's own timeout would end the
	// run without saying which command hung.
	deadline := time.Now().Add(8 * time.Minute)
	if d, ok := t.Deadline(); ok {
		deadline = d.Add(-30 * time.Second)
	}
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		Deadline:            deadline,
		Setup: func(env *testscript.Env) error {
			home, err := os.MkdirTemp("", "offshoot-home-")
			if err != nil {
				return err
			}
			env.Defer(func() { _ = os.RemoveAll(home) })
			env.Setenv("HOME", home)
			for _, v := range []string{"VISUAL", "EDITOR", "OFFSHOOT_SCRIPTED_MODEL",
				"LLM_MODEL_ID", "LLM_API_KEY", "LLM_BASE_URL", "LIGHT_LLM_MODEL_ID", "LIGHT_LLM_API_KEY", "LIGHT_LLM_BASE_URL"} {
				env.Setenv(v, "")
			}
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exits":    exits,
			"waitfor":  waitFor,
			"gone":     gone,
			"waitgone": waitGone,
			"capture":  capture,
		},
	})
}

// capture sets an environment variable to what a regular expression's
// first group matches in the last command's standard output or error:
//
//	capture VAR stdout|stderr REGEXP
func capture(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 || args[1] != "stdout" && args[1] != "stderr" {
		ts.Fatalf("usage: capture VAR stdout|stderr REGEXP")
	}
	re, err := regexp.Compile("(?m)" + args[2])
	ts.Check(err)
	m := re.FindStringSubmatch(ts.ReadFile(args[1]))
	if len(m) < 2 {
		ts.Fatalf("capture: no match for %s in %s", args[2], args[1])
	}
	ts.Setenv(args[0], m[1])
}

// exits runs a command and checks its exit code:
//
//	exits CODE command [args...]
//
// Its standard output and error are kept for stdout, stderr and cmp, as
// exec keeps them.
func exits(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("exits does not take !; give the expected code")
	}
	if len(args) < 2 {
		ts.Fatalf("usage: exits CODE command [args...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exits: %q is not an exit code", args[0])
	}
	got := 0
	var ee *exec.ExitError
	switch err := ts.Exec(args[1], args[2:]...); {
	case errors.As(err, &ee):
		got = ee.ExitCode()
	case err != nil:
		ts.Fatalf("exits: %v", err)
	}
	if got != want {
		ts.Fatalf("%s exited with %d, want %d; its stderr:\n%s", strings.Join(args[1:], " "), got, want, ts.ReadFile("stderr"))
	}
}
