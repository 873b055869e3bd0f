package offshoot

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/project"
	"github.com/offshoot-dev/offshoot/tools"
)

// skillApprover returns the approval of every tool call: the active
// skill's allowed-tools first (when a skill has some), then the program's
// own approver. It is approve itself when no skill narrows anything.
func skillApprover(skills *project.Skills, approve func(context.Context, *tools.Invocation, model.ToolCall) error) func(context.Context, *tools.Invocation, model.ToolCall) error {
	narrows := false
	if skills != nil {
		for _, k := range skills.All {
			narrows = narrows || k.AllowedTools != nil
		}
	}
	if !narrows {
		return approve
	}
	return func(ctx context.Context, inv *tools.Invocation, call model.ToolCall) error {
		if inv != nil && inv.Session != nil {
			if a, ok := project.ActiveSkill(inv.Session); ok && !a.Allows(call.Name, inv.Tools) {
				return fmt.Errorf("Permission to use %s was denied: the skill %s allows only %s while it is active", call.Name, a.Name, strings.Join(slices.Concat(a.AllowedTools, []string{project.SkillToolName}), ", "))
			}
		}
		if approve != nil {
			return approve(ctx, inv, call)
		}
		return nil
	}
}

// endSkill ends the skill active in the client's session, if any: a
// skill lasts until the next query.
func (c *Client) endSkill(ctx context.Context) error {
	if _, ok := project.ActiveSkill(c.session); !ok {
		return nil
	}
	return c.session.Dispatch(ctx, project.SkillActivated{})
}

// preloads returns the instructions of every skill, by name, for the
// agents whose definitions list skills (task.Options.Skills).
func preloads(skills *project.Skills) map[string]string {
	if skills == nil || len(skills.All) == 0 {
		return nil
	}
	out := make(map[string]string, len(skills.All))
	for _, k := range skills.All {
		out[k.Name] = k.Body
	}
	return out
}
