// Package openerr marks the error of a client that could not open the
// stored session it was given to carry on, so that a program (offshoot's
// command line) can tell it from the other errors of setting a client up
// and say what to do about it.
package openerr

// Error is the error of opening stored session ID.
type Error struct {
	ID  string
	Err error
}

func (e *Error) Error() string { return "opening session " + e.ID + ": " + e.Err.Error() }

// Unwrap returns the error of the store or of the session.
func (e *Error) Unwrap() error { return e.Err }
