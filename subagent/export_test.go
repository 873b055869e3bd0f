package subagent

import "context"

// WithChain returns ctx as the tool calls of the last agent of chain see
// it (the first element is the root evaluation's prompt), for the tests of
// cycles and depth.
func WithChain(ctx context.Context, chain ...string) context.Context {
	l := lineage{}
	if len(chain) > 0 {
		l.root, l.agents = chain[0], chain[1:]
	}
	return withLineage(ctx, l)
}

// The engine's limits, for the tests.
const (
	DefaultMaxDepth = defaultMaxDepth
	MaxStopBlocks   = maxStopBlocks
)

// SlotsKept counts the parent sessions whose concurrency slots e keeps.
func SlotsKept(e *Engine) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.slots)
}
