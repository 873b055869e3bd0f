package tools

import (
	"fmt"

	"github.com/offshoot-dev/offshoot/session"
)

// Option configures New. Options that carry values of the tool's types
// (WithDefaults, WithExamples) are checked against the tool's P and R when
// New runs; a mismatch is a construction error.
type Option interface {
	apply(*config)
}

// config collects what the options set, before New checks it against the
// tool's types.
type config struct {
	defaults       any   // a P, or nil
	examples       []any // Example[P, R] values
	concurrentSafe bool
	excludeValue   bool
	reducers       session.Reducers
	errs           []error
	state          State
}

type optionFunc func(*config)

func (f optionFunc) apply(c *config) { f(c) }

// WithDefaults sets the parameter values a call starts from: each call
// decodes the model's arguments over a deep copy of defaults, so fields the
// model leaves out keep their default. Defaults appear as "default" in the
// parameters' schema. P must be the tool's parameter type.
//
// The schema's "required" list is the fields without omitempty, defaults
// or not; tag a defaulted field omitempty to show the model it is optional.
func WithDefaults[P any](defaults P) Option {
	return optionFunc(func(c *config) { c.defaults = defaults })
}

// Example is one example call of a tool with parameter type P and result
// type R. The compiler checks Input and Output against P and R; New checks
// that they are the tool's types, and that Input passes validation.
type Example[P, R any] struct {
	// Description says what the example shows.
	Description string
	// Input is the example's arguments.
	Input P
	// Output is the example's result value.
	Output R
}

// WithExamples attaches example calls to the tool; the type-erased Tool
// exposes them as JSON through Examples. Several WithExamples options add
// up.
func WithExamples[P, R any](examples ...Example[P, R]) Option {
	return optionFunc(func(c *config) {
		for _, ex := range examples {
			c.examples = append(c.examples, ex)
		}
	})
}

// ConcurrentSafe marks the tool as safe to run at the same time as other
// concurrent-safe calls of the same turn: its handler neither depends on nor
// races with them. The runner runs each run of consecutive concurrent-safe
// calls in parallel and dispatches their events in call order afterwards.
func ConcurrentSafe() Option {
	return optionFunc(func(c *config) { c.concurrentSafe = true })
}

// ExcludeValue keeps the result value out of the text the model sees: it
// reads the message only. The value is still recorded in the Outcome.
func ExcludeValue() Option {
	return optionFunc(func(c *config) { c.excludeValue = true })
}

// WithReducers declares what the tool's events need on a session (see
// session.Reducers): the runner installs them on the session it evaluates
// against before the first model call. Tools that share reducers (say,
// every tool over one virtual filesystem) declare the same set, with the
// same key, so that they are installed once.
func WithReducers(r session.Reducers) Option {
	return optionFunc(func(c *config) {
		if r.Key == "" {
			c.errs = append(c.errs, fmt.Errorf("WithReducers needs a set with a key, such as the import path of the package that owns the reducers"))
			return
		}
		c.reducers = r
	})
}
