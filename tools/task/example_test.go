package task_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/offshoot-dev/offshoot/agents"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/subagent"
	"github.com/offshoot-dev/offshoot/tools"
	"github.com/offshoot-dev/offshoot/tools/task"
	"github.com/offshoot-dev/offshoot/tools/vfs"
)

// A main agent delegates to an agent defined in Go, on the light model.
func ExampleSection() {
	ctx := context.Background()

	// The agents: here one, given in Go; agents.Load also reads files.
	reg := agents.Load(agents.Options{NoBuiltins: true, Agents: map[string]agents.Definition{
		"reviewer": {
			Description: "Reviews code for bugs. Use it after changes.",
			Prompt:      "You review code and report bugs with their lines.",
			Tools:       []string{"Read", "Grep"}, // Claude Code's names work
			Model:       "light",
		},
	}})

	// Two models behind the router: main and light.
	mainModel := scripted.New(
		scripted.ToolCall("Task", `{"subagent_type":"reviewer","description":"Review the login code","prompt":"Review src/login.go and list its bugs."}`),
		scripted.Text("The reviewer found one bug: Login ignores the password."),
	)
	lightModel := scripted.New(
		scripted.ToolCall("read_file", `{"file_path":"src/login.go"}`),
		scripted.Text("Line 3: Login ignores the password."),
	)
	router, _ := model.NewStaticRouter(map[string]model.Model{"main": mainModel, "light": lightModel}, nil)

	// The main agent: its role, the files, and the agents with the Task tool.
	main, err := prompt.New("app", "main",
		prompt.Markdown[prompt.NoParams]("Assistant", "You are a coding assistant."),
		vfs.Section(vfs.Options{}),
		task.Section(reg, subagent.New(subagent.Options{}), router, task.Options{}),
	)
	if err != nil {
		panic(err)
	}
	s, _ := session.New()
	defer s.Close()
	_ = s.Install(context.Background(), vfs.Reducers(vfs.Table{}))
	_ = s.Dispatch(ctx, vfs.FileWritten{Path: "src/login.go", Content: "package src\n\nfunc Login(user, password string) bool { return true }\n", Version: 1})

	resp, err := runner.Evaluate(ctx, runner.Request{Prompt: main, Session: s, Model: router.Main(), ModelName: "main", UserMessage: "Is the login code right?"})
	if err != nil {
		panic(err)
	}
	call, _ := session.Latest[runner.ToolInvoked](s)
	fmt.Println(call.Result)
	fmt.Println("--")
	fmt.Println(resp.Text)
	// Output:
	// Subagent (reviewer, scripted) completed.
	//
	// Line 3: Login ignores the password.
	// --
	// The reviewer found one bug: Login ignores the password.
}

// The result of a Task call, recorded with the call: the envelope a program
// reads, of which the model sees the text.
func ExampleResult() {
	ctx := context.Background()
	reg := agents.Load(agents.Options{NoBuiltins: true, Agents: map[string]agents.Definition{
		"summary": {Description: "Summarizes text.", Prompt: "You summarize.", Tools: []string{}, Model: "light"},
	}})
	light := scripted.New(scripted.Text("Two files, both short."))
	router, _ := model.NewStaticRouter(map[string]model.Model{"main": scripted.New(), "light": light}, nil)
	tool, _ := task.Tool(reg, subagent.New(subagent.Options{NewID: func() string { return "agent-1" }}), router, task.Options{})

	s, _ := session.New()
	defer s.Close()
	// The runner makes the invocation; a program calling the tool itself
	// gives at least the session it delegates from.
	out := tool.Call(ctx, &tools.Invocation{Session: s}, json.RawMessage(`{"subagent_type":"summary","description":"Summarize the notes","prompt":"Summarize: a.md is short; b.md is short."}`))
	res := out.Value.(task.Result)
	fmt.Println(res.ShortResult)
	fmt.Printf("%s on %s, agent %s, %d tool calls\n", res.Data.SubagentType, res.Data.ModelUsed, res.Data.AgentID, res.Stats.ToolCalls)
	fmt.Printf("%q\n", res.Text)
	// Output:
	// Task completed by summary
	// summary on scripted, agent agent-1, 0 tool calls
	// "Subagent (summary, scripted) completed.\n\nTwo files, both short."
}

// A main agent starts an agent in the background, goes on, and reads its
// result with TaskOutput; the notification of its end reaches the main
// agent's next model call as well.
func ExampleTools() {
	ctx := context.Background()
	reg := agents.Load(agents.Options{NoBuiltins: true, Agents: map[string]agents.Definition{
		"watcher": {Description: "Watches the build.", Prompt: "You watch builds.", Tools: []string{}, Model: "light"},
	}})
	var n atomic.Int64
	engine := subagent.New(subagent.Options{NewID: func() string { return fmt.Sprintf("task-%d", n.Add(1)) }})
	mainModel := scripted.New(
		scripted.ToolCall("Task", `{"subagent_type":"watcher","description":"Watch the build","prompt":"Tell me when the build is done.","run_in_background":true}`),
		scripted.ToolCall("TaskOutput", `{"task_id":"task-1","timeout":5000}`),
		scripted.Text("The build passed."),
	)
	light := scripted.New(scripted.Text("The build passed: 212 tests."))
	router, _ := model.NewStaticRouter(map[string]model.Model{"main": mainModel, "light": light}, nil)
	set, err := task.Tools(reg, engine, router, task.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Println(set.Names())

	main, _ := prompt.New("app", "main", agents.Section(reg, prompt.WithTools(set.Tools()...)))
	s, _ := session.New()
	defer s.Close()
	resp, err := runner.Evaluate(ctx, runner.Request{Prompt: main, Session: s, Model: router.Main(), ModelName: "main", UserMessage: "Is the build done?"})
	if err != nil {
		panic(err)
	}
	for call := range session.All[runner.ToolInvoked](s) {
		fmt.Printf("%s: %s\n", call.Name, strings.SplitN(call.Result, "\n", 2)[0])
	}
	// The notification is the last message of the first request made after
	// the task ended: the second or the third, depending on how soon it did.
	for _, call := range mainModel.Calls() {
		msgs := call.Request.Messages
		if last := msgs[len(msgs)-1].Content; strings.HasPrefix(last, "<task-notification>") {
			fmt.Println(strings.SplitN(last, "\n", 3)[1])
		}
	}
	fmt.Println(resp.Text)
	// Output:
	// [Task TaskOutput TaskStop]
	// Task: Subagent (watcher, scripted) started in the background as task task-1. Its result will come to you in a task notification when it ends; go on with other work meanwhile. To read its output before then, call TaskOutput with task_id task-1; to stop it, call TaskStop.
	// TaskOutput: Task task-1 has completed. Its result:
	// The background task task-1 (Watch the build, by the watcher agent) has completed.
	// The build passed.
}
