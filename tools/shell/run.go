package shell

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"time"
)

// drainBound is how long the output is read for once the command and its
// process group are gone: only a process that left the group (setsid)
// can still hold the output open, and it is not waited for.
const drainBound = 2 * time.Second

// command is one command to run: its argument vector (the shell, or
// bubblewrap running the shell), directory, environment and timeout.
type command struct {
	argv    []string
	dir     string
	env     []string
	timeout time.Duration
}

// ran is what running a command gave.
type ran struct {
	// exitCode is the command's exit status; -1 when a signal ended it.
	exitCode int
	// signal names the signal that ended it, if one did.
	signal string
	// output is what it printed, standard output and error together, as
	// the model reads it (see output.String).
	output string
	// timedOut is set when the timeout ended it; cancelled when the
	// call's context did.
	timedOut, cancelled bool
}

// execute runs c with no standard input and its standard output and error
// into one pipe, in a session and process group of its own. When it
// exits, times out or ctx is done, every process left in its group is
// killed, so that nothing it started outlives the call; the output is
// read to its end, or for drainBound after that at most.
func execute(ctx context.Context, c command) (ran, error) {
	pr, pw, err := os.Pipe()
	if err != nil {
		return ran{}, fmt.Errorf("making the output pipe: %w", err)
	}
	cmd := exec.Command(c.argv[0], c.argv[1:]...)
	cmd.Dir, cmd.Env = c.dir, c.env
	cmd.Stdout, cmd.Stderr = pw, pw // files: no copying goroutines in os/exec
	ownSession(cmd)
	if err := cmd.Start(); err != nil {
		pr.Close()
		pw.Close()
		return ran{}, fmt.Errorf("starting %s: %w", c.argv[0], err)
	}
	pw.Close() // the command's copies hold the pipe open now
	var out output
	read := make(chan struct{})
	go func() {
		defer close(read)
		out.readFrom(pr)
	}()

	tctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	type exit struct {
		reaped bool
		err    error
	}
	exited := make(chan exit, 1)
	go func() {
		reaped, err := waitExited(cmd)
		exited <- exit{reaped, err}
	}()
	var r ran
	var e exit
	select {
	case e = <-exited:
	case <-tctx.Done():
		r.timedOut = ctx.Err() == nil
		r.cancelled = !r.timedOut
		_ = killGroup(cmd.Process.Pid)
		e = <-exited
	}
	killErr := killGroup(cmd.Process.Pid) // what it left running in the background
	waitErr := e.err
	if !e.reaped {
		waitErr = cmd.Wait()
	}
	timer := time.NewTimer(drainBound)
	select {
	case <-read:
	case <-timer.C:
	}
	timer.Stop()
	pr.Close()
	<-read

	r.output = out.String()
	if st := cmd.ProcessState; st != nil {
		r.exitCode = st.ExitCode()
		r.signal = signalOf(st)
	}
	var exitErr *exec.ExitError
	if waitErr != nil && !errors.As(waitErr, &exitErr) {
		return r, fmt.Errorf("waiting for the command: %w", waitErr)
	}
	if killErr != nil {
		return r, fmt.Errorf("stopping what the command left running: %w", killErr)
	}
	return r, nil
}
