package main

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// TestMain is the worker when the test runs this binary as one.
func TestMain(m *testing.M) {
	if path := os.Getenv(workerEnv); path != "" {
		if err := worker(os.Stdout, path); err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
		}
		os.Exit(1) // the worker kills itself before it gets here
	}
	goleak.VerifyTestMain(m)
}

func TestRun(t *testing.T) {
	var out strings.Builder
	done := make(chan error, 1)
	go func() { done <- run(&out, t.TempDir(), os.Args[0]) }()
	select {
	case err := <-done:
		require.NoError(t, err, out.String())
	case <-time.After(2 * time.Minute): // a watchdog, not a bet on speed
		t.Fatal("the example did not finish")
	}
	got := out.String()
	for _, want := range []string{
		"   worker: killing itself in the middle of a model call\n== the worker crashed (signal: killed)\n",
		"== the database passes SQLite's integrity check\n",
		"its conversation:\n   user: Take a note: invoices round half to even, per line.\n   agent calls write_file\n   agent: Noted in notes.md.\n   user: How do invoices round?\n   agent: Half to even, per line.\n   user: And taxes?\n",
		`== notes.md, as the agent wrote it: "Invoices round half to even, per line.\n"`,
		"== the last question has no answer (the worker crashed asking it): it is asked again\n   user: And taxes?\n   agent: Taxes round once, on the total.\n",
		"== the model read 9 messages",
	} {
		assert.Contains(t, got, want)
	}
}
