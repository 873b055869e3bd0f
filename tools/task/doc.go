// Package task is the Claude-Code-style Task tool: a main agent hands a
// self-contained task to a named agent — defined in a Markdown file, in
// config.json or in Go (package agents) — which works on its own, with
// its own system prompt, tools and model, and hands back only its answer.
//
// A program gives its main agent the tools (Task, TaskOutput, TaskStop),
// and the section that lists the agents and says when to delegate, in one
// call:
//
//	reg := agents.Load(agents.Options{ProjectDir: ".", HomeDir: home})
//	main, err := prompt.New("app", "main",
//		prompt.Markdown[prompt.NoParams]("Role", "You are a coding assistant."),
//		vfs.Section(vfs.Options{}),
//		task.Section(reg, subagent.New(subagent.Options{}), router, task.Options{}),
//	)
//
// One call of the tool, {"description", "prompt", "subagent_type"} and
// optionally "model" and "max_turns", runs like this:
//
//   - The agent is found in the registry: by its exact name, else ignoring
//     case and separators ("Code Reviewer" finds code-reviewer), else — only
//     when the program loaded the registry with
//     agents.Options.MatchDescriptions — by its description.
//   - Its model is the call's model, else the definition's, else the
//     caller's ("inherit" passes the choice on), resolved through the
//     model.Router; its tools are the caller's, narrowed by the definition
//     (Definition.ResolveTools), plus its MCP servers' (Options.MCP), and
//     without Task at the depth limit (defaultMaxDepth: agents started by
//     Task cannot start agents of their own).
//   - Its system prompt is the definition's prompt, "\n\n# Task\n" and the
//     call's description, followed by what it starts from and the
//     subagent orientation (subagent.Orient); its first user message is the
//     call's prompt.
//   - It runs on the subagent.Engine, in a session forked from the
//     caller's, so it sees the caller's files and plan (O(1): a snapshot);
//     an agent whose definition sets ForkContext also carries on the
//     caller's conversation, the rest start from their task alone. The
//     engine's limits apply: concurrency, spawn budget, timeout, max
//     turns, token budget.
//   - When it completes, the files it wrote are copied into the caller's
//     session with the result, and the model reads "Subagent (TYPE, MODEL)
//     completed." and the agent's answer (and, when the agent can be
//     resumed, its agent_id and how to resume it); the call's Result (the tool
//     response envelope, with tool_summary, model_used and agent_id) is
//     recorded with the call. When it fails the model reads the failure —
//     "Subagent task timed out after 600000ms", "Circular delegation
//     prevented: …", "Subagent lacks permission for required tools: […]" —
//     followed by whatever the agent wrote before it stopped.
//
// Several Task calls in one turn run side by side.
//
// A call with run_in_background (or of an agent whose definition sets
// background: true) starts the agent and returns at once, with the task's
// id (the agent's) and its output file (see subagent.Options.Transcripts).
// The agent lives on the run's context, not the call's; when it ends, its
// result reaches the main agent's next model call as a <task-notification>.
// Meanwhile TaskOutput reads its output (waiting for its end unless told
// not to, 30 seconds by default, 10 minutes at most) and TaskStop stops it,
// keeping what it wrote. Both only find tasks their own session started;
// at the depth limit, agents get neither, as they get no Task.
//
// A call with resume (an agent_id from an earlier result) continues that
// agent: its conversation from its transcript, with the call's prompt as
// its next message, the same type and model and its original depth, on
// its caller's state as it is now. It needs transcripts
// (subagent.Options.Transcripts), and the agent must have started from its
// task alone: an agent whose definition sets forkContext cannot be
// resumed.
package task
