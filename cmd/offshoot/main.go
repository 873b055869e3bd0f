// Command offshoot is the command-line face of the offshoot library:
// watch it work, run a main agent on your model (a task or a chat),
// manage the agent definitions a main agent delegates to, and read what
// runs leave behind — subagents' transcripts and saved session
// snapshots.
//
//	offshoot demo
//	offshoot run [--agent NAME] [--model NAME] [--dir DIR] [--json] [--save FILE] TASK
//	offshoot chat [--agent NAME] [--model NAME] [--dir DIR] [--save FILE]
//	offshoot agents list | show NAME | new NAME | edit NAME | rm NAME | validate
//	offshoot transcripts list | show ID | prune --older-than AGE
//	offshoot snapshot show FILE | diff A B
//
// Every command takes --project DIR (default: the working directory) and
// --home DIR (default: $HOME). Exit codes: 0 success, 1 the operation
// failed, 2 a usage or configuration error (snapshot diff: 1 when the
// snapshots differ, 2 when one cannot be read). See docs/cli.md.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/cli"
)

func main() { os.Exit(runMain()) }

// runMain runs offshoot on the process's arguments and streams. SIGTERM
// cancels the command's context; so does Ctrl-C (SIGINT), unless the
// command takes it itself (cli.Env.OnInterrupt), as chat does to stop a
// turn and go on. Once the context is cancelled, a second Ctrl-C or
// SIGTERM ends the process at once, and so does the end of termGrace
// after a SIGTERM: a command that does not stop cannot hold the terminal.
func runMain() int {
	env := &cli.Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(signals)
	done := make(chan struct{})
	defer close(done)
	cancelAndSay := func() {
		if isTerminal(os.Stderr) {
			fmt.Fprintln(os.Stderr) // the terminal echoed ^C: what follows starts a line of its own
		}
		cancel()
	}
	go watchSignals(signals, done, env, cancelAndSay, termGrace, func(code int) {
		fmt.Fprintln(os.Stderr, "\noffshoot: stopped at once, without waiting for the agents and servers to end")
		os.Exit(code)
	})
	return Run(ctx, env, os.Args[1:])
}

// termGrace is how long a command may take to stop after SIGTERM.
const termGrace = 5 * time.Second

// watchSignals handles the signals until done: the first cancels the
// command (or, for Ctrl-C, goes to the command's own handler); once it
// is cancelled, another signal, or grace after a SIGTERM, calls exit
// with the shell's code for the signal (130 for SIGINT, 143 for
// SIGTERM).
func watchSignals(signals <-chan os.Signal, done <-chan struct{}, env *cli.Env, cancel func(), grace time.Duration, exit func(code int)) {
	cancelled := false
	var deadline <-chan time.Time
	for {
		select {
		case s := <-signals:
			switch {
			case cancelled:
				exit(signalCode(s))
				return
			case s == os.Interrupt && env.Interrupt():
				continue
			}
			cancel()
			cancelled = true
			if s == syscall.SIGTERM {
				deadline = time.After(grace)
			}
		case <-deadline:
			exit(signalCode(syscall.SIGTERM))
			return
		case <-done:
			return
		}
	}
}

// signalCode is the exit code a shell gives a process a signal ended.
func signalCode(s os.Signal) int {
	if s == syscall.SIGTERM {
		return 128 + int(syscall.SIGTERM)
	}
	return 128 + int(syscall.SIGINT)
}

// isTerminal reports whether f is a terminal (a character device).
func isTerminal(f *os.File) bool {
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}
