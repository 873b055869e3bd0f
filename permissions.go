package offshoot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/offshoot-dev/offshoot/hooks"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/permission"
	"github.com/offshoot-dev/offshoot/project"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/subagent"
	"github.com/offshoot-dev/offshoot/tools"
	"github.com/offshoot-dev/offshoot/tools/vfs"
)

// approval returns the one approval of every tool call of the client's
// agents — the main agent's (runner.Request.Approve), its subagents' and
// dispatch_subagent's children's (subagent.Options.Approve): first the
// active skill's allowed-tools (when a skill has some), then the policy,
// told which agent makes the call, then the program's Approver. Nil when
// none decides anything.
func (c *Client) approval(skills *project.Skills, policy *permission.Policy, approver func(context.Context, *tools.Invocation, model.ToolCall) error) func(context.Context, *tools.Invocation, model.ToolCall) error {
	narrows := false
	if skills != nil {
		for _, k := range skills.All {
			narrows = narrows || k.AllowedTools != nil
		}
	}
	if !narrows && policy == nil {
		return approver
	}
	return func(ctx context.Context, inv *tools.Invocation, call model.ToolCall) error {
		if narrows && inv != nil && inv.Session != nil {
			if a, ok := project.ActiveSkill(inv.Session); ok && !a.Allows(call.Name, inv.Tools) {
				return fmt.Errorf("the skill %s allows only %s while it is active", a.Name, strings.Join(slices.Concat(a.AllowedTools, []string{project.SkillToolName}), ", "))
			}
		}
		if policy == nil {
			return approve(ctx, approver, inv, call)
		}
		r := c.permissionRequest(ctx, inv, call)
		p, waited := waitable(policy)
		d := p.Decide(ctx, r)
		if err := *waited; err != nil {
			return err // no one can answer now: the run waits (Client.Answer)
		}
		if !d.Allow {
			return errors.New(d.Reason)
		}
		if err := approve(ctx, approver, inv, call); err != nil {
			return err
		}
		if d.UpdatedInput != nil && !sameJSON(d.UpdatedInput, r.Input) {
			return updatedInput(d.UpdatedInput) // the rules passed this input: it runs
		}
		return nil
	}
}

// approve asks the program's Approver, if any, about a call the rules let
// run.
func approve(ctx context.Context, approver func(context.Context, *tools.Invocation, model.ToolCall) error, inv *tools.Invocation, call model.ToolCall) error {
	if approver == nil {
		return nil
	}
	return approver(ctx, inv, call)
}

// waitable returns a copy of policy whose CanUseTool, when it answers
// runner.Wait(question), has that error kept in *waited, so that the call
// parks instead of being denied with the question's text.
func waitable(policy *permission.Policy) (p *permission.Policy, waited *error) {
	waited = new(error)
	if policy.CanUseTool == nil {
		return policy, waited
	}
	cp, can := *policy, policy.CanUseTool
	cp.CanUseTool = func(ctx context.Context, r permission.Request) (permission.Decision, error) {
		d, err := can(ctx, r)
		if _, ok := errors.AsType[*runner.Waiting](err); ok {
			*waited = err
		}
		return d, err
	}
	return &cp, waited
}

// withToolHooks returns the policy that decides the client's tool calls:
// policy, its PreToolUse, PostToolUse and Notification hooks being h when
// it names none. With no policy, h's tool hooks get one that lets every
// call run that they do not deny, as a client without Permissions does.
func withToolHooks(policy *permission.Policy, h *hooks.Hooks) *permission.Policy {
	tool := h.Has(hooks.PreToolUse) || h.Has(hooks.PostToolUse)
	if !tool && !(policy != nil && h.Has(hooks.Notification)) {
		return policy
	}
	if policy == nil {
		return &permission.Policy{Mode: permission.BypassPermissions, Hooks: h}
	}
	if policy.Hooks != nil {
		return policy
	}
	p := *policy
	p.Hooks = h
	return &p
}

// afterToolOf returns what runs the policy's PostToolUse hooks after each
// tool call of the client's agents (runner.Request.AfterTool,
// subagent.Options.AfterTool), nil when it has none.
func (c *Client) afterToolOf(policy *permission.Policy) func(context.Context, *tools.Invocation, model.ToolCall, string) string {
	if policy == nil || !policy.Hooks.Has(hooks.PostToolUse) {
		return nil
	}
	return func(ctx context.Context, inv *tools.Invocation, call model.ToolCall, result string) string {
		return policy.AfterTool(ctx, c.permissionRequest(ctx, inv, call), result)
	}
}

// permissionRequest is the call as the policy sees it: its tool and
// arguments, the main session, and the agent making it (by the subagent
// lineage of ctx: its name, and its own session's id), none for the main
// agent.
func (c *Client) permissionRequest(ctx context.Context, inv *tools.Invocation, call model.ToolCall) permission.Request {
	r := permission.Request{Tool: call.Name, Input: json.RawMessage(call.Arguments), CallID: call.ID}
	if strings.TrimSpace(call.Arguments) == "" {
		r.Input = json.RawMessage("{}")
	}
	if c.session != nil {
		r.SessionID = c.session.ID()
	}
	if inv != nil && inv.Session != nil {
		r.Files = vfs.Files(inv.Session).FS() // the files the call's agent sees
	}
	if chain := subagent.Chain(ctx); subagent.Depth(ctx) > 0 && len(chain) > 0 {
		r.AgentType = chain[len(chain)-1]
		if inv != nil && inv.Session != nil {
			r.AgentID = inv.Session.ID()
		}
	}
	return r
}

// updatedInput is the approval of a call to run with other arguments (a
// hook's updated input): an error only by form, which runner.Request.Approve
// reads as such by its Arguments method.
type updatedInput json.RawMessage

func (u updatedInput) Error() string { return "a hook changed the call's input" }

// Arguments returns the input the call runs with.
func (u updatedInput) Arguments() json.RawMessage { return json.RawMessage(u) }

// sameJSON reports whether a and b are the same JSON value.
func sameJSON(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}
