package agents

import (
	"path"
	"strings"

	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/tools"
)

// Listing returns the agents for a model to choose from, sorted by name,
// one per line: "- name: description (Tools: …)". The tools are those the
// agent may use among the tools the registry knows (Options.ToolNames),
// "all" when it gets all its caller's tools, "all except …" when it gets
// all but some, or "none"; an agent that starts from its caller's
// conversation (ForkContext) has "; sees this conversation" after them.
// Lines of a long description are indented under its item. This is the
// text the Task tool describes its agents with.
func (r *Registry) Listing() string {
	var b strings.Builder
	for _, name := range r.names {
		def := r.defs[name]
		b.WriteString("- ")
		b.WriteString(name)
		b.WriteString(": ")
		for i, line := range strings.Split(def.Description, "\n") {
			line = strings.TrimRight(line, " \t")
			if i > 0 {
				b.WriteString("\n")
				if line != "" {
					b.WriteString("  ")
				}
			}
			b.WriteString(line)
		}
		b.WriteString(" (Tools: ")
		b.WriteString(r.toolSummary(def))
		if def.ForkContext {
			b.WriteString("; sees this conversation")
		}
		b.WriteString(")\n")
	}
	return b.String()
}

// toolSummary says in words which tools def gets.
func (r *Registry) toolSummary(def Definition) string {
	if def.Tools == nil {
		if len(def.DisallowedTools) == 0 {
			return "all"
		}
		return "all except " + strings.Join(def.DisallowedTools, ", ")
	}
	deny := tools.Filter{Deny: def.DisallowedTools}
	var usable []string
	for _, t := range def.Tools {
		if r.usable(t, def) && deny.Allows(t) {
			usable = append(usable, t)
		}
	}
	if len(usable) == 0 {
		return "none"
	}
	return strings.Join(usable, ", ")
}

// usable reports whether the tools entry t of def stands for a tool the
// registry knows of.
func (r *Registry) usable(t string, def Definition) bool {
	e := r.env
	if e == nil {
		return false
	}
	if rest, ok := strings.CutPrefix(t, "mcp__"); ok {
		server, _, _ := strings.Cut(rest, "__")
		if e.servers[server] {
			return true
		}
		for _, s := range def.MCPServers {
			if s.Name == server {
				return true
			}
		}
	}
	if e.has(t) {
		return true
	}
	if _, err := path.Match(t, ""); err == nil && strings.ContainsAny(t, `*?[\`) {
		return e.match(t)
	}
	return false
}

// catalog is the params of the agents section: the listing of the agents.
type catalog struct {
	Agents string
}

// guide is the model-facing text of the agents section.
const guide = `
	Use the Task tool to hand a self-contained task to a subagent. A subagent works on its own, with
	its own instructions and tools, and returns only its final answer, so delegating keeps this
	conversation short.

	Available agents (the subagent_type to ask for, and when to use each):
	{{ .Agents }}
	When to delegate:
	- Delegate research that takes many searches or reads, work that matches an agent's description,
	  and independent tasks: several Task calls in one turn run side by side.
	- Do not delegate what one or two tool calls of your own can do.
	- Write a complete prompt: a subagent sees only the task you give it, not this conversation
	  (unless its entry says it sees this conversation). Say what it should return.
	- Choose the model: light for simple tasks such as lookups, summaries and quick searches; main for
	  complex reasoning, design and planning. Leave it out to use the agent's own choice.
	- The subagent's answer is for you, not for the user: pass on what matters.`

// Section returns a prompt section for the main agent that lists the
// registry's agents and says when to delegate to them and on which model.
// It is shown only when the registry holds agents. opts are passed to
// prompt.Markdown: prompt.WithTools attaches the Task tool, prompt.WithKey
// changes the key ("agents").
func Section(r *Registry, opts ...prompt.SectionOption) *prompt.Section {
	listing := ""
	if r != nil {
		listing = r.Listing()
	}
	base := []prompt.SectionOption{
		prompt.WithKey("agents"),
		prompt.WithDefaults(catalog{Agents: listing}),
		prompt.WithEnabled(func(c catalog) bool { return c.Agents != "" }),
	}
	return prompt.Markdown[catalog]("Agents", guide, append(base, opts...)...)
}
