package runner

import (
	"bytes"
	"fmt"

	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/tools"
)

// Render renders req's prompt as Evaluate does: the prompt with Params,
// the inherited Tools before the prompt's own, narrowed by ToolFilter. Set
// the result as Request.Rendered to run it: a program that prepares an
// evaluation in one place and runs it in another (a subagent on a remote
// worker) renders it once, where its params are. A failure is an
// *EvaluationError of PhaseRender.
func Render(req Request) (*prompt.Rendered, error) {
	if req.Prompt == nil {
		return nil, &EvaluationError{Phase: PhaseRender, Err: fmt.Errorf("runner: Render needs a Prompt")}
	}
	rendered, err := renderPrompt(req)
	if err != nil {
		return nil, &EvaluationError{Phase: PhaseRender, Prompt: req.Prompt.NS() + "/" + req.Prompt.Key(), Err: err}
	}
	return rendered, nil
}

func renderPrompt(req Request) (*prompt.Rendered, error) {
	rendered, err := req.Prompt.Render(req.Params...)
	if err != nil {
		return nil, err
	}
	set := rendered.Tools
	if req.Tools.Len() > 0 {
		set, err = mergeToolsets(req.Tools, rendered.Tools)
		if err != nil {
			return nil, err
		}
	}
	if set, err = set.Filter(req.ToolFilter); err != nil {
		return nil, err
	}
	rendered.Tools = set
	return rendered, nil
}

// Sets returns the reducer sets an evaluation of rendered installs on its
// session: its tools' and the runner's. A copy of a session evaluated
// elsewhere installs them before it applies what the evaluation recorded
// (without their Seed: the evaluation recorded what seeding wrote).
func Sets(rendered *prompt.Rendered) []session.Reducers {
	return append(rendered.Tools.Reducers(), reducers)
}

// mergeToolsets returns inherited followed by own's tools that inherited
// lacks. A name in both must name the same tool, or one with the same
// contract (description and schemas) — a section built twice, say.
func mergeToolsets(inherited, own tools.Toolset) (tools.Toolset, error) {
	set := inherited
	for t := range own.All() {
		if prev, ok := inherited.Lookup(t.Spec().Name); ok {
			if prev != t && !sameContract(prev, t) {
				return tools.Toolset{}, fmt.Errorf("runner: the prompt's tool %q clashes with an inherited tool of the same name; rename one of them", t.Spec().Name)
			}
			continue
		}
		var err error
		if set, err = set.With(t); err != nil {
			return tools.Toolset{}, err
		}
	}
	return set, nil
}

func sameContract(a, b tools.Tool) bool {
	return a.Spec().Description == b.Spec().Description &&
		bytes.Equal(a.Spec().Params, b.Spec().Params) && bytes.Equal(a.Spec().Result, b.Spec().Result)
}
