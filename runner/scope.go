package runner

import (
	"context"
	"sync/atomic"

	"github.com/offshoot-dev/offshoot/model"
)

// scope is an evaluation's place in the tree of evaluations nested in one
// another: Evaluate gives every evaluation a scope below the one its ctx
// carries (a tool call's ctx carries its evaluation's, WithBudget's ctx
// a budget of its own). Every evaluation charges what its model calls
// spend to its scope and each scope above, as it spends it, and stops
// (ErrBudgetExceeded) when any scope above it is over its budget: so a
// nested evaluation may spend at most what the ones above it have left,
// and nothing it spent is lost if they stop first.
//
// A scope is safe for concurrent use.
type scope struct {
	parent                                 *scope
	budget                                 int64
	input, cached, written, output, tokens atomic.Int64 // spent in the scope and below it
}

type scopeKey struct{}

// scopeOf returns the scope ctx carries, nil for none.
func scopeOf(ctx context.Context) *scope {
	s, _ := ctx.Value(scopeKey{}).(*scope)
	return s
}

// withScope returns ctx carrying s.
func withScope(ctx context.Context, s *scope) context.Context {
	return context.WithValue(ctx, scopeKey{}, s)
}

// Budget is a token budget shared by evaluations: see WithBudget.
type Budget struct{ s *scope }

// WithBudget returns ctx with a token budget (0 for none, to count only)
// shared by every evaluation run with it and every evaluation nested in
// those (run with the ctx of one of their tool calls, as subagents are):
// together they spend at most tokens, give or take one model call each,
// and each stops with ErrBudgetExceeded once the budget is spent. Budgets
// nest: one given in a nested ctx bounds that part of the tree too.
func WithBudget(ctx context.Context, tokens int) (context.Context, *Budget) {
	s := &scope{parent: scopeOf(ctx), budget: int64(tokens)}
	return withScope(ctx, s), &Budget{s}
}

// Spent returns what the evaluations under the budget spent so far.
func (b *Budget) Spent() model.Usage { return b.s.spent() }

// spent returns what was spent in the scope and below it so far.
func (s *scope) spent() model.Usage {
	return model.Usage{InputTokens: int(s.input.Load()), CachedInputTokens: int(s.cached.Load()), CacheWriteTokens: int(s.written.Load()), OutputTokens: int(s.output.Load()), TotalTokens: int(s.tokens.Load())}
}

// charge adds u to s and every scope above it.
func (s *scope) charge(u model.Usage) {
	if u == (model.Usage{}) {
		return
	}
	for ; s != nil; s = s.parent {
		s.input.Add(int64(u.InputTokens))
		s.cached.Add(int64(u.CachedInputTokens))
		s.written.Add(int64(u.CacheWriteTokens))
		s.output.Add(int64(u.OutputTokens))
		s.tokens.Add(int64(u.TotalTokens))
	}
}

// exhausted reports whether s or a scope above it has spent more than its
// budget.
func (s *scope) exhausted() bool {
	for ; s != nil; s = s.parent {
		if s.budget > 0 && s.tokens.Load() > s.budget {
			return true
		}
	}
	return false
}

// Charge counts u — tokens spent elsewhere on behalf of the evaluation
// ctx belongs to, such as by a subagent run on a remote worker — as that
// evaluation's nested evaluations' spending is counted: against its
// budget and every budget above it, and in its Response.ChildUsage. It
// reports whether a budget of ctx is now spent, for the caller to stop
// the work it charges for. Without an evaluation or a budget in ctx it
// does nothing and reports false.
func Charge(ctx context.Context, u model.Usage) (exhausted bool) {
	s := scopeOf(ctx)
	if s == nil {
		return false
	}
	s.charge(u)
	return s.exhausted()
}
