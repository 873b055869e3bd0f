package offshoot

import (
	"fmt"
	"strings"

	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/tools"
)

// WithMainAgent has the main agent play the agent called name, one of
// the client's agents (found as Task finds them): its prompt is the main
// agent's role (instead of WithSystemPrompt's), its tools list and
// disallowedTools narrow the main agent's tools, and its model is the
// main agent's unless WithModelName says another. It may still delegate
// to the other agents when its tools allow Task. An agent that does not
// exist, or did not load, is NewClient's error.
func WithMainAgent(name string) Option { return func(c *config) { c.mainAgent = name } }

// resolveModel chooses the main agent's model — WithModelName's, else the
// played agent's, else main — and, for a main agent that plays an agent,
// its role and tools.
func (c *Client) resolveModel(cfg config, router *model.Router) error {
	c.modelName = cfg.modelName
	if cfg.mainAgent != "" {
		def, err := c.registry.Find(cfg.mainAgent)
		if err != nil {
			return fmt.Errorf("offshoot: the main agent: %w", err)
		}
		text := def.Prompt
		if def.CriticalSystemReminder != "" {
			text += "\n\nReminder: " + def.CriticalSystemReminder
		}
		c.params = []any{role{Text: text}}
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
