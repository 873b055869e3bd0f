package democmd

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/offshoot-dev/offshoot/bus"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/sessiontest"
	"github.com/offshoot-dev/offshoot/subagent"
	"github.com/offshoot-dev/offshoot/tools/promptsubagent"
	"github.com/offshoot-dev/offshoot/tools/vfs"
)

// checks verifies, while the demo runs, the two guarantees of a forked
// subagent, with sessiontest:
//
//   - parity: each child starts with exactly the parent's state — the
//     snapshot it was forked from;
//   - isolation: the parent does not change while a child runs (compared
//     deeply, so a change through shared memory would show), and afterwards
//     it gains only what was copied back: the files the children wrote.
//
// It sees the children through the engine's child-setup hook and the
// subagent events on the bus, as any program can.
type checks struct {
	parent *session.Session

	mu    sync.Mutex
	kids  map[string]*kid // child session id -> what was seen of it
	order []*kid
	stop  []func()
}

// kid is what the checks saw of one child.
type kid struct {
	session *session.Session
	agent   string
	// start is the parent's state when the child was forked; before is it
	// captured deeply.
	start  session.Snapshot
	before sessiontest.Captured
	// parity is the difference between start and the child's first state;
	// shared counts the slices the child shares with start.
	parity         string
	shared, slices int
	// finished is set once the child ran; isolation is then how the parent
	// changed while it ran, and wrote the files it wrote.
	finished  bool
	isolation string
	wrote     map[string]string
}

func newChecks(parent *session.Session) (*checks, error) {
	c := &checks{parent: parent, kids: map[string]*kid{}}
	stopStarted, err := bus.Subscribe(parent.Bus(), "demo.checks.started", c.started)
	if err != nil {
		return nil, err
	}
	stopFinished, err := bus.Subscribe(parent.Bus(), "demo.checks.finished", c.finished)
	if err != nil {
		stopStarted()
		return nil, err
	}
	c.stop = []func(){stopStarted, stopFinished}
	return c, nil
}

// close stops watching the bus.
func (c *checks) close() {
	for _, stop := range c.stop {
		stop()
	}
}

// childSetup runs on every child right after it was forked, before
// anything is written into it: the parity check.
func (c *checks) childSetup(child *session.Session) error {
	start := c.parent.Snapshot()
	k := &kid{session: child, start: start, before: sessiontest.CaptureSnapshot(start), agent: "session " + child.ID()}
	first := child.Snapshot()
	k.parity = sessiontest.Diff(start, first)
	for _, t := range start.Types() {
		k.slices++
		if start.Same(first, t) {
			k.shared++
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.kids[child.ID()] = k
	c.order = append(c.order, k)
	return nil
}

func (c *checks) started(_ context.Context, _ bus.Envelope, e subagent.Started) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if k, ok := c.kids[e.SessionID]; ok {
		k.agent = e.AgentID
	}
	return nil
}

// finished runs when a child's run has ended, before it is torn down: the
// parent must be as it was when the child started.
func (c *checks) finished(_ context.Context, _ bus.Envelope, e subagent.Finished) error {
	c.mu.Lock()
	k, ok := c.kids[e.SessionID]
	c.mu.Unlock()
	if !ok {
		return nil
	}
	isolation := k.before.Changes(c.parent.Snapshot())
	wrote := written(k.start, k.session.Snapshot())
	c.mu.Lock()
	defer c.mu.Unlock()
	k.finished, k.isolation, k.wrote = true, isolation, wrote
	return nil
}

// result is the outcome of one check.
type result struct {
	Check  string `json:"check"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`
	// Diff says what differed, when the check failed.
	Diff string `json:"diff,omitempty"`
}

// results checks what holds once the run is over.
func (c *checks) results() []result {
	c.mu.Lock()
	defer c.mu.Unlock()
	return []result{c.parityResult(), c.isolationResult()}
}

func (c *checks) parityResult() result {
	r := result{Check: "parity"}
	if len(c.order) == 0 {
		r.Detail = "no subagent ran, so there was nothing to compare"
		return r
	}
	var diffs []string
	for _, k := range c.order {
		if k.parity != "" || k.shared != k.slices {
			diffs = append(diffs, fmt.Sprintf("%s (%s) did not start with the parent's state; %d of %d slices shared (- parent's snapshot, + child):\n%s",
				k.agent, k.session.ID(), k.shared, k.slices, k.parity))
		}
	}
	if len(diffs) > 0 {
		r.Detail = fmt.Sprintf("%d of %d subagents did not start from the parent's snapshot", len(diffs), len(c.order))
		r.Diff = strings.Join(diffs, "\n")
		return r
	}
	r.OK = true
	r.Detail = fmt.Sprintf("each of the %d subagents (%s) started with exactly the parent's state: all %d slices shared with the parent's snapshot, none copied",
		len(c.order), strings.Join(c.agents(), ", "), c.order[0].slices)
	return r
}

func (c *checks) isolationResult() result {
	r := result{Check: "isolation"}
	if len(c.order) == 0 {
		r.Detail = "no subagent ran, so there was nothing to compare"
		return r
	}
	var diffs []string
	want := vfs.FilesOf(c.order[0].start)
	for _, k := range c.order {
		switch {
		case !k.finished:
			diffs = append(diffs, fmt.Sprintf("%s (%s) was never seen to finish", k.agent, k.session.ID()))
		case k.isolation != "":
			diffs = append(diffs, fmt.Sprintf("the parent changed while %s (%s) ran:\n%s", k.agent, k.session.ID(), k.isolation))
		}
	}
	// What was copied back: the artifacts the dispatches reported, as the
	// child that wrote them left them.
	expected := map[string]string{}
	for f := range want.All() {
		expected[f.Path] = f.Content
	}
	artifacts := reported(c.parent)
	for _, path := range artifacts {
		found := false
		for _, k := range c.order {
			if content, ok := k.wrote[path]; ok {
				expected[path], found = content, true
			}
		}
		if !found {
			diffs = append(diffs, fmt.Sprintf("%s was reported as an artifact, but no subagent wrote it", path))
		}
	}
	if d := compareFiles(expected, c.parent); d != "" {
		diffs = append(diffs, "afterwards the parent's files are not its own plus the files the subagents wrote:\n"+d)
	}
	if len(diffs) > 0 {
		r.Detail = fmt.Sprintf("the parent's state was touched by its subagents (%s)", plural(len(diffs), "problem"))
		r.Diff = strings.Join(diffs, "\n")
		return r
	}
	r.OK = true
	r.Detail = fmt.Sprintf("the parent's state did not change while its %d subagents ran (compared deeply); afterwards it gained only the %s they wrote, copied back: %s",
		len(c.order), plural(len(artifacts), "file"), strings.Join(artifacts, ", "))
	return r
}

func (c *checks) agents() []string {
	var out []string
	for _, k := range c.order {
		out = append(out, k.agent)
	}
	slices.Sort(out)
	return out
}

// reported returns the artifacts the dispatches of s reported, sorted.
func reported(s *session.Session) []string {
	var out []string
	for ti := range session.All[runner.ToolInvoked](s) {
		var res promptsubagent.DispatchSubagentResult
		if ti.Name == promptsubagent.ToolName && ti.Success && json.Unmarshal(ti.Value, &res) == nil {
			out = append(out, res.Artifacts...)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// written returns the files of to that from does not hold as they are.
func written(from, to session.Snapshot) map[string]string {
	before := vfs.FilesOf(from)
	out := map[string]string{}
	for f := range vfs.FilesOf(to).All() {
		if old, ok := before.Get(f.Path); !ok || old.Content != f.Content {
			out[f.Path] = f.Content
		}
	}
	return out
}

// compareFiles says how the files of s differ from want, "" when they
// do not.
func compareFiles(want map[string]string, s *session.Session) string {
	have := vfs.Files(s)
	var lines []string
	for _, path := range slices.Sorted(maps.Keys(want)) {
		f, ok := have.Get(path)
		switch {
		case !ok:
			lines = append(lines, "  missing: "+path)
		case f.Content != want[path]:
			lines = append(lines, "  different content: "+path)
		}
	}
	for f := range have.All() {
		if _, ok := want[f.Path]; !ok {
			lines = append(lines, "  unexpected: "+f.Path)
		}
	}
	return strings.Join(lines, "\n")
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
