package tools

// Result is what a tool handler returns to the model and the session.
//
// The model sees Message, then a blank line and the compact JSON of Value,
// unless the tool was built with ExcludeValue or Value is the zero value of
// R. Success false makes the call a failure the model sees with the
// handler's own wording; a handler should return a failed Result, rather
// than an error, when it wants to choose that wording.
//
// Events are dispatched to the session together with the runner's record of
// the call, atomically.
type Result[R any] struct {
	// Message is the text the model reads first.
	Message string
	// Value is the structured result, shown to the model as JSON.
	Value R
	// Success reports whether the call did what it was asked. The zero
	// value is a failure: use OK for successes.
	Success bool
	// Events are events to dispatch to the session, applied by its
	// reducers (see Spec.Reducers).
	Events []any
}

// OK returns a successful Result with message and value.
func OK[R any](message string, value R) Result[R] {
	return Result[R]{Message: message, Value: value, Success: true}
}

// Failed returns a failed Result whose message the model sees as is, with
// no value. Use it for failures the handler words itself, such as "no such
// file: notes.md; list the directory first".
func Failed[R any](message string) Result[R] {
	return Result[R]{Message: message}
}

// WithEvents returns a copy of r that also carries events.
func (r Result[R]) WithEvents(events ...any) Result[R] {
	r.Events = append(r.Events[:len(r.Events):len(r.Events)], events...)
	return r
}
