package tools

import (
	"slices"

	"github.com/offshoot-dev/offshoot/session"
)

// State is the session state some tools keep — the virtual filesystem's
// files, the plan — as delegation sees it. When an agent hands work to a
// child forked from its session, the delegating tool asks each State of the
// toolset for a summary of what the child starts from (plain words, in the
// child's prompt) and, when the child is done, for its artifacts: what it
// produced that the parent should get back, with the events that give it
// to the parent's session. Tools declare their State with WithState (it is
// their Spec's State); tools that share state declare the same, comparable,
// State value, so it is asked once.
type State interface {
	// Summary describes, in plain words for a model, what snap holds of
	// this state ("3 files in the workspace: a.md, b.md, notes/c.md"), or
	// "" when it holds nothing. It must cost what it prints, not what the
	// state holds.
	Summary(snap session.Snapshot) string
	// Artifacts returns what changed from the snapshot from to the
	// snapshot to that a delegating agent should receive: names it is
	// shown, and the events that bring the changes into its session
	// (nil when the state has nothing to hand back).
	Artifacts(from, to session.Snapshot) (names []string, events []any)
}

// WithState declares the State the tool keeps (see State).
func WithState(s State) Option {
	return optionFunc(func(c *config) { c.state = s })
}

// States returns the distinct States the toolset's tools declare, in the
// order of the tools.
func (s Toolset) States() []State {
	var out []State
	for _, t := range s.list {
		st := t.Spec().State
		if st != nil && !slices.Contains(out, st) {
			out = append(out, st)
		}
	}
	return out
}
