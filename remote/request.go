package remote

import (
	"context"
	"fmt"

	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/subagent"
	"github.com/offshoot-dev/offshoot/tools"
)

// jobContext returns ctx marked as the job's child, so that a delegation
// the child makes on the worker continues its chain.
func jobContext(ctx context.Context, j *job) context.Context {
	sj := subagent.Job{ID: j.ID, Name: j.Name, Depth: len(j.Agents), Root: j.Root, RootPrompt: j.RootPrompt, Agents: j.Agents}
	return sj.Context(ctx)
}

// request sets the restored child session s up as the engine sets a
// child up (subagent.SetUp, with the program's ChildSetup) and returns
// the evaluation the engine prepared, to run on it: the prompt as the
// parent rendered it, with this worker's tools of its names and model.
func (w *worker) request(ctx context.Context, j *job, s *session.Session) (runner.Request, error) {
	req := runner.Request{Session: s, Messages: j.Messages, UserMessage: j.UserMessage, Continue: j.Continue, ModelName: j.ModelName,
		MaxTurns: j.MaxTurns, Budget: j.Budget, OutputRetries: j.OutputRetries, CancelGrace: j.CancelGrace,
		CacheKey: j.CacheKey, Logger: w.setup.Logger}
	var err error
	if req.Rendered, err = w.rendered(j); err != nil {
		return req, err
	}
	if err := subagent.SetUp(ctx, s, w.setup.ChildSetup); err != nil {
		return req, fmt.Errorf("the worker's child setup: %w", err)
	}
	if req.Model, err = w.setup.Model(j.ModelName); err != nil {
		return req, fmt.Errorf("the model %q: %w", j.ModelName, err)
	}
	if req.Model == nil {
		return req, fmt.Errorf("the worker has no model %q", j.ModelName)
	}
	if j.Approve != "" {
		req.Approve = asker(w.nc, j)
	}
	if j.AfterTool != "" {
		req.AfterTool = teller(w.nc, j, w.setup.Logger)
	}
	return req, nil
}

// rendered is the job's prompt as its parent rendered it: its text, the
// worker's tools of its names, and the structured output of the worker's
// prompt of its name, when it declares one.
func (w *worker) rendered(j *job) (*prompt.Rendered, error) {
	list := make([]tools.Tool, 0, len(j.Tools))
	for _, name := range j.Tools {
		t, ok := w.setup.Tools.Lookup(name)
		if !ok {
			return nil, fmt.Errorf("the child is given the tool %q, which the worker does not have; give it to Setup.Tools", name)
		}
		list = append(list, t)
	}
	ts, err := tools.NewToolset(list...)
	if err != nil {
		return nil, err
	}
	r := &prompt.Rendered{NS: j.NS, Key: j.Key, Text: j.Text, Tools: ts}
	if j.Output == "" {
		return r, nil
	}
	var p *prompt.Prompt
	if w.setup.Prompts != nil {
		p, _ = w.setup.Prompts.Lookup(j.NS, j.Key)
	}
	if p == nil || p.Output() == nil || typeKey(p.Output().Type()) != j.Output {
		return nil, fmt.Errorf("the child's prompt %s/%s declares its answer a %s, and the worker has no prompt of that name declaring it (Setup.Prompts)", j.NS, j.Key, j.Output)
	}
	r.Output = p.Output()
	return r, nil
}
