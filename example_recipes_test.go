package offshoot_test

import (
	"context"
	"fmt"
	"io/fs"
	"log"

	"github.com/offshoot-dev/offshoot"
	"github.com/offshoot-dev/offshoot/agents"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/tools/planning"
	"github.com/offshoot-dev/offshoot/tools/vfs"
)

// Three things a newcomer looks for, in one program: putting files into the
// main agent's session from Go (Options.Files), routing the scripted answers of
// children that run in parallel (scripted.When with a matcher, so each
// child gets its own answers whatever order they arrive in), and reading
// the plan and the files the session holds afterwards
// (planning.CurrentPlan and vfs.FS on Client.Session).
func Example_filesPlanAndParallelChildren() {
	m := scripted.New(
		// Each child is recognized by its agent's instructions, which open
		// its system prompt: its answers are queued apart from the main
		// agent's, so the two children may run in any order.
		scripted.When(scripted.SystemContains("You review Go code"), scripted.Text("auth.go: the token is never checked.")),
		scripted.When(scripted.SystemContains("You check documentation"), scripted.Text("README.md: the install step is missing.")),
		// The main agent: one turn that sets up a plan and delegates two
		// tasks at once (they run in parallel), then its answer.
		scripted.ToolCalls(
			model.ToolCall{Name: "planning_setup_plan", Arguments: `{"objective":"Review the project","initial_steps":[{"title":"Review the code"},{"title":"Check the docs"}]}`},
			model.ToolCall{Name: "Task", Arguments: `{"subagent_type":"coder","description":"Review auth.go","prompt":"Review auth.go."}`},
			model.ToolCall{Name: "Task", Arguments: `{"subagent_type":"writer","description":"Check README.md","prompt":"Check README.md."}`},
		),
		scripted.Text("Two findings: the token check in auth.go and the install step in README.md."),
	)
	client, err := offshoot.NewClient(offshoot.Options{
		Model: m,
		Files: map[string]string{ // into the main agent's virtual filesystem
			"auth.go":   "package auth\n",
			"README.md": "# Project\n",
		},
		Agents: map[string]agents.Definition{
			"coder":  {Description: "Reviews Go code", Prompt: "You review Go code."},
			"writer": {Description: "Checks documentation", Prompt: "You check documentation."},
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()
	for msg := range client.Query(context.Background(), "Review this project.") {
		if r, ok := msg.(offshoot.ResultMessage); ok {
			fmt.Println(r.Text)
		}
	}

	plan, ok := planning.CurrentPlan(client.Session()) // the plan the agent set up
	fmt.Println(ok, plan.Objective, len(plan.Steps), "steps")
	names, _ := fs.Glob(vfs.FS(client.Session()), "*") // the session's files as an fs.FS
	fmt.Println(names)
	// Output:
	// Two findings: the token check in auth.go and the install step in README.md.
	// true Review the project 2 steps
	// [README.md auth.go]
}
