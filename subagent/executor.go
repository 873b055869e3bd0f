package subagent

import (
	"context"
	"slices"

	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
)

// An Executor runs a child's evaluation — where is its business: the
// engine's own runs it in process (runner.Evaluate); package remote's
// runs it on a worker process over NATS JetStream. The engine does
// everything else itself, before and after: limits, hydration and setup,
// hooks, transcripts, usage, teardown. Execute must leave in the child's
// session (job.Request.Session) what the evaluation recorded, as
// runner.Evaluate does, and return what runner.Evaluate would: the
// response so far and an *runner.EvaluationError when the evaluation
// failed. A child continued by a stop hook is executed again, with
// Request.Continue set.
type Executor interface {
	Execute(ctx context.Context, job *Job) (*runner.Response, error)
}

// Job is one evaluation of a child, as the engine hands it to its
// Executor.
type Job struct {
	// ID is the child's agent id; Name what runs (Spec.Name); Depth its
	// depth (1 for a child of a root run).
	ID, Name string
	Depth    int
	// Root is the id of the session at the root of the delegation tree;
	// RootPrompt the root evaluation's prompt ("ns/key", "" when a
	// program's own code delegated) and Agents the names of the agents
	// from the root's child down to this one (Name last): a nested
	// delegation continues them (see Context).
	Root, RootPrompt string
	Agents           []string
	// From is the state the child's session was hydrated from — the parent
	// snapshot a forked child started from, the empty snapshot for a fresh
	// one — and Fresh says which.
	From  session.Snapshot
	Fresh bool
	// Parent is the id of the session that delegates, and CallID the id
	// of the tool call that delegated ("" when a program's own code did):
	// where the child's work belongs in a trace.
	Parent, CallID string
	// Request is the child's evaluation as the engine prepared it, ready
	// to run with runner.Evaluate wherever it runs: Session is the
	// child's session, Rendered its prompt rendered once (oriented, its
	// toolset merged and filtered: runner.Render), Approve final.
	Request runner.Request
}

// Context returns ctx marked as the evaluation of the job's child, as the
// engine marks it: delegations made from it continue the job's chain
// (Chain, Depth) and keep their transcripts under its root — for an
// executor that runs the evaluation in another process.
func (j *Job) Context(ctx context.Context) context.Context {
	ctx = context.WithValue(ctx, rootKey{}, j.Root)
	return withLineage(ctx, lineage{root: j.RootPrompt, agents: slices.Clone(j.Agents)})
}

// inProcess is the default executor: the evaluation runs here.
type inProcess struct{}

func (inProcess) Execute(ctx context.Context, job *Job) (*runner.Response, error) {
	return runner.Evaluate(ctx, job.Request)
}
