// Package compare measures offshoot against the Go agent frameworks a user
// would pick instead — cloudwego/eino, firebase/genkit and tmc/langchaingo —
// on the same work, through each framework's documented public API, with
// tracing, telemetry and callbacks off, against the same kind of fake model.
//
// The workloads:
//
//   - Loop (workload A): a fake model answers K turns of one echo tool
//     call each, then a final answer. Per-turn cost is
//     (run at K=50 − run at K=10) / 40. offshoot and eino also run it with
//     streaming on (the "-stream" rows): the model streams each tool call
//     as one piece and the final answer in four, and an observer reads
//     every piece.
//   - Hand-off (workload B): a parent holding N ~100-byte events hands its
//     context to a child that answers in one turn, and the parent then
//     answers. Each framework also runs a parent-only control — the same
//     parent turn calling the echo tool instead — so the hand-off cost is
//     the difference of two figures taken in one run. offshoot hands off
//     through dispatch_subagent and, in the "offshoot-task" row, through
//     the Task tool to an agent that carries on the parent's conversation.
//   - Scale: the live heap that many concurrent children of a parent holding
//     100,000 events add, while every child waits inside its model call.
//
// Every case is a func(*testing.B), listed by [Cases]. The package's
// benchmarks run them under go test; the benchcompare command runs them with
// testing.Benchmark, several times, and writes the tables and charts.
package compare
