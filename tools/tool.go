package tools

import (
	"context"
	"encoding/json"

	"github.com/offshoot-dev/offshoot/session"
)

// Tool is a tool as the runner and the prompt see it, whatever its Go
// parameter and result types. New builds one from a typed handler; other
// implementations must honour the same contract: Call never panics and
// reports every failure in its Outcome, whose Events are never nil. (The
// runner contains a Call that breaks it — a panic, runtime.Goexit, a nil
// event — as that call's failed result, but other callers may not.)
//
// A Tool is immutable and safe for concurrent use.
type Tool interface {
	// Name is the name the model calls the tool by: 1 to 64 ASCII letters,
	// digits, '_' or '-'.
	Name() string
	// Description tells the model what the tool does (1 to 1024
	// characters, trimmed).
	Description() string
	// ParamsSchema is the JSON Schema of the arguments (an object schema).
	// The caller may keep and change the returned bytes.
	ParamsSchema() json.RawMessage
	// ResultSchema is the JSON Schema of the result value. The caller may
	// keep and change the returned bytes.
	ResultSchema() json.RawMessage
	// Examples are example calls, for documentation or for the prompt.
	Examples() []RawExample
	// ConcurrentSafe reports whether calls of this tool may run at the same
	// time as other concurrent-safe calls (see the ConcurrentSafe option).
	ConcurrentSafe() bool
	// Call runs the tool once with the model's JSON arguments. inv may be
	// nil (tests); handlers then get an empty Invocation whose Logger
	// discards.
	Call(ctx context.Context, inv *Invocation, args json.RawMessage) Outcome
}

// Installer is implemented by tools whose events need reducers on the
// session (New gives a tool this method when built WithInstall). The runner
// calls Install on every tool of a rendered toolset with the session it
// evaluates against, before the first model call, so prompts stay free of
// sessions and a forked child session has what it needs. Install must be
// idempotent; session.Install makes it so.
type Installer interface {
	Install(s *session.Session) error
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

// RawExample is an example call of a tool in JSON form, as the type-erased
// Tool exposes it (see WithExamples and Example).
type RawExample struct {
	// Description says what the example shows.
	Description string `json:"description"`
	// Input is the example's arguments, as JSON.
	Input json.RawMessage `json:"input"`
	// Output is the example's result value, as JSON.
	Output json.RawMessage `json:"output"`
}

// schemaViewer is implemented by tools that can lend their params schema
// without copying it.
type schemaViewer interface {
	paramsSchemaView() json.RawMessage
}

// ParamsSchemaView returns t's params schema for read-only use: the tool's
// own bytes when it lends them (tools built with New do), a copy otherwise.
// Callers must not modify the result. The runner uses it to describe tools
// to the model without copying every schema on every evaluation.
func ParamsSchemaView(t Tool) json.RawMessage {
	if v, ok := t.(schemaViewer); ok {
		return v.paramsSchemaView()
	}
	return t.ParamsSchema()
}
