package runner

import "context"

// NewRunScope is NewScope for a run whose context is ctx: work that must
// outlive a tool call but not the run — a subagent in the background —
// derives from ctx (see Scope.Context), not from the context of the
// evaluation that started it. A program whose evaluation may be stopped
// before the run ends — a chat that stops a turn when its reader goes
// away, while the tasks the turn started go on — evaluates with a context
// of its own below ctx, and a caller carrying this scope:
//
//	run := runner.NewRunScope(ctx, 0)
//	turn, stop := context.WithCancel(ctx)
//	defer stop()
//	resp, err := runner.Evaluate(runner.WithCaller(turn, runner.Caller{Scope: run}), req)
func NewRunScope(ctx context.Context, budget int) *Scope {
	return &Scope{ctx: ctx, budget: int64(budget)}
}
