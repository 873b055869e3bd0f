package tools

import (
	"context"
	"encoding/json"

	"github.com/offshoot-dev/offshoot/session"
)

// Tool is a tool as the runner and the prompt see it, whatever its Go
// parameter and result types: what it is (its Spec) and a call. New builds
// one from a typed handler; other implementations must honour the same
// contract — Spec returns the same valid description every time, and Call
// never panics and reports every failure in its Outcome, whose Events are
// never nil — and toolstest.Check holds them to it. (The runner contains a
// Call that breaks it — a panic, a nil event — as that call's failed
// result, but other callers may not.)
//
// A Tool is immutable and safe for concurrent use. A wrapper changes a
// tool the way net/http middleware wraps a Handler: it embeds the tool and
// returns another Spec, keeping what it does not change:
//
//	type described struct{ tools.Tool }
//
//	func (d described) Spec() tools.Spec {
//		s := d.Tool.Spec()
//		s.Description = "List a directory, newest first."
//		return s
//	}
type Tool interface {
	// Spec describes the tool. Callers must not change what the returned
	// value's slices and maps hold: they are the tool's.
	Spec() Spec
	// Call runs the tool once with the model's JSON arguments, which it
	// must not change (the caller may keep them, as the runner keeps them
	// in its record of the call). inv may be nil (tests); handlers then get
	// an empty Invocation whose Logger discards.
	Call(ctx context.Context, inv *Invocation, args json.RawMessage) Outcome
}

// Spec is what a tool is, as data: what the model is told of it, how the
// runner may schedule it, and the session state it keeps.
type Spec struct {
	// Name is the name the model calls the tool by: 1 to 64 ASCII letters,
	// digits, '_' or '-'.
	Name string
	// Description tells the model what the tool does (1 to 1024
	// characters, trimmed).
	Description string
	// Params is the JSON Schema of the arguments (an object schema).
	Params json.RawMessage
	// Result is the JSON Schema of the result value.
	Result json.RawMessage
	// Examples are example calls, for documentation or for the prompt.
	Examples []rawExample
	// ConcurrentSafe reports whether calls of this tool may run at the
	// same time as other concurrent-safe calls (see the ConcurrentSafe
	// option).
	ConcurrentSafe bool
	// State is the session state the tool keeps, as delegation sees it
	// (see State); nil for none. Tools that share state declare the same,
	// comparable, value.
	State State
	// Reducers are what the tool's events need on a session (see
	// WithReducers): the runner installs the reducers of every tool of a
	// rendered toolset on the session it evaluates against, in one write,
	// before the first model call. Zero when the tool returns no events
	// that need them.
	Reducers session.Reducers
}

// Outcome is what one Call produced: what the model is shown, and what the
// runner records and dispatches.
type Outcome struct {
	// Text is what the model sees as the tool's answer: the result
	// message, then a blank line and the compact JSON of the value; or the
	// text of Err.
	Text string
	// Success reports whether the call succeeded. It is false when Err is
	// set and when the handler returned a failed Result.
	Success bool
	// Params is the decoded parameter value (of the tool's type P), for the
	// record of the call; nil when the arguments were not valid.
	Params any
	// Value is the result value (of the tool's type R); nil when the
	// handler failed or was not called.
	Value any
	// ValueJSON is the compact JSON of Value when the tool encoded it
	// (tools built with New do, unless Value is zero), so that recording
	// the call does not encode it again; nil otherwise.
	ValueJSON json.RawMessage
	// Events are the events the handler returned, to be dispatched to the
	// session atomically with the record of the call.
	Events []any
	// Err is nil unless the call failed outside the handler's own Result:
	// a *ValidationError (the handler was not called) or an
	// *ExecutionError (the handler returned an error or panicked). Text is
	// then Err.Error().
	Err error
}

// rawExample is an example call of a tool in JSON form, as the type-erased
// Tool exposes it (see WithExamples and Example).
type rawExample struct {
	// Description says what the example shows.
	Description string `json:"description"`
	// Input is the example's arguments, as JSON.
	Input json.RawMessage `json:"input"`
	// Output is the example's result value, as JSON.
	Output json.RawMessage `json:"output"`
}
