package offshoot

import (
	"fmt"
	"strings"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/tools"
)

// resolveModel chooses the main agent's model — Options.ModelName, else the
// played agent's, else main — and, for a main agent that plays an agent,
// its role and tools.
func (c *Client) resolveModel(opts Options, router *model.Router) error {
	if c.context.SummaryModel == nil {
		if light, err := router.Resolve(model.Light, nil); err == nil {
			c.context.SummaryModel = light
		}
	}
	c.modelName = opts.ModelName
	if opts.MainAgent != "" {
		def, err := c.registry.Find(opts.MainAgent)
		if err != nil {
			return fmt.Errorf("offshoot: the main agent: %w", err)
		}
		text := def.Prompt
		for _, name := range def.Skills { // preloaded, as for the agents it delegates to
			if k, ok := opts.Skills.Find(name); ok {
				text += "\n\n# Skill " + k.Name + "\n\n" + k.Body
			}
		}
		if def.CriticalSystemReminder != "" {
			text += "\n\nReminder: " + def.CriticalSystemReminder
		}
		c.params = []any{role{Text: text}, c.instructions}
		r, err := c.main.Render(c.params...)
		if err != nil {
			return fmt.Errorf("offshoot: the main agent's prompt: %w", err)
		}
		own, err := def.ResolveTools(r.Tools, false)
		if err != nil {
			return fmt.Errorf("offshoot: the main agent %s: %w", def.Name, err)
		}
		c.toolFilter = tools.Filter{Allow: own.Names()}
		if def.Tools == nil { // the MCP servers' tools, which come with each query
			c.toolFilter.Allow = append(c.toolFilter.Allow, "mcp__*")
			for _, d := range def.DisallowedTools {
				if strings.HasPrefix(d, "mcp__") {
					c.toolFilter.Deny = append(c.toolFilter.Deny, d)
				}
			}
		}
		if c.modelName == "" {
			m, name, err := def.ResolveModel(router, "", nil, model.Main)
			if err != nil {
				return fmt.Errorf("offshoot: the main agent %s's model: %w", def.Name, err)
			}
			c.model, c.modelName = m, name
			return nil
		}
	}
	if c.modelName == "" {
		c.modelName = model.Main
	}
	m, err := router.Resolve(c.modelName, nil)
	if err != nil {
		return fmt.Errorf("offshoot: the main agent's model: %w", err)
	}
	c.model = m
	return nil
}
