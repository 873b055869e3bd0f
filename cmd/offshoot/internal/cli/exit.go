package cli

import (
	"errors"
	"fmt"
)

// The exit codes of offshoot's commands.
const (
	// ExitOK: the command did what was asked.
	ExitOK = 0
	// ExitFailed: the operation failed (a run, a file operation, a check
	// that found problems).
	ExitFailed = 1
	// ExitUsage: the command line or the configuration is wrong; nothing
	// was done.
	ExitUsage = 2
)

// ExitError is an error that sets the process's exit code. Err is what is
// printed; a nil Err prints nothing (the command already said what
// happened, as snapshot diff does when the snapshots differ).
type ExitError struct {
	Code int
	Err  error
}

// Error returns Err's message.
func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit status %d", e.Code)
	}
	return e.Err.Error()
}

// Unwrap returns Err.
func (e *ExitError) Unwrap() error { return e.Err }

// Usagef returns an error with exit code ExitUsage: the command line or
// the configuration is wrong. The message must say what to do instead.
func Usagef(format string, args ...any) error {
	return &ExitError{Code: ExitUsage, Err: fmt.Errorf(format, args...)}
}

// Failf returns an error with exit code ExitFailed. The message must say
// what to do next.
func Failf(format string, args ...any) error {
	return &ExitError{Code: ExitFailed, Err: fmt.Errorf(format, args...)}
}

// Silent returns an error that sets the exit code without printing
// anything.
func Silent(code int) error { return &ExitError{Code: code} }

// Code returns the exit code for err, the error a command returned: its
// ExitError's code; ExitUsage for an error cobra found in the command line
// before the command started (started is false); ExitFailed otherwise.
func Code(err error, started bool) int {
	var ee *ExitError
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &ee):
		return ee.Code
	case !started:
		return ExitUsage
	default:
		return ExitFailed
	}
}
