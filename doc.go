// Package offshoot is the one-call way to run an agent: a Client is a main
// agent with a virtual filesystem, a plan, and agents it delegates to with
// the Task tool — in the foreground, in the background, or resuming one
// that ran before — on the model you give it. Query sends it a prompt and
// yields what happens as typed messages: the text as it streams, the
// model's answers and tool calls, the tools' results, background tasks'
// notifications, and a final ResultMessage with the answer and usage.
//
// The simple case:
//
//	client, err := offshoot.NewClient(offshoot.Options{
//		Model: m,
//		Agents: map[string]agents.Definition{
//			"reviewer": {Description: "Code review specialist", Prompt: "You review code for quality."},
//		},
//	})
//	if err != nil {
//		log.Fatal(err)
//	}
//	defer client.Close()
//	for msg := range client.Query(ctx, "Review the authentication module") {
//		if r, ok := msg.(offshoot.ResultMessage); ok {
//			fmt.Println(r.Text)
//		}
//	}
//
// Then, as needed (fields of Options): a router with main and light
// models (Router), the agents of a project's and a user's files
// (AgentOptions), a directory copied in read-only (Mounts, with
// DirectoryMount), tools and MCP servers of your own (Tools, MCPServers),
// transcripts on disk, which resuming agents needs (Transcripts), a
// handler of background tasks' notifications (OnTaskNotification) and the
// tasks themselves (Client.Tasks), the permission rules, mode, hooks and
// callback that decide every tool call (Permissions),
// and the session, to save and inspect (Client.Session).
//
// The packages below are the library this package puts together: session
// (state), runner (the evaluation loop), prompt and tools, tools/vfs and
// tools/planning, agents and tools/task, subagent (the engine), model.
package offshoot
