package main

import (
	"encoding/json"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/model/scripted"
	"github.com/offshoot-dev/offshoot/tools/promptsubagent"
)

// script is what the scripted model answers: the planner's turns in order,
// and each reviewer's turns routed by the plan step in its prompt, so the
// two children, running in parallel, each get their own script whatever
// order they ask in. A real model would decide these turns itself.
func script() *scripted.Model {
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
		scripted.ToolCall("planning_setup_plan", `{"objective":"Review the billing module for correctness","initial_steps":[`+
			`{"title":"Review billing/invoice.py","details":"Check how totals are summed and rounded"},`+
			`{"title":"Review billing/tax.py","details":"Check the rates and how unknown regions are handled"}]}`),
		scripted.ToolCalls(
			dispatch("S001", "Review billing/invoice.py: how are totals summed and rounded? Write your findings to notes/invoice.md.", "notes/invoice.md"),
			dispatch("S002", "Review billing/tax.py: are the rates right, and what happens for unknown regions? Write your findings to notes/tax.md.", "notes/tax.md"),
		),
		scripted.ToolCall("planning_read_plan", `{}`),
		scripted.Text("Both steps are done: totals drift because invoice.py sums floats, and tax.py lets unknown regions pay no tax. Fix both before the next release."),
	)
}

// dispatch is a dispatch_subagent call for one plan step.
func dispatch(step, instructions, artifact string) model.ToolCall {
	args, _ := json.Marshal(promptsubagent.DispatchSubagent{
		Mode: promptsubagent.ModePlanStep, PromptNS: "agents", PromptKey: "reviewer",
		Instructions: instructions, PlanStepID: step, ExpectedArtifacts: []string{artifact},
	})
	return model.ToolCall{Name: promptsubagent.ToolName, Arguments: string(args)}
}
