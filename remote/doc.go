// Package remote runs subagents on worker processes over NATS JetStream.
//
// A child is a snapshot plus a prompt, so it can run in another process
// or on another machine. Give a subagent.Engine an Executor
// (subagent.Options.Executor) and its children go, as jobs, to the work
// queue of a pool (subject offshoot.jobs.<pool>); programs built from the
// same code run Serve to take them. Everything above the engine —
// dispatch_subagent, the Task tool, background tasks, hooks, limits,
// budgets, usage, cancellation — works unchanged and gives the same
// results as children run in process. The package is transport only: the
// engine prepares each child's evaluation where it is dispatched (its
// prompt rendered, its tools named), a worker runs it with the runner
// code an in-process child runs with, and what moves between them is the
// prepared evaluation, what the child records, and its result:
//
//   - the state a child starts from goes to the JetStream object store
//     under its sha256, once for all the siblings forked from one state;
//   - what the child records on its worker comes back batch by batch and
//     is applied to the child's session in the parent's process, so the
//     parent's bus observers see the child's events as they happen, and
//     its artifacts reach the parent as they would in process;
//   - the result is applied exactly once per job: a job redelivered after
//     its worker died starts again from the start state, and a duplicate
//     result is dropped;
//   - a worker refuses, with a failed result naming both sides, a job
//     from a program of another snapshot schema or fingerprint (see
//     Setup), and never runs it on the wrong code;
//   - cancelling a child's context cancels it on its worker.
//
// Workers take jobs only into free slots, acknowledge a job only after
// its result is stored, signal progress for every job they hold, and
// leave the job to another worker when they die (Setup.AckWait); after
// Setup.MaxDeliver deliveries the parent gets a failed result that says
// so. A cancel that reaches a worker before the child starts prevents the
// start. A cancel is signed by the job's secret, like every message
// about the job; a worker ignores one that is not.
package remote
