package runner

import (
	"errors"
	"fmt"
)

var (
	// ErrMaxTurns means the model was still calling tools after MaxTurns
	// model calls. The partial Response is returned with it.
	ErrMaxTurns = errors.New("runner: max turns reached")
	// ErrBudgetExceeded means the evaluation (with the usage its children
	// reported) spent more tokens than its Budget. The partial Response is
	// returned with it.
	ErrBudgetExceeded = errors.New("runner: token budget exceeded; raise Budget or narrow the task")
)

// Phase names the step of the loop where an evaluation failed.
type Phase string

// The phases of an evaluation.
const (
	// PhaseRender: rendering the prompt or installing its tools.
	PhaseRender Phase = "render"
	// PhaseRequest: before or during a model call (deadline, cancellation,
	// model error).
	PhaseRequest Phase = "request"
	// PhaseLimit: a limit of the evaluation was reached before a model
	// call: MaxTurns (ErrMaxTurns) or Budget (ErrBudgetExceeded).
	PhaseLimit Phase = "limit"
	// PhaseRecord: what the evaluation did could not be recorded in its
	// session (a reducer refused it), so the session's conversation is
	// incomplete and a later Continue would not see it.
	PhaseRecord Phase = "record"
	// PhaseTool: running tool calls (the deadline passed during a tool).
	PhaseTool Phase = "tool"
	// PhaseResponse: finishing (parsing structured output, deadline at the
	// end).
	PhaseResponse Phase = "response"
)

// EvaluationError is why an evaluation stopped. It unwraps to the cause, so
// errors.Is(err, context.DeadlineExceeded), errors.Is(err, ErrMaxTurns) or
// errors.As(err, &rateLimit) see through it.
type EvaluationError struct {
	Phase Phase
	// Prompt is "ns/key".
	Prompt string
	Err    error
}

// Error names the prompt, the phase and the cause.
func (e *EvaluationError) Error() string {
	if w, ok := e.Err.(*Waiting); ok && w.CallID != "" {
		return fmt.Sprintf("runner: evaluating %s stopped to wait for an answer to its %s call %s: %s", e.Prompt, w.Tool, w.CallID, w.Question)
	}
	return fmt.Sprintf("runner: evaluating %s failed in the %s phase: %v", e.Prompt, e.Phase, e.Err)
}

// Unwrap returns the cause.
func (e *EvaluationError) Unwrap() error { return e.Err }
