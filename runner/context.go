package runner

import (
	"context"

	"github.com/offshoot-dev/offshoot/model"
)

type callerKey struct{}

// Caller describes the evaluation a tool call belongs to: the model
// answering it and its name. Tools that start work of their own on the same
// model — a subagent that inherits its parent's model — read it with
// CallerFrom.
type Caller struct {
	Model     model.Model
	ModelName string
	// NS and Key identify the evaluation's prompt.
	NS, Key string
	// Scope is the evaluation's place in its run; evaluations started
	// with the call's ctx go below it.
	Scope *Scope
}

// CallerFrom returns the evaluation a tool call's ctx belongs to; ok is
// false outside an evaluation.
func CallerFrom(ctx context.Context) (c Caller, ok bool) {
	c, ok = ctx.Value(callerKey{}).(Caller)
	return c, ok
}

// WithCaller returns ctx marked as belonging to the evaluation c, as
// Evaluate marks the ctx of its tool calls. Use it to call a tool outside
// Evaluate (in tests) as Evaluate would.
func WithCaller(ctx context.Context, c Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}
