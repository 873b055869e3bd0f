// Package billing is the story offshoot's demo and examples tell: a
// planner reviews a small billing module. It sets up a plan with one step
// per file, dispatches one reviewer subagent per step — in parallel, each
// forked from the planner's session — and reports what they found.
// Everything here is what a program of its own would write with the
// library; Script is the scripted model's side of the story, for running
// it offline (a real model decides these turns itself).
//
// offshoot demo, examples/planstep and examples/openai tell it.
package billing

import (
	"context"
	"embed"
	"encoding/json"
	"io/fs"
	"strings"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/subagent"
	"github.com/offshoot-dev/offshoot/tools/planning"
	"github.com/offshoot-dev/offshoot/tools/promptsubagent"
	"github.com/offshoot-dev/offshoot/tools/vfs"
)

//go:embed workspace
var workspace embed.FS

// The prompts' names in the registry.
const (
	PlannerNS, PlannerKey   = "demo", "planner"
	ReviewerNS, ReviewerKey = "agents", "reviewer"
)

// Prompts registers the planner and the reviewer it dispatches in a new
// registry. The planner's sections bring the VFS, planning and
// dispatch_subagent tools (with opts); dispatched reviewers run on engine.
func Prompts(engine *subagent.Engine, opts promptsubagent.Options) (*prompt.Registry, error) {
	reg := prompt.NewRegistry()
	reviewer, err := prompt.New(ReviewerNS, ReviewerKey, prompt.Markdown[prompt.NoParams]("Reviewer", `
		You review one module of a code base for correctness. Read the code with the
		file tools, write your findings to the notes file you are asked for, and answer
		with one or two sentences: the problem and the fix.`))
	if err != nil {
		return nil, err
	}
	planner, err := prompt.New(PlannerNS, PlannerKey,
		prompt.Markdown[prompt.NoParams]("Planner", `
			You coordinate a code review of the files in your virtual filesystem. Make a
			plan with one step per source file, then dispatch one reviewer subagent per
			step with dispatch_subagent (prompt agents/reviewer, mode plan_step), all in
			one turn so they run in parallel, and report what they found.`),
		vfs.Section(vfs.Options{}),
		planning.Section(planning.Options{}),
		promptsubagent.Section(reg, engine, opts),
	)
	if err != nil {
		return nil, err
	}
	for _, p := range []*prompt.Prompt{reviewer, planner} {
		if err := reg.Register(p); err != nil {
			return nil, err
		}
	}
	return reg, nil
}

// Seed installs the planner's tools on its session and writes the billing
// module into the session's VFS: the planner's first state.
func Seed(ctx context.Context, s *session.Session, planner *prompt.Prompt) error {
	r, err := planner.Render()
	if err != nil {
		return err
	}
	if err := r.Tools.Install(ctx, s); err != nil {
		return err
	}
	var events []any
	err = fs.WalkDir(workspace, "workspace", func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		data, err := workspace.ReadFile(path)
		if err != nil {
			return err
		}
		events = append(events, vfs.FileWritten{Path: strings.TrimPrefix(path, "workspace/"), Content: string(data), Version: 1})
		return nil
	})
	if err != nil {
		return err
	}
	return s.Dispatch(ctx, events...)
}

// Script is what the scripted model answers: the planner's turns in order,
// and each reviewer's turns routed by the plan step named in its prompt, so
// the two reviewers, running in parallel, each get their own whatever order
// they ask in. A real model decides these turns itself.
func Script() *scripted.Model {
	return scripted.New(
		scripted.When(scripted.SystemContains("step S001 of the plan"),
			scripted.ToolCall("grep", `{"pattern":"TODO|FIXME","path":"billing"}`),
			scripted.ToolCall("read_file", `{"file_path":"billing/invoice.py"}`),
			scripted.ToolCall("write_file", `{"file_path":"notes/invoice.md","content":"# invoice.py\n\n- subtotal sums float amounts: use Decimal.\n- total rounds once at the end: fine once subtotal is exact.\n"}`),
			scripted.Text("invoice.py: subtotal sums floats, so totals drift by cents; sum with Decimal (notes/invoice.md)."),
		),
		scripted.When(scripted.SystemContains("step S002 of the plan"),
			scripted.ToolCall("read_file", `{"file_path":"billing/tax.py"}`),
			scripted.ToolCall("write_file", `{"file_path":"notes/tax.md","content":"# tax.py\n\n- US rate is a flat 0.0: needs per-state rates.\n- unknown regions pay no tax silently: raise instead.\n"}`),
			scripted.Text("tax.py: unknown regions silently pay no tax and US tax is a flat 0; raise on unknown regions (notes/tax.md)."),
		),
		say(2, "The billing module has two files; I will review each one as a step of a plan.",
			call("planning_setup_plan", `{"objective":"Review the billing module for correctness","initial_steps":[`+
				`{"title":"Review billing/invoice.py","details":"Check how totals are summed and rounded"},`+
				`{"title":"Review billing/tax.py","details":"Check the rates and how unknown regions are handled"}]}`)),
		say(4, "Dispatching one reviewer per step; they work in parallel.",
			dispatch("S001", "Review billing/invoice.py: how are totals summed and rounded? Write your findings to notes/invoice.md.", "notes/invoice.md"),
			dispatch("S002", "Review billing/tax.py: are the rates right, and what happens for unknown regions? Write your findings to notes/tax.md.", "notes/tax.md")),
		scripted.ToolCall("planning_read_plan", `{}`),
		scripted.Text("Both steps are done: totals drift because invoice.py sums floats, and tax.py lets unknown regions pay no tax. Fix both before the next release."),
	)
}

// say is a turn in which the model writes text and calls tools, answering
// a request of the given number of messages. Its usage is estimated as the
// scripted model estimates its other turns': ten tokens per message read,
// one per four bytes written.
func say(messages int, text string, calls ...model.ToolCall) scripted.Turn {
	out := len(text)
	for _, c := range calls {
		out += len(c.Name) + len(c.Arguments)
	}
	in := messages * scripted.InputTokensPerMessage
	return scripted.Reply(&model.Response{Message: model.AssistantMessage(text, calls...), FinishReason: model.FinishToolCalls}).
		WithUsage(model.Usage{InputTokens: in, OutputTokens: out / 4, TotalTokens: in + out/4})
}

func call(name, args string) model.ToolCall { return model.ToolCall{Name: name, Arguments: args} }

// dispatch is a dispatch_subagent call for one plan step.
func dispatch(step, instructions, artifact string) model.ToolCall {
	args, _ := json.Marshal(promptsubagent.DispatchSubagent{
		Mode: "plan_step", PromptNS: ReviewerNS, PromptKey: ReviewerKey,
		Instructions: instructions, PlanStepID: step, ExpectedArtifacts: []string{artifact},
	})
	return call(promptsubagent.ToolName, string(args))
}
