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
	"os"
	"os/signal"
	"syscall"

	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/cli"
)

func main() { os.Exit(runMain()) }

// runMain runs offshoot on the process's arguments and streams. SIGTERM
// cancels the command's context; so does Ctrl-C (SIGINT), unless the
// command takes it itself (cli.Env.OnInterrupt), as chat does to stop a
// turn and go on.
func runMain() int {
	env := &cli.Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(signals)
	done := make(chan struct{})
	defer close(done)
	go func() {
		for {
			select {
			case s := <-signals:
				if s == os.Interrupt && env.Interrupt() {
					continue
				}
				cancel()
			case <-done:
				return
			}
		}
	}()
	return Run(ctx, env, os.Args[1:])
}
