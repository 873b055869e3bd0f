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
	// ErrHook: a start or stop hook failed or panicked.
	ErrHook = errors.New("subagent: a hook failed")
	// ErrTaskNotFound: no agent or background task has the id given (to
	// resume it, to read its output, to stop it).
	ErrTaskNotFound = errors.New("subagent: no such agent or task")
	// ErrTaskTimeout: a wait for a background task ended before the task
	// did; the task goes on.
	ErrTaskTimeout = errors.New("subagent: the task is still running")
	// ErrNotResumable: the agent cannot be resumed (it carried on its
	// caller's conversation, it is running, it is of another type, or the
	// engine keeps no transcripts).
	ErrNotResumable = errors.New("subagent: the agent cannot be resumed")
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

func hookError(hook string, err error) error {
	return &Error{Kind: ErrHook, Msg: fmt.Sprintf("Subagent hook %s failed: %v", hook, err), Err: err}
}

// agentNotFound is the error of a resume of an unknown agent.
func agentNotFound(id string) error {
	return &Error{Kind: ErrTaskNotFound, Msg: "No agent found with ID: " + clip(id)}
}

// taskNotFound is the error of a lookup of an unknown background task.
func taskNotFound(id string) error {
	return &Error{Kind: ErrTaskNotFound, Msg: "No task found with ID: " + clip(id)}
}

// noTranscripts is the error of a resume on an engine that keeps no
// transcripts.
func noTranscripts(id string) error {
	return &Error{Kind: ErrNotResumable, Msg: fmt.Sprintf("Agent %s cannot be resumed: this program keeps no transcripts of its agents, so their conversations are gone. Start a new agent instead, and give it everything it needs in its prompt.", clip(id))}
}

func stillRunning(id string) error {
	return &Error{Kind: ErrNotResumable, Msg: fmt.Sprintf("Agent %s is still running; wait for its result or stop it before resuming it", clip(id))}
}

func taskTimeout(id string, cause error) error {
	return &Error{Kind: ErrTaskTimeout, Msg: fmt.Sprintf("Task %s is still running: the wait for it ended first", id), Err: cause}
}

// clip cuts an id a model gave to a length fit to be shown back.
func clip(id string) string {
	const maxEcho = 100
	if len(id) <= maxEcho {
		return id
	}
	return strings.ToValidUTF8(id[:maxEcho], "") + "…"
}
