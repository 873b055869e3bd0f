package subagent

import (
	"context"
	"runtime"
	"sync"

	"github.com/offshoot-dev/offshoot/session"
)

// limits tracks the engine's bookkeeping: concurrency slots per parent
// session and spawn counts per root session.
//
// Slots belong to the parent whose run spawns the child, so a parent
// waiting for its children holds no slot they need: nesting cannot
// deadlock. A root's spawn count lives as long as the root session; it is
// dropped when the root session is garbage-collected.
type limits struct {
	mu     sync.Mutex
	slots  map[string]*slotSet // parent session id -> its children's slots
	spawns map[string]int      // root session id -> children spawned
	rootOf map[string]string   // live child session id -> its root session id
}

type slotSet struct {
	sem  chan struct{}
	refs int
}

func newLimits() *limits {
	return &limits{slots: map[string]*slotSet{}, spawns: map[string]int{}, rootOf: map[string]string{}}
}

// acquire waits for one of max slots of parent's children, as long as ctx
// allows.
func (l *limits) acquire(ctx context.Context, parent string, max int) (release func(), err error) {
	l.mu.Lock()
	ss := l.slots[parent]
	if ss == nil {
		ss = &slotSet{sem: make(chan struct{}, max)}
		l.slots[parent] = ss
	}
	ss.refs++
	l.mu.Unlock()
	unref := func() {
		l.mu.Lock()
		if ss.refs--; ss.refs == 0 {
			delete(l.slots, parent)
		}
		l.mu.Unlock()
	}
	select {
	case ss.sem <- struct{}{}:
		return func() { <-ss.sem; unref() }, nil
	case <-ctx.Done():
		unref()
		return nil, ctx.Err()
	}
}

// root returns the root session id of parent.
func (l *limits) root(parent *session.Session) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if r, ok := l.rootOf[parent.ID()]; ok {
		return r
	}
	return parent.ID()
}

// spawn counts one more child of root, failing past max. The first spawn
// of a root ties its count's lifetime to the root session.
func (l *limits) spawn(root string, rootSession *session.Session, max int) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	n, seen := l.spawns[root]
	if n >= max {
		return false
	}
	l.spawns[root] = n + 1
	if !seen && rootSession != nil && rootSession.ID() == root {
		runtime.AddCleanup(rootSession, l.dropRoot, root)
	}
	return true
}

func (l *limits) dropRoot(root string) {
	l.mu.Lock()
	delete(l.spawns, root)
	l.mu.Unlock()
}

func (l *limits) adopt(child, root string) {
	l.mu.Lock()
	l.rootOf[child] = root
	l.mu.Unlock()
}

func (l *limits) release(child string) {
	l.mu.Lock()
	delete(l.rootOf, child)
	l.mu.Unlock()
}
