package runner

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/offshoot-dev/offshoot/model"
)

// Scope is an evaluation's place in its run: the tree an evaluation makes
// with the evaluations started from its tool calls (subagents), and theirs.
// Evaluate gives every evaluation a Scope below the one its ctx carries (a
// tool call's ctx carries its evaluation's; see CallerFrom), so:
//
//   - a token Budget bounds the whole subtree: every evaluation charges what
//     its model calls spend to its scope and each scope above, as it
//     spends it, and stops (ErrBudgetExceeded) when any scope above it is
//     over its budget; so a child may spend at most what its parents have
//     left, and nothing a child spent is lost if its parent stops first;
//   - delegation engines keep their per-run limits in scopes (Value), so
//     the limits belong to a run, not to a session;
//   - work that must outlive a tool call but not the run — a subagent in
//     the background — derives its context from the run's (Context).
//
// A Scope is safe for concurrent use.
type Scope struct {
	parent                *Scope
	budget                int64
	ctx                   context.Context // the evaluation's (NewRunScope's run's), nil for NewScope's
	input, output, tokens atomic.Int64    // spent in the scope and below it

	mu     sync.Mutex
	values map[any]any
}

// NewScope returns a root scope with a token budget (0 for none): pass it
// with WithCaller to evaluations and delegations started from a program's
// own code that should count as one run.
func NewScope(budget int) *Scope { return &Scope{budget: int64(budget)} }

func newScope(ctx context.Context, parent *Scope, budget int) *Scope {
	return &Scope{ctx: ctx, parent: parent, budget: int64(budget)}
}

// Parent returns the scope of the evaluation whose tool call started this
// one, nil for a root.
func (s *Scope) Parent() *Scope { return s.parent }

// Root returns the scope of the run's outermost evaluation.
func (s *Scope) Root() *Scope {
	for s.parent != nil {
		s = s.parent
	}
	return s
}

// Context returns the context of the run s belongs to: the one its root
// was made with (NewRunScope), else the one its outermost evaluation was
// started with. Work started from a tool call
// that must outlive the call but not the run — a subagent running in the
// background — derives from it, so that it ends when the run's context
// is cancelled. ok is false when no evaluation ran in s or above it (a
// NewScope not yet used by Evaluate).
func (s *Scope) Context() (ctx context.Context, ok bool) {
	for ; s != nil; s = s.parent {
		if s.ctx != nil {
			ctx = s.ctx
		}
	}
	return ctx, ctx != nil
}

// Spent returns what was spent in the scope and below it so far.
func (s *Scope) Spent() model.Usage {
	return model.Usage{InputTokens: int(s.input.Load()), OutputTokens: int(s.output.Load()), TotalTokens: int(s.tokens.Load())}
}

// Value returns the scope's value for key, storing init() first when it has
// none: per-run state of a program or a delegation engine (the engine
// counts a run's children in its root scope). Use a key of an unexported
// type, as with context values.
func (s *Scope) Value(key any, init func() any) any {
	s.mu.Lock()
	defer s.mu.Unlock()
	if v, ok := s.values[key]; ok {
		return v
	}
	if s.values == nil {
		s.values = map[any]any{}
	}
	v := init()
	s.values[key] = v
	return v
}

// charge adds u to s and every scope above it.
func (s *Scope) charge(u model.Usage) {
	if u == (model.Usage{}) {
		return
	}
	for ; s != nil; s = s.parent {
		s.input.Add(int64(u.InputTokens))
		s.output.Add(int64(u.OutputTokens))
		s.tokens.Add(int64(u.TotalTokens))
	}
}

// exhausted reports whether s or a scope above it has spent more than its
// budget.
func (s *Scope) exhausted() bool {
	for ; s != nil; s = s.parent {
		if s.budget > 0 && s.tokens.Load() > s.budget {
			return true
		}
	}
	return false
}
