package task

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/offshoot-dev/offshoot/agents"
	"github.com/offshoot-dev/offshoot/tools"
)

// intro is the part of the tool's description that does not depend on the
// agents.
const intro = `Launch an agent to work on a task on its own and return its final answer. Name the agent in subagent_type, give a short (3-5 word) description, and put the whole task in prompt: the agent sees nothing else of this conversation unless its entry says it does. Set model to light for simple tasks, main for complex ones, or leave it out. Calls in one turn run side by side. With run_in_background the call returns at once and the result comes later in a task notification. With resume (an earlier agent_id) that agent continues, its conversation kept.`

// shortDescription bounds an agent's description in the tool's short
// listing, in characters.
const shortDescription = 80

// describe returns the tool's description for the agents of reg, within
// tools.MaxDescription characters. It lists the agents as fully as fits:
// the registry's Listing ("- name: description (Tools: …)"); else one line
// per agent with the first sentence of its description; else the names;
// else as many names as fit. The agents section of the main agent's
// prompt (Section) always has the full listing.
func describe(reg *agents.Registry) string {
	var defs []agents.Definition
	if reg != nil {
		defs = reg.All()
	}
	if len(defs) == 0 {
		return intro + "\n\nNo agents are available in this program."
	}
	head := intro + "\n\nAgents:\n"
	fits := func(s string) bool { return utf8.RuneCountInString(s) <= tools.MaxDescription }
	if full := head + reg.Listing(); fits(full) {
		return full
	}
	var b strings.Builder
	b.WriteString(head)
	for _, d := range defs {
		fmt.Fprintf(&b, "- %s: %s", d.Name, firstSentence(d.Description, shortDescription))
		if d.ForkContext {
			b.WriteString(" (sees this conversation)")
		}
		b.WriteString("\n")
	}
	if fits(b.String()) {
		return b.String()
	}
	names := make([]string, len(defs))
	for i, d := range defs {
		names[i] = d.Name
	}
	head = intro + "\n\nAgents (your instructions say what each does): "
	if all := head + strings.Join(names, ", ") + "."; fits(all) {
		return all
	}
	for n := len(names) - 1; n > 0; n-- {
		s := fmt.Sprintf("%s%s, and %d more.", head, strings.Join(names[:n], ", "), len(names)-n)
		if fits(s) {
			return s
		}
	}
	return fmt.Sprintf("%s%d agents.", head, len(names))
}

// firstSentence returns the first sentence of s, on one line, cut at a
// word to at most max characters.
func firstSentence(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if i := strings.Index(s, ". "); i >= 0 {
		s = s[:i+1]
	}
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	cut := string([]rune(s)[:max-1])
	if i := strings.LastIndexByte(cut, ' '); i > 0 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,;:") + "…"
}
