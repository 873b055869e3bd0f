package promptsubagent

import (
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/session"
)

// Options configures a Dispatcher (and Section, Tool). The zero value is
// the default: children run on the dispatching evaluation's model with the
// runner's turn limit, the plan is reconciled, artifacts are copied back.
type Options struct {
	// Model, when set, is the model children run on, called ModelName in
	// records, instead of the model of the evaluation that dispatches
	// them. ModelName is ignored while Model is nil.
	Model     model.Model
	ModelName string
	// NoPlanReconciliation leaves the plan alone after plan_step
	// dispatches (by default the step gets a note and becomes done or
	// blocked).
	NoPlanReconciliation bool
	// NoArtifactCopy leaves the artifacts a child produced in the child:
	// by default, when a dispatch completes, each file the child wrote
	// (any artifact of a tools.State of its toolset that the parent's
	// toolset keeps too, such as the VFS) is copied into the parent's
	// session, atomically with the tool's result. The result lists the
	// artifacts either way.
	NoArtifactCopy bool
	// ChildSetup, when set, runs on each child after hydration, for
	// derived reducers. A failure rejects the dispatch as invalid and
	// leaves the parent untouched.
	ChildSetup func(child *session.Session) error
	// MaxTurns bounds each child's model calls; the runner's default
	// (runner.DefaultMaxTurns) when 0.
	MaxTurns int
	// Title is the title of the section Section builds; "Subagents" when
	// empty.
	Title string
}
