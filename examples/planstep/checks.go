package main

import (
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/offshoot-dev/offshoot/bus"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/sessiontest"
	"github.com/offshoot-dev/offshoot/subagent"
	"github.com/offshoot-dev/offshoot/tools/vfs"
)

// checks verifies, while the demo runs, the guarantees dispatch_subagent
// makes: each child starts with exactly the parent's state (parity), the
// parent does not change while a child runs (isolation), what a child
// wrote reaches the parent only once it is done (artifacts), and every
// child is closed and detached afterwards (teardown).
type checks struct {
	parent *session.Session
	mu     sync.Mutex
	during map[string]session.Snapshot // child session id -> parent's state when it started
	lines  []string
	failed int
	kids   []*session.Session
	stop   func()
}

func newChecks(parent *session.Session) *checks {
	c := &checks{parent: parent, during: map[string]session.Snapshot{}}
	c.stop, _ = bus.Subscribe(parent.Bus(), "planstep.isolation", c.finished)
	return c
}

func (c *checks) report(ok bool, format string, args ...any) {
	mark := "✓"
	if !ok {
		mark = "✗"
		c.failed++
	}
	c.lines = append(c.lines, fmt.Sprintf("  %s "+format, append([]any{mark}, args...)...))
}

// childSetup runs on every child right after it was forked: the parity
// check.
func (c *checks) childSetup(child *session.Session) error {
	before := c.parent.Snapshot()
	now := child.Snapshot()
	shared := 0
	for _, t := range before.Types() {
		if before.Same(now, t) {
			shared++
		}
	}
	d := sessiontest.Diff(before, now)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.during[child.ID()] = before
	c.kids = append(c.kids, child)
	c.report(d == "" && shared == len(before.Types()),
		"parity: child session %s starts with the parent's exact state (%d of %d slices shared, none copied)", child.ID(), shared, len(before.Types()))
	return nil
}

// finished runs when a child is about to be torn down: the isolation check.
func (c *checks) finished(_ context.Context, _ bus.Envelope, e subagent.Finished) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	d := sessiontest.Diff(c.during[e.SessionID], c.parent.Snapshot())
	c.report(d == "", "isolation: the parent's state did not change while %s (session %s) ran%s", e.AgentID, e.SessionID, indent(d))
	return nil
}

// final checks what holds after the run.
func (c *checks) final(artifacts []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	files := vfs.Files(c.parent)
	for _, a := range artifacts {
		f, inParent := files.Get(a)
		c.report(inParent && f.Content != "", "artifact: %s, written by a child, reached the parent with the child's result", a)
	}
	open := 0
	for _, k := range c.kids {
		if !k.Closed() {
			open++
		}
	}
	c.report(len(c.parent.ChildIDs()) == 0 && open == 0 && len(c.kids) > 0,
		"teardown: all %d children closed and detached from the bus", len(c.kids))
}

func (c *checks) print(w io.Writer) error {
	fmt.Fprintln(w, "\nChecks:")
	for _, l := range c.lines {
		fmt.Fprintln(w, l)
	}
	if c.failed > 0 {
		return fmt.Errorf("%d checks failed", c.failed)
	}
	return nil
}

func indent(diff string) string {
	if diff == "" {
		return ""
	}
	return ":\n" + diff
}
