package offshoot

import (
	"context"
	"errors"
	"fmt"
	"iter"

	"github.com/offshoot-dev/offshoot/agents"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/permission"
	"github.com/offshoot-dev/offshoot/project"
	"github.com/offshoot-dev/offshoot/tools"
)

// command is a slash command's query: what narrows its turn.
type command struct {
	name         string
	allowedTools []string
	model        string
}

// QueryCommand runs the slash command cmd (project.LoadCommands reads a
// project's) with the arguments args, as Query runs a prompt: its text,
// expanded (project.Command.Expand), is the message; its allowed-tools,
// when it has some, are the only tools the main agent may use in this
// query (Claude Code's names mapped to offshoot's; an entry with an
// argument rule, such as Bash(git add:*), gives its tool, whose calls the
// permission rules decide); its model, when
// it names one, is the main agent's model for this query. A model the
// client does not know ends the query at once with an error that says so.
func (c *Client) QueryCommand(ctx context.Context, cmd project.Command, args string) iter.Seq[Message] {
	return c.query(ctx, cmd.Expand(args), &command{name: cmd.Name, allowedTools: cmd.AllowedTools, model: cmd.Model}, "")
}

// commandTurn returns the model and the tool filter of a command's query.
func (c *Client) commandTurn(cmd command, inherited tools.Toolset) (model.Model, string, tools.Filter, error) {
	m, name, filter := c.model, c.modelName, c.toolFilter
	if cmd.model != "" {
		var err error
		m, name, err = agents.Definition{}.ResolveModel(c.router, cmd.model, c.model, c.modelName)
		if err != nil {
			return nil, "", filter, fmt.Errorf("offshoot: the command /%s: its model %q: %w; name one this program knows (main, light, a configured name) or leave model out", cmd.name, cmd.model, err)
		}
	}
	if cmd.allowedTools == nil {
		return m, name, filter, nil
	}
	available, err := inherited.Filter(c.toolFilter)
	if err != nil {
		return nil, "", filter, fmt.Errorf("offshoot: the command /%s: %w", cmd.name, err)
	}
	if available, err = available.With(c.tools.Tools()...); err != nil {
		return nil, "", filter, fmt.Errorf("offshoot: the command /%s: %w", cmd.name, err)
	}
	allowed, err := agents.Definition{Tools: ruledTools(cmd.allowedTools)}.ResolveTools(available, false)
	var missing *agents.MissingToolsError
	switch {
	case errors.As(err, &missing):
		return m, name, tools.Filter{Deny: []string{"*"}}, nil
	case err != nil:
		return nil, "", filter, fmt.Errorf("offshoot: the command /%s: %w", cmd.name, err)
	}
	if allowed.Len() == 0 {
		return m, name, tools.Filter{Deny: []string{"*"}}, nil
	}
	return m, name, tools.Filter{Allow: allowed.Names()}, nil
}

// ruledTools returns a command's allowed-tools with each argument rule
// (Bash(git add:*)) replaced by the tool it names (Bash): the turn keeps
// that tool, and the permission rules decide each of its calls.
func ruledTools(entries []string) []string {
	out := make([]string, 0, len(entries))
	for _, e := range entries {
		if r, err := permission.ParseRule(e); err == nil && r.Specifier != "" {
			e = r.Tool
		}
		out = append(out, e)
	}
	return out
}
