package promptsubagent

import (
	"context"
	"errors"

	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/subagent"
	"github.com/offshoot-dev/offshoot/tools"
)

// defaultTitle is the title of the section Section builds.
const defaultTitle = "Subagents"

const description = "Spawn an isolated subagent run with the full tool suite and return a summarized result."

// guide is the model-facing text of the section: when to dispatch.
const guide = `
	Use dispatch_subagent to hand a block of work to a subagent that starts from a copy of the
	current session state and has every tool you have. Only its summary comes back to you.

	- Dispatch when a plan step needs deep investigation (mode plan_step with its plan_step_id),
	  or when this conversation is nearing its context limit (mode ad_hoc).
	- Give clear, self-contained instructions: the subagent does not see this conversation.
	- Name the files or results you expect in expected_artifacts.
	- Several dispatches in one turn run in parallel, each from the same state.
	- What a subagent changes stays in its own session; write the results you need into your
	  own state from its summary and artifacts.`

// delegatedTask is the section appended to a child prompt that has no
// section of its own for the Delegation params.
var delegatedTask = prompt.Markdown[Delegation]("Delegated task", `
	{{ .Instructions }}
	{{- if .PlanStepID }}

	This is step {{ .PlanStepID }} of the plan{{ if .PlanStepTitle }}: {{ .PlanStepTitle }}{{ end }}.
	{{- if .PlanStepDetails }} {{ .PlanStepDetails }}{{ end }}
	{{- end }}
	{{- if .ExpectedArtifacts }}

	Deliver:
	{{- range .ExpectedArtifacts }}
	- {{ . }}
	{{- end }}
	{{- end }}
	{{- if .State }}

	You start from a copy of the delegating agent's state:
	{{- range .State }}
	- {{ . }}
	{{- end }}
	{{- end }}`, prompt.WithKey("delegated-task"))

// Tool returns the dispatch_subagent tool: a concurrent-safe typed tool
// whose calls run through a Dispatcher on reg and engine.
func Tool(reg *prompt.Registry, engine *subagent.Engine, opts Options) (tools.Tool, error) {
	if engine == nil {
		return nil, errors.New("promptsubagent: Tool needs a subagent engine; create one with subagent.New")
	}
	d := NewDispatcher(reg, engine, opts)
	return tools.New(ToolName, description, d.handle, tools.ConcurrentSafe())
}

func (d *Dispatcher) handle(ctx context.Context, inv *tools.Invocation, in DispatchSubagent) (tools.Result[DispatchSubagentResult], error) {
	res, events, err := d.Dispatch(ctx, inv, in)
	var ve *tools.ValidationError
	switch {
	case errors.As(err, &ve):
		return tools.Result[DispatchSubagentResult]{}, err
	case err != nil:
		msg := err.Error()
		var de *DispatchSubagentError
		if errors.As(err, &de) && de.Partial != "" {
			msg += "\n\n" + de.Partial
		}
		return tools.Failed[DispatchSubagentResult](msg).WithEvents(events...), nil
	}
	return tools.OK(res.MessageSummary, res).WithEvents(events...), nil
}

// Section returns a prompt section with model-facing guidance on when to
// dispatch and the one tool dispatch_subagent. It holds no session: the
// tool forks whatever session its evaluation runs on.
func Section(reg *prompt.Registry, engine *subagent.Engine, opts Options) *prompt.Section {
	title := opts.Title
	if title == "" {
		title = defaultTitle
	}
	return prompt.Markdown[prompt.NoParams](title, guide, prompt.WithTool(Tool(reg, engine, opts)))
}
