package subagent

import (
	"context"
	"sync/atomic"

	"github.com/offshoot-dev/offshoot/runner"
)

// The engine's limits live in the runner.Scope of a run: the spawn count in
// the run's root scope, the concurrency slots in the scope of the
// evaluation that delegates. So they last as long as the run — a chat's
// next turn is a new run with a fresh budget — and a parent waiting for its
// children holds no slot they need (theirs are in their own scopes), so
// nesting cannot deadlock.

// spawnsKey and slotsKey key the engine's values in a scope.
type (
	spawnsKey struct{ e *Engine }
	slotsKey  struct{ e *Engine }
)

// inScope returns ctx with the scope the child runs below: the delegating
// evaluation's, or, for a run started from a program's own code, a new root.
func inScope(ctx context.Context) (context.Context, *runner.Scope) {
	c, _ := runner.CallerFrom(ctx)
	if c.Scope == nil {
		c.Scope = runner.NewScope(0)
		ctx = runner.WithCaller(ctx, c)
	}
	return ctx, c.Scope
}

// spawn counts one more child of the run whose root scope is root, and
// reports false when the run spawned maxSpawns already.
func (e *Engine) spawn(root *runner.Scope) bool {
	n := root.Value(spawnsKey{e}, func() any { return new(atomic.Int64) }).(*atomic.Int64)
	for {
		cur := n.Load()
		if cur >= int64(e.maxSpawns) {
			return false
		}
		if n.CompareAndSwap(cur, cur+1) {
			return true
		}
	}
}

// slot waits for one of the delegating evaluation's slots, as long as ctx
// allows, and returns its release.
func (e *Engine) slot(ctx context.Context, scope *runner.Scope) (release func(), err error) {
	sem := scope.Value(slotsKey{e}, func() any { return make(chan struct{}, e.maxConcurrent) }).(chan struct{})
	select {
	case sem <- struct{}{}:
		return func() { <-sem }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
