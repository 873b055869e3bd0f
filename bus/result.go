package bus

import (
	"errors"
	"fmt"
)

// Result reports what one publish did.
type Result struct {
	// Delivered counts observer deliveries (the addressed session's reduce
	// phase is not counted).
	Delivered int
	// Errors holds every observer that returned an error or panicked.
	Errors []*HandlerError
}

// Err joins every handler error with errors.Join; nil when there are none.
func (r Result) Err() error {
	if len(r.Errors) == 0 {
		return nil
	}
	errs := make([]error, 0, len(r.Errors))
	for _, e := range r.Errors {
		errs = append(errs, e)
	}
	return errors.Join(errs...)
}

// HandlerError is the failure of one observer on one envelope.
type HandlerError struct {
	// Name is the name the handler subscribed with.
	Name string
	// Envelope is the envelope it failed on.
	Envelope Envelope
	// Err is what the handler returned, or a *PanicError.
	Err error
}

// Error says which handler failed on which envelope, and why.
func (e *HandlerError) Error() string {
	env := e.Envelope
	if env.SessionID == "" {
		return fmt.Sprintf("bus: handler %q failed on a %T: %v", e.Name, env.Payload, e.Err)
	}
	return fmt.Sprintf("bus: handler %q failed on a %T (session %s, seq %d): %v", e.Name, env.Payload, env.SessionID, env.Seq, e.Err)
}

// Unwrap returns the handler's error.
func (e *HandlerError) Unwrap() error { return e.Err }
