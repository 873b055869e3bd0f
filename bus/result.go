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
	// Rejected is the addressed session's reason for rejecting the
	// envelopes (a reducer failure, a closed session). When set, no observer
	// saw them.
	Rejected error
}

// Err joins the rejection and every handler error with errors.Join; nil
// when there are none.
func (r Result) Err() error {
	if r.Rejected == nil && len(r.Errors) == 0 {
		return nil
	}
	errs := make([]error, 0, len(r.Errors)+1)
	if r.Rejected != nil {
		errs = append(errs, r.Rejected)
	}
	for _, e := range r.Errors {
		errs = append(errs, e)
	}
	return errors.Join(errs...)
}

// HandlerError is the failure of one observer on one envelope.
type HandlerError struct {
	// Name is the name the handler subscribed with.
	Name string
	// Seq is the envelope's id.
	Seq uint64
	// Err is what the handler returned, or a *PanicError.
	Err error
}

// Error says which handler failed on which envelope, and why.
func (e *HandlerError) Error() string {
	return fmt.Sprintf("bus: handler %q failed on envelope %d: %v", e.Name, e.Seq, e.Err)
}

// Unwrap returns the handler's error.
func (e *HandlerError) Unwrap() error { return e.Err }
