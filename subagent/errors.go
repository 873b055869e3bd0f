package subagent

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// The failures a child run can end in. Match them with errors.Is; the
// *Error carries the text a model is shown.
var (
	ErrCycle        = errors.New("subagent: circular delegation")
	ErrDepth        = errors.New("subagent: depth limit reached")
	ErrBudget       = errors.New("subagent: spawn budget exhausted")
	ErrTimeout      = errors.New("subagent: timed out")
	ErrMaxTurns     = errors.New("subagent: stopped at max turns")
	ErrSetup        = errors.New("subagent: child setup failed")
	ErrRun          = errors.New("subagent: the child's evaluation failed")
	ErrPanic        = errors.New("subagent: the child run panicked")
	ErrInvalidSpec  = errors.New("subagent: invalid spec")
	ErrParentClosed = errors.New("subagent: the parent session is closed")
)

// Error is why a child run failed. Its message is the model-facing text
// (such as "Circular delegation prevented: a -> b -> a"); Kind is one of
// the Err values above, and Err the underlying cause, if any.
type Error struct {
	Kind error
	Msg  string
	Err  error
}

// Error returns the model-facing text.
func (e *Error) Error() string { return e.Msg }

// Is matches the error's Kind.
func (e *Error) Is(target error) bool { return target == e.Kind }

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

func cycleError(chain []string, name string) error {
	return &Error{Kind: ErrCycle, Msg: "Circular delegation prevented: " + strings.Join(append(chain[:len(chain):len(chain)], name), " -> ")}
}

func depthError(max int) error {
	return &Error{Kind: ErrDepth, Msg: fmt.Sprintf("Subagent depth limit reached (%d)", max)}
}

func budgetError(max int) error {
	return &Error{Kind: ErrBudget, Msg: fmt.Sprintf("Subagent budget exhausted (%d)", max)}
}

func timeoutError(d time.Duration, cause error) error {
	return &Error{Kind: ErrTimeout, Msg: fmt.Sprintf("Subagent task timed out after %dms", d.Milliseconds()), Err: cause}
}

func maxTurnsError(n int, cause error) error {
	return &Error{Kind: ErrMaxTurns, Msg: fmt.Sprintf("Subagent stopped after reaching max turns (%d)", n), Err: cause}
}

func setupError(err error) error {
	return &Error{Kind: ErrSetup, Msg: "Failed to initialize subagent: " + err.Error(), Err: err}
}

func runError(err error) error {
	return &Error{Kind: ErrRun, Msg: err.Error(), Err: err}
}
