// Package tools defines the tools a model can call: typed construction,
// strict parameter decoding and validation, the per-call environment, and
// ordered, name-unique toolsets.
//
// A tool is built from a Go function with New:
//
//	ls, err := tools.New("ls", "List the files under a directory.",
//		func(ctx context.Context, inv *tools.Invocation, p ListParams) (tools.Result[Listing], error) {
//			…
//			return tools.OK("3 files", listing), nil
//		},
//		tools.WithDefaults(ListParams{Limit: 100}),
//	)
//
// Every call decodes the model's JSON arguments over a copy of the defaults,
// strictly (unknown fields, trailing data and type mismatches are rejected),
// then checks the `validate` tags (github.com/go-playground/validator/v10).
// Any problem becomes a failed call whose text the model sees:
//
//	Tool validation failed: ls: path: must be ASCII
//
// and the handler is not called. A handler that returns an error or panics
// becomes
//
//	Tool 'ls' execution failed: <error>
//
// A handler that wants its own failure text returns a failed Result (see
// Failed) and a nil error.
//
// Handlers never change session state themselves: they return events in
// Result.Events, which the runner dispatches to the session together with
// its record of the call. A tool whose events need reducers declares them
// with WithReducers; the runner installs the reducers of every tool of a
// rendered toolset on the session it evaluates against (see Spec).
//
// tools sits below prompt and runner and imports neither. What a handler
// needs from above reaches it through the closure that built the tool, or
// through the *Invocation of each call.
package tools
