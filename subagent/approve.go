package subagent

import (
	"context"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/tools"
)

// WithApprover has approve asked before each tool call of every child —
// inherited tools and the child prompt's own — as runner.Request.Approve
// does for an evaluation: a nil error lets the call run; an error denies
// it, and the child's model reads "Permission to use the tool 'NAME' was
// denied: <the error's text>" as the call's failed result and carries on.
// Give the same function to the program's main evaluations, so that one
// set of rules covers the whole tree; Chain(ctx) tells a child's call (the
// chain of agents that led to it) from the main agent's (empty).
func WithApprover(approve func(ctx context.Context, inv *tools.Invocation, call model.ToolCall) error) Option {
	return func(e *Engine) { e.approve = approve }
}
