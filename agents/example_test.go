package agents_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/offshoot-dev/offshoot/agents"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/tools"
)

// writeProject writes files under a new temporary directory.
func writeProject(files map[string]string) string {
	dir, err := os.MkdirTemp("", "agents-example")
	if err != nil {
		panic(err)
	}
	for p, content := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			panic(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			panic(err)
		}
	}
	return dir
}

// Loading a project's agents: a Claude Code agent file works unchanged
// (its tool names are mapped, what has no equivalent is a warning), and
// config.json overrides a file of the same name.
func ExampleLoad() {
	project := writeProject(map[string]string{
		".claude/agents/reviewer.md": `---
name: code-reviewer
description: Reviews code for quality and security. Use it after changes.
tools: Read, Grep, Glob, Bash
model: haiku
color: red
---
You are a senior code reviewer.
`,
		".offshoot/agents/debugger.md": "---\nname: debugger\ndescription: Debugs (file).\n---\nYou debug.\n",
		".offshoot/config.json": `{"agents": {"debugger": {
			"description": "Finds the cause of a failure.", "prompt": "You debug.", "tools": ["Read", "Grep"]}}}`,
	})
	defer os.RemoveAll(project)

	reg := agents.Load(agents.Options{ProjectDir: project})
	for _, def := range reg.All() {
		tools, model := "all", "inherit"
		if def.Tools != nil {
			tools = fmt.Sprint(def.Tools)
		}
		if def.Model != "" {
			model = def.Model
		}
		fmt.Printf("%s (%s): tools %s, model %s\n", def.Name, def.Source, tools, model)
	}
	for _, w := range reg.Warnings() {
		fmt.Printf("warning: %s:%d: %s\n", filepath.Base(w.Path), w.Line, w.Message)
	}
	fmt.Println("errors:", len(reg.Errors()))
	// Output:
	// code-reviewer (project): tools [read_file grep glob], model haiku
	// debugger (project): tools [read_file grep], model inherit
	// explore (built-in): tools [ls glob grep read_file planning_read_plan], model light
	// general-purpose (built-in): tools all, model inherit
	// plan (built-in): tools [ls glob grep read_file planning_read_plan], model main
	// summary (built-in): tools [], model light
	// warning: reviewer.md:4: Claude Code's Bash tool in tools runs commands with the bash tool, which is not offered here (offshoot run and chat offer it with --allow bash); it is dropped, and the agent runs without it
	// errors: 0
}

// Finding the agent a Task call names: exact, then ignoring case and
// separators; otherwise the error lists what there is.
func ExampleRegistry_Find() {
	reg := agents.Load(agents.Options{Agents: map[string]agents.Definition{
		"code-reviewer": {Description: "Reviews code.", Prompt: "You review code."},
	}})
	for _, ask := range []string{"code-reviewer", "Code Reviewer", "general", "tester"} {
		def, err := reg.Find(ask)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Printf("%s → %s\n", ask, def.Name)
	}
	// Output:
	// code-reviewer → code-reviewer
	// Code Reviewer → code-reviewer
	// general → general-purpose
	// Subagent 'tester' not found. Available: code-reviewer, explore, general-purpose, plan, summary
}

// The tools a child gets: its caller's, narrowed by the definition, and
// without the delegation tools at the depth limit.
func ExampleDefinition_ResolveTools() {
	var list []tools.Tool
	for _, name := range []string{"ls", "read_file", "write_file", "grep", "Task"} {
		t, err := tools.New(name, "The "+name+" tool.",
			func(context.Context, *tools.Invocation, struct{}) (tools.Result[struct{}], error) {
				return tools.OK("done", struct{}{}), nil
			})
		if err != nil {
			panic(err)
		}
		list = append(list, t)
	}
	parent, _ := tools.NewToolset(list...)

	reviewer := agents.Definition{Name: "reviewer", Tools: []string{"Read", "Grep", "Task"}}
	below, _ := reviewer.ResolveTools(parent, false)
	atLimit, _ := reviewer.ResolveTools(parent, true)
	readOnly, _ := agents.Definition{DisallowedTools: []string{"Write"}}.ResolveTools(parent, false)
	_, err := agents.Definition{Tools: []string{"Bash"}}.ResolveTools(parent, false)

	fmt.Println(below.Names())
	fmt.Println(atLimit.Names())
	fmt.Println(readOnly.Names())
	fmt.Println(err)
	// Output:
	// [read_file grep Task]
	// [read_file grep]
	// [ls read_file grep Task]
	// Subagent lacks permission for required tools: [Bash]
}

type namedModel string

func (namedModel) Generate(context.Context, *model.Request) (*model.Response, error) {
	return &model.Response{}, nil
}

// The model a child runs on: the call's choice, else the definition's,
// else its caller's, through the router's names and aliases.
func ExampleDefinition_ResolveModel() {
	router, err := model.NewStaticRouter(map[string]model.Model{"main": namedModel("big"), "light": namedModel("small")}, nil)
	if err != nil {
		panic(err)
	}
	caller := namedModel("caller")
	explore := agents.Definition{Name: "explore", Model: "haiku"}
	for _, call := range []string{"", "main", "inherit"} {
		m, name, _ := explore.ResolveModel(router, call, caller, "caller")
		fmt.Printf("call %q: %s (%s)\n", call, name, m)
	}
	m, name, _ := agents.Definition{Model: "inherit"}.ResolveModel(router, "", caller, "caller")
	fmt.Printf("inherit: %s (%s)\n", name, m)
	// Output:
	// call "": light (small)
	// call "main": main (big)
	// call "inherit": light (small)
	// inherit: caller (caller)
}

// The main agent's section: the agents it can delegate to and when.
func ExampleSection() {
	reg := agents.Load(agents.Options{NoBuiltins: true, Agents: map[string]agents.Definition{
		"summary": {Description: "Summarizes text given in the prompt.", Prompt: "You summarize.", Tools: []string{}},
	}})
	p, err := prompt.New("demo", "main", agents.Section(reg))
	if err != nil {
		panic(err)
	}
	out, err := p.Render()
	if err != nil {
		panic(err)
	}
	for _, line := range strings.Split(out.Text, "\n")[:8] {
		fmt.Println(line)
	}
	// Output:
	// ## 1. Agents
	//
	// Use the Task tool to hand a self-contained task to a subagent. A subagent works on its own, with
	// its own instructions and tools, and returns only its final answer, so delegating keeps this
	// conversation short.
	//
	// Available agents (the subagent_type to ask for, and when to use each):
	// - summary: Summarizes text given in the prompt. (Tools: none)
}

// Writing an agent file: strictly, so that any loader reads it.
func ExampleFormat() {
	out, err := agents.Format(agents.Definition{
		Name:        "code-reviewer",
		Description: "Reviews code for quality and security. Use it after changes.",
		Prompt:      "You are a senior code reviewer.",
		Tools:       []string{"read_file", "grep"},
		Model:       "light",
	})
	if err != nil {
		panic(err)
	}
	fmt.Print(string(out))

	_, err = agents.Format(agents.Definition{Name: "Code Reviewer", Description: "Reviews.", Prompt: "x"})
	fmt.Println(err)
	// Output:
	// ---
	// name: code-reviewer
	// description: Reviews code for quality and security. Use it after changes.
	// tools: [read_file, grep]
	// model: light
	// ---
	//
	// You are a senior code reviewer.
	// agent "Code Reviewer": name "Code Reviewer" must be 1 to 64 lower-case letters, digits and hyphens, starting with a letter or digit (such as "code-reviewer")
}
