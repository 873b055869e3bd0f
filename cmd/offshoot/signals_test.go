package main

import (
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/cli"
)

// The first signal cancels the command; a second one, or the grace after
// a SIGTERM, ends the process at once: a command that does not stop (a
// tool that ignores its context, a file that blocks) cannot hold the
// terminal.
func TestSignals(t *testing.T) {
	for _, tt := range []struct {
		name    string
		signals []os.Signal
		grace   time.Duration
		code    int
	}{
		{"Ctrl-C twice", []os.Signal{os.Interrupt, os.Interrupt}, time.Hour, 130},
		{"SIGTERM then Ctrl-C", []os.Signal{syscall.SIGTERM, os.Interrupt}, time.Hour, 130},
		{"SIGTERM and its grace", []os.Signal{syscall.SIGTERM}, time.Nanosecond, 143},
		{"Ctrl-C then SIGTERM", []os.Signal{os.Interrupt, syscall.SIGTERM}, time.Hour, 143},
	} {
		t.Run(tt.name, func(t *testing.T) {
			signals := make(chan os.Signal)
			done := make(chan struct{})
			cancelled := make(chan struct{})
			exited := make(chan int, 1)
			go watchSignals(signals, done, &cli.Env{}, func() { close(cancelled) }, tt.grace, func(code int) { exited <- code })
			defer close(done)
			signals <- tt.signals[0]
			<-cancelled
			for _, s := range tt.signals[1:] {
				signals <- s
			}
			select {
			case code := <-exited:
				assert.Equal(t, tt.code, code)
			case <-time.After(time.Minute):
				t.Fatal("the process did not end") // watchdog
			}
		})
	}
}

// A command that takes Ctrl-C itself (chat stops a turn) gets every
// Ctrl-C, and nothing ends the process.
func TestCtrlCTakenByTheCommand(t *testing.T) {
	env := &cli.Env{}
	got := make(chan struct{}, 3)
	restore := env.OnInterrupt(func() { got <- struct{}{} })
	defer restore()
	signals := make(chan os.Signal)
	done := make(chan struct{})
	exited := make(chan int, 1)
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		watchSignals(signals, done, env, func() { t.Error("cancelled") }, time.Hour, func(code int) { exited <- code })
	}()
	for range 3 {
		signals <- os.Interrupt
		<-got
	}
	close(done)
	<-finished
	require.Empty(t, exited)
}
