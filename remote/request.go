package remote

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"

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

// request sets the restored child session s up as the dispatching engine
// set it up — the reducers of its tools and the runner's, the program's
// ChildSetup, the parent's pending messages left out — and returns the
// evaluation to run on it: the prompt of the registry by the job's
// namespace and key, for its tools and structured output (the child's
// system message, rendered by the parent, is the first of the job's
// messages), or an empty one of that name; the tools by name; the model
// by name.
func (w *worker) request(ctx context.Context, j *job, s *session.Session) (runner.Request, error) {
	req := runner.Request{Session: s, Messages: j.Messages, UserMessage: j.UserMessage, Continue: j.Continue, ModelName: j.ModelName,
		MaxTurns: j.MaxTurns, Budget: j.Budget, ToolFilter: j.Filter, OutputRetries: j.OutputRetries, CancelGrace: j.CancelGrace,
		CacheKey: j.CacheKey, Logger: w.setup.Logger}
	var list []tools.Tool
	for _, name := range j.Tools {
		t, ok := w.setup.Tools.Lookup(name)
		if !ok {
			return req, fmt.Errorf("the child is given the tool %q, which the worker does not have; give it to Setup.Tools", name)
		}
		list = append(list, t)
	}
	ts, err := tools.NewToolset(list...)
	if err != nil {
		return req, err
	}
	req.Tools = ts
	bare := func(sets []session.Reducers) []session.Reducers {
		for i := range sets {
			sets[i].Seed = nil
		}
		return sets
	}
	if err := s.Install(ctx, bare(append([]session.Reducers{runner.Reducers()}, ts.Reducers()...))...); err != nil {
		return req, err
	}
	if w.setup.ChildSetup != nil {
		if err := w.setup.ChildSetup(s); err != nil {
			return req, fmt.Errorf("the worker's child setup: %w", err)
		}
	}
	if n := session.Len[runner.Inbound](s); n > 0 {
		if read, _ := session.Latest[runner.InboundRead](s); read.Upto < n {
			if err := s.Dispatch(ctx, runner.InboundRead{Upto: n}); err != nil {
				return req, err
			}
		}
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
	req.Prompt, req.Params, err = w.prompt(j)
	return req, err
}

// prompt returns the registry's prompt of the job's name and the job's
// params it takes, or an empty prompt of that name when the registry has
// none or it does not render with them.
func (w *worker) prompt(j *job) (*prompt.Prompt, []any, error) {
	if w.setup.Prompts != nil {
		if p, err := w.setup.Prompts.Lookup(j.NS, j.Key); err == nil {
			if params, ok := decodeParams(p, j.Params); ok {
				if _, err := p.Render(params...); err == nil {
					return p, params, nil
				}
			}
		}
	}
	p, err := prompt.New(j.NS, j.Key)
	if err != nil {
		return nil, nil, fmt.Errorf("the child's prompt %s/%s: %w", j.NS, j.Key, err)
	}
	return p, nil, nil
}

// decodeParams decodes the params p takes; others are the parent's
// framing (the delegation, the orientation), which the system message
// carries already.
func decodeParams(p *prompt.Prompt, params []typed) ([]any, bool) {
	types := map[string]reflect.Type{}
	for _, t := range p.ParamTypes() {
		types[typeKey(t)] = t
	}
	var out []any
	for _, tv := range params {
		t, ok := types[tv.Type]
		if !ok {
			continue
		}
		v := reflect.New(t)
		if err := json.Unmarshal(tv.Data, v.Interface()); err != nil {
			return nil, false
		}
		out = append(out, v.Elem().Interface())
	}
	return out, true
}
