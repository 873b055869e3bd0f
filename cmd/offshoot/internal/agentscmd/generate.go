package agentscmd

import (
	"context"
	"slices"
	"strings"

	"github.com/offshoot-dev/offshoot/agents"
	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/cli"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/tools/promptsubagent"
	"github.com/offshoot-dev/offshoot/tools/task"
)

// draft is the definition the main model writes for agents new --generate.
type draft struct {
	Description string   `json:"description" validate:"required,max=1024" jsonschema:"one line that tells the main agent when to hand work to this agent"`
	Tools       []string `json:"tools" validate:"max=100,dive,required,max=128" jsonschema:"the names of the tools the agent needs, from the list given; an empty list for none"`
	Model       string   `json:"model" validate:"oneof=main light inherit" jsonschema:"light for quick, simple work; main for work that needs judgement; inherit for the model of whoever calls it"`
	Prompt      string   `json:"prompt" validate:"required,max=20000" jsonschema:"the agent's system prompt"`
}

// draftParams are what the drafting prompt shows the model.
type draftParams struct {
	Tools   []string
	Servers []string
}

// draftTools returns the tool names the drafting prompt lists: the main
// agent's, with dispatch_subagent before Task, TaskOutput and TaskStop,
// as the prompt has always listed them.
func draftTools(names []string) []string {
	i, j := slices.Index(names, promptsubagent.ToolName), slices.Index(names, task.ToolName)
	if i < 0 || j < 0 || i < j {
		return names
	}
	return slices.Insert(slices.Delete(slices.Clone(names), i, i+1), j, promptsubagent.ToolName)
}

// draftPrompt asks the main model for an agent definition.
func draftPrompt() (*prompt.Prompt, error) {
	return prompt.New("offshoot", "agent-draft",
		prompt.Markdown[draftParams]("Agent designer", `
			You write agent definitions. A main agent hands a self-contained task to one of
			its agents; the agent works alone with its own system prompt and tools, sees
			nothing of the main agent's conversation, and answers with a final report.

			Write the definition of the agent you are asked for:
			- description: one line that tells the main agent when to use this agent. Start
			  with what it does, then say when to use it.
			- tools: only the tools it needs, from this list: {{range $i, $t := .Tools}}{{if $i}}, {{end}}{{$t}}{{end}}.
			  {{- if .Servers}} To give it every tool of an MCP server ({{range $i, $s := .Servers}}{{if $i}}, {{end}}{{$s}}{{end}}), write mcp__ and the server's name, such as mcp__{{index .Servers 0}}.{{end}}
			  Work that only reads needs no tool that writes.
			- model: light for quick, simple work; main for work that needs judgement;
			  inherit for the model of whoever calls it.
			- prompt: the agent's system prompt, speaking to the agent as "you": its role, how
			  it works step by step, what it must not do, and what its final answer contains.`),
		prompt.WithOutput[draft](),
	)
}

// generate asks the main model of router to draft the agent name from
// what the user said it should do.
func generate(ctx context.Context, router *model.Router, name, request string, toolNames, servers []string) (agents.Definition, error) {
	p, err := draftPrompt()
	if err != nil {
		return agents.Definition{}, cli.Failf("the drafting prompt: %v; this is a bug, please report it", err)
	}
	s, err := session.New()
	if err != nil {
		return agents.Definition{}, cli.Failf("%v", err)
	}
	defer func() { _ = s.Close() }()
	resp, err := runner.Evaluate(ctx, runner.Request{
		Prompt:      p,
		Params:      []any{draftParams{Tools: toolNames, Servers: servers}},
		Session:     s,
		UserMessage: "Write the definition of the agent " + name + ". What it should do: " + strings.TrimSpace(request),
		Model:       router.Main(),
		ModelName:   model.Main,
		MaxTurns:    2,
	})
	switch {
	case err != nil && ctx.Err() != nil:
		return agents.Definition{}, cli.Failf("interrupted while the model drafted the agent; nothing was written")
	case err != nil:
		return agents.Definition{}, cli.Failf("the main model could not draft the agent: %v; check the model configuration and run again, or write the agent yourself with --description", err)
	}
	d, err := runner.Output[draft](resp)
	if err != nil {
		return agents.Definition{}, cli.Failf("the main model's answer is not a draft: %v; run again", err)
	}
	return fromDraft(name, d), nil
}

// fromDraft turns the model's draft into the definition of the agent name:
// the description on one line, the tools trimmed.
func fromDraft(name string, d draft) agents.Definition {
	tools := []string{}
	for _, t := range d.Tools {
		if t = strings.TrimSpace(t); t != "" {
			tools = append(tools, t)
		}
	}
	return agents.Definition{
		Name:        name,
		Description: strings.Join(strings.Fields(d.Description), " "),
		Tools:       tools,
		Model:       strings.TrimSpace(d.Model),
		Prompt:      strings.TrimSpace(d.Prompt),
	}
}

// merge returns the draft with the fields the user gave as flags in place
// of the model's.
func merge(flags, d agents.Definition, toolsGiven bool) agents.Definition {
	if strings.TrimSpace(flags.Description) != "" {
		d.Description = flags.Description
	}
	if toolsGiven {
		d.Tools = flags.Tools
	}
	if flags.Model != "" {
		d.Model = flags.Model
	}
	if strings.TrimSpace(flags.Prompt) != "" {
		d.Prompt = flags.Prompt
	}
	return d
}
