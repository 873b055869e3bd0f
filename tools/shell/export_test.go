package shell

import (
	"context"
	"time"
)

// What the external tests reach of the package's insides.
type (
	Params  = params
	Result  = result
	Change  = change
	Output  = output
	Command = command
)

// Ran is what a faked command gave.
type Ran struct {
	ExitCode int
	Output   string
}

const (
	MaxOutputChars = maxOutputChars
	MaxTimeout     = maxTimeout
	DefaultTimeout = defaultTimeout
)

// Writes returns how many files the tool has written into the scratch
// directory of session id, and the directory ("" when it has none).
func Writes(t *Tool, id string) (int, string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	sl, ok := t.dirs[id]
	if !ok {
		return 0, ""
	}
	sl.mu.Lock()
	defer sl.mu.Unlock()
	return sl.s.writes, sl.s.dir
}

// Fake has t run commands with run instead of running them.
func Fake(t *Tool, run func(ctx context.Context, argv []string, timeout time.Duration) Ran) {
	t.run = func(ctx context.Context, c command) (ran, error) {
		r := run(ctx, c.argv, c.timeout)
		return ran{exitCode: r.ExitCode, output: r.Output}, nil
	}
}

// BwrapArgs is bwrapArgs.
var BwrapArgs = bwrapArgs
