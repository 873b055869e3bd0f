package subagent

import (
	"context"
	"sync"

	"github.com/offshoot-dev/offshoot/session"
)

// run is one run of a program: the delegations started under it share the
// engine's spawn budget, and its background tasks end with its context.
type run struct {
	ctx    context.Context
	mu     sync.Mutex
	spawns map[*Engine]int
}

type runKey struct{}

// WithRun returns ctx marked as one run of a program — a chat, a request
// to a service — whose delegations share the engine's spawn budget
// (Options.MaxSpawns) and whose background tasks end, as stopped, when ctx is
// cancelled. Run a turn with a context below it: a turn may end (its
// context cancelled) while the tasks it started go on.
//
//	run := subagent.WithRun(ctx)
//	turn, stop := context.WithCancel(run)
//	defer stop()
//	resp, err := runner.Evaluate(turn, req)
//
// A delegation made outside any run is a run of its own, whose context is
// the one the delegation was made with: a tool call's context is its
// evaluation's (the runner gives the call the context Evaluate was given),
// so a program that evaluates without WithRun stops the background tasks
// of an evaluation by cancelling its context.
func WithRun(ctx context.Context) context.Context {
	return context.WithValue(ctx, runKey{}, &run{ctx: ctx})
}

// runOf returns the run ctx belongs to, or a new one for ctx.
func runOf(ctx context.Context) (context.Context, *run) {
	if r, ok := ctx.Value(runKey{}).(*run); ok {
		return ctx, r
	}
	r := &run{ctx: ctx}
	return context.WithValue(ctx, runKey{}, r), r
}

// spawn counts one more child of the run, and reports false when the run
// spawned maxSpawns already.
func (e *Engine) spawn(r *run) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.spawns[e] >= e.maxSpawns {
		return false
	}
	if r.spawns == nil {
		r.spawns = map[*Engine]int{}
	}
	r.spawns[e]++
	return true
}

// slots are the concurrency slots of one parent session: a child holds
// one while it runs. A parent waiting for its children holds none of
// theirs (each child session has its own), so nesting cannot deadlock.
type slots struct {
	sem   chan struct{}
	users int // holders and waiters
}

// idleSlots is how many parent sessions' slots the engine keeps before it
// drops those no child holds or waits for: a parent that delegates again
// finds its own, and a long-lived engine holds no more than this many
// idle ones.
const idleSlots = 64

// slot waits for one of parent's slots, as long as ctx allows, and
// returns its release.
func (e *Engine) slot(ctx context.Context, parent *session.Session) (release func(), err error) {
	e.mu.Lock()
	s := e.slots[parent]
	if s == nil {
		if len(e.slots) >= idleSlots {
			for p, idle := range e.slots {
				if idle.users == 0 {
					delete(e.slots, p)
				}
			}
		}
		s = &slots{sem: make(chan struct{}, e.maxConcurrent)}
		e.slots[parent] = s
	}
	s.users++
	e.mu.Unlock()
	done := func() {
		e.mu.Lock()
		s.users--
		e.mu.Unlock()
	}
	select {
	case s.sem <- struct{}{}:
		return func() { <-s.sem; done() }, nil
	case <-ctx.Done():
		done()
		return nil, ctx.Err()
	}
}
