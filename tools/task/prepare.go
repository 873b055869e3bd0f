package task

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/offshoot-dev/offshoot/agents"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/subagent"
	"github.com/offshoot-dev/offshoot/subagent/transcript"
	"github.com/offshoot-dev/offshoot/tools"
	"github.com/offshoot-dev/offshoot/tools/mcp"
)

// childRun is a call made ready to run: the agent and the engine's spec.
type childRun struct {
	def  agents.Definition
	spec subagent.Spec
}

// modelShown is what the agent's model is called where the model and
// the user read it: its id (model.Describe), or the route it was chosen
// by when it says none.
func (r *childRun) modelShown() string {
	if id := model.Describe(r.spec.Request.Model).ID; id != "" {
		return id
	}
	return r.spec.Request.ModelName
}

// prepare resolves what the agent of def runs with for the call in: its
// model, its tools, its prompt and, for a fork-context agent, its caller's
// conversation. Its errors are those the model reads (*failure) or an
// invalid model name (*tools.ValidationError).
//
// Every child starts from a snapshot of its caller's session — the files
// and plan it works on, shared at no cost — so that the caller's tools
// mean the same in the child. An isolated agent (the default) gets only
// its task as its conversation; a fork-context agent carries on its
// caller's conversation, then gets its task.
//
// For a resumed agent (resumed is its record), the model is the one it
// ran on, the conversation its own (the engine loads it), and the state
// its caller's as it is now.
func (d *delegator) prepare(ctx context.Context, inv *tools.Invocation, in input, def agents.Definition, resumed *transcript.Meta) (*childRun, error) {
	var m model.Model
	var modelName string
	var err error
	if resumed != nil {
		m, modelName, err = d.resumeModel(resumed, inv)
	} else {
		m, modelName, err = def.ResolveModel(d.router, in.Model, inv.Model, inv.ModelName)
	}
	if err != nil {
		if errors.Is(err, model.ErrUnknownModel) && resumed == nil {
			return nil, invalid("model", fmt.Sprintf("%q is not a model this program knows; use %s, or leave model out", in.Model, d.modelNames()))
		}
		return nil, fail("Failed to initialize subagent: %v", err)
	}

	// A child at the depth limit does not get the tools that delegate.
	atLimit := subagent.Depth(ctx)+1 >= d.opts.MaxDepth
	parent, err := d.withMCP(ctx, inv.Tools, def)
	if err != nil {
		return nil, fail("Failed to initialize subagent: %v", err)
	}
	childTools, err := def.ResolveTools(parent, atLimit)
	if err != nil {
		var missing *agents.MissingToolsError
		if errors.As(err, &missing) {
			return nil, fail("%v", err)
		}
		return nil, fail("Failed to initialize subagent: %v", err)
	}

	snap := inv.Session.Snapshot()
	var state startState
	for _, st := range childTools.States() {
		if s := st.Summary(snap); s != "" {
			state.Lines = append(state.Lines, s)
		}
	}
	p, err := childPrompt()
	if err != nil {
		return nil, fail("Failed to initialize subagent: %v", err)
	}
	maxTurns := def.MaxTurns
	if in.MaxTurns > 0 {
		maxTurns = in.MaxTurns
	}
	run := &childRun{def: def, spec: subagent.Spec{Name: def.Name, Description: in.Description, Parent: inv.Session, Caller: inv, Mode: subagent.Forked, Snapshot: &snap, Withhold: delegationTools, MaxDepth: d.opts.MaxDepth, Request: runner.Request{Prompt: p, Params: []any{
		role{Text: systemText(def.Prompt, in.Description)},
		instructions{Text: d.opts.Instructions},
		d.preloads(def),
		state,
		reminder{Text: def.CriticalSystemReminder},
	}, UserMessage: in.Prompt, Model: m, ModelName: modelName, Tools: childTools, MaxTurns: maxTurns}}}
	if resumed != nil {
		run.spec.Resume = resumed.AgentID
	}
	if def.ForkContext && resumed == nil {
		if history := callerRequest(snap, inv.CallID); len(history) > 0 {
			forkRequest(&run.spec, inv, parent, childTools, history, def, in, state)
		}
	}
	return run, nil
}

// forkRequest makes spec the request of a fork-context child: its caller's
// last request carried on, byte for byte — the caller's system message,
// conversation and whole toolset (parent: the caller's, with the agent's
// MCP servers' tools after it), and the caller's prompt cache key — then
// one new message with the delegation: the agent's role, the task, which
// tools it may use. The tools outside the agent's list (allowed) stay
// listed, so that the opening stays the caller's, and are refused when
// called.
func forkRequest(spec *subagent.Spec, inv *tools.Invocation, parent, allowed tools.Toolset, history []model.Message, def agents.Definition, in input, state startState) {
	spec.KeepToolset = true
	spec.Request.Messages = history
	spec.Request.Tools = parent
	spec.Request.ToolFilter = tools.Filter{Allow: allowed.Names()}
	spec.Request.CacheKey = inv.CacheKey
	spec.Request.UserMessage = delegation(def, in, state, allowed.Names())
	if len(spec.Request.ToolFilter.Allow) == 0 {
		spec.Request.ToolFilter.Deny = []string{"*"}
	}
}

// modelNames lists the model names a call may give, for an error.
func (d *delegator) modelNames() string {
	names := []string{model.Main, model.Light, model.Inherit}
	if d.router != nil {
		for _, n := range d.router.Names() {
			if !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	return joinOr(names)
}

// joinOr joins names as "a, b or c".
func joinOr(names []string) string {
	switch len(names) {
	case 0:
		return ""
	case 1:
		return names[0]
	}
	out := ""
	for i, n := range names[:len(names)-1] {
		if i > 0 {
			out += ", "
		}
		out += n
	}
	return out + " or " + names[len(names)-1]
}

// withMCP returns parent with the tools of the MCP servers def names, when
// the program gave the tool an MCP manager. A server configured inline is
// added to the manager first — in a project's agent, only when the program
// allows that (Options.ProjectAgentServers); a server named but configured
// nowhere is left out, as loading the definition warned.
func (d *delegator) withMCP(ctx context.Context, parent tools.Toolset, def agents.Definition) (tools.Toolset, error) {
	if d.opts.MCP == nil || len(def.MCPServers) == 0 {
		return parent, nil
	}
	known := d.opts.MCP.Names()
	var names []string
	for _, s := range def.MCPServers {
		if s.Config != nil {
			if def.Source == agents.Project && !d.opts.ProjectAgentServers {
				continue
			}
			cfg, err := mcp.ParseServer(s.Name, s.Config)
			if err != nil {
				return parent, err
			}
			if err := d.opts.MCP.Add(s.Name, cfg); err != nil {
				return parent, err
			}
		} else if !slices.Contains(known, s.Name) {
			continue
		}
		names = append(names, s.Name)
	}
	if len(names) == 0 {
		return parent, nil
	}
	set, err := d.opts.MCP.Tools(ctx, names...)
	if err != nil {
		return parent, err
	}
	out := parent
	for t := range set.All() {
		if _, ok := out.Lookup(t.Spec().Name); ok {
			continue
		}
		if out, err = out.With(t); err != nil {
			return parent, err
		}
	}
	return out, nil
}

// preloads returns the skills def preloads that the program gave.
func (d *delegator) preloads(def agents.Definition) preloaded {
	var p preloaded
	for _, name := range def.Skills {
		if text, ok := d.opts.Skills[name]; ok {
			p.Skills = append(p.Skills, preloadedSkill{Name: name, Text: text})
		}
	}
	return p
}
