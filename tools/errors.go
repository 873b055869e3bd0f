package tools

import (
	"errors"
	"fmt"
	"strings"
)

// ValidationError says that a call's arguments were not accepted, so the
// handler was not called. Its message is the one the model sees, such as
//
//	Tool validation failed: ls: path: must be ASCII
//
// Err is the cause: usually a *serde.ValidationError (or several joined),
// which errors.As finds through this error; otherwise a JSON syntax error.
type ValidationError struct {
	// Tool is the name of the tool called.
	Tool string
	// Err is what is wrong with the arguments.
	Err error
}

// Error returns "Tool validation failed: TOOL: PATH: REASON", with several
// failures separated by "; ".
func (e *ValidationError) Error() string {
	return "Tool validation failed: " + e.Tool + ": " + describe(e.Err)
}

// Unwrap returns the cause.
func (e *ValidationError) Unwrap() error { return e.Err }

// ExecutionError says that a tool's handler returned an error or panicked.
// Its message is the one the model sees:
//
//	Tool 'ls' execution failed: <error>
type ExecutionError struct {
	// Tool is the name of the tool called.
	Tool string
	// Err is the handler's error, or a *PanicError when it panicked.
	Err error
}

// Error returns "Tool 'TOOL' execution failed: ERROR".
func (e *ExecutionError) Error() string {
	return "Tool '" + e.Tool + "' execution failed: " + describe(e.Err)
}

// Unwrap returns the handler's error.
func (e *ExecutionError) Unwrap() error { return e.Err }

// PanicError is the error of a handler that panicked.
type PanicError struct {
	// Value is what the handler panicked with.
	Value any
	// Stack is the goroutine's stack at the panic, for logs.
	Stack []byte
}

// Error returns "panic: VALUE".
func (e *PanicError) Error() string { return fmt.Sprintf("panic: %v", e.Value) }

// Unwrap returns the panic value when it is an error.
func (e *PanicError) Unwrap() error {
	if err, ok := e.Value.(error); ok {
		return err
	}
	return nil
}

// describe words err for the model: joined errors on one line, separated by
// "; ", without the "serde: " prefix of the layer below.
func describe(err error) string {
	if err == nil {
		return "unknown error"
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs := j.Unwrap()
		parts := make([]string, 0, len(errs))
		for _, e := range errs {
			if e != nil {
				parts = append(parts, describe(e))
			}
		}
		return strings.Join(parts, "; ")
	}
	msg := strings.TrimPrefix(err.Error(), "serde: ")
	return strings.ReplaceAll(msg, "\n", "; ")
}

// errNilTool is returned when a nil Tool is given where a tool is needed.
var errNilTool = errors.New("tools: nil tool; build tools with tools.New")
