package agents

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/offshoot-dev/offshoot/model"
)

// maxDescription is the longest description read, in characters. Real
// descriptions with examples run to a few thousand; Format, which writes
// files, allows tools.MaxDescription.
const maxDescription = 16384

// nameRE is the shape of an agent's name.
var nameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,63}$`)

// env is what definitions are checked against: the tools, MCP servers
// and models that exist.
type env struct {
	tools   []string // sorted
	toolSet map[string]bool
	servers map[string]bool
	router  *model.Router
}

func newEnv(opts Options) *env {
	names := opts.ToolNames
	if names == nil {
		names = standardTools
	}
	e := &env{toolSet: map[string]bool{}, servers: map[string]bool{}, router: opts.Router}
	for _, n := range names {
		if !e.toolSet[n] {
			e.toolSet[n] = true
			e.tools = append(e.tools, n)
		}
	}
	slices.Sort(e.tools)
	for _, s := range opts.MCPServers {
		e.servers[s] = true
	}
	return e
}

func (e *env) has(name string) bool { return e.toolSet[name] }

// match reports whether pattern matches a known tool.
func (e *env) match(pattern string) bool {
	for _, n := range e.tools {
		if ok, _ := path.Match(pattern, n); ok {
			return true
		}
	}
	return false
}

// slugify turns a name into an agent name: lower case, every run of
// characters other than a-z and 0-9 replaced by one hyphen, no hyphen at
// either end ("Python DevOps/CI-CD Expert" → "python-devops-ci-cd-expert").
func slugify(name string) string {
	var b strings.Builder
	hyphen := false
	for _, r := range strings.ToLower(name) {
		if 'a' <= r && r <= 'z' || '0' <= r && r <= '9' {
			if hyphen && b.Len() > 0 {
				b.WriteByte('-')
			}
			hyphen = false
			b.WriteRune(r)
			continue
		}
		hyphen = true
	}
	return b.String()
}

// origin says what kind of source a draft comes from, for messages.
type origin int

const (
	fromMarkdown origin = iota
	fromJSON
	fromGo
)

// finish applies the checks every source shares to d: the name (turned
// into a slug with a warning when needed), the required description and
// prompt, tool names (Claude Code's mapped to offshoot's, unknown ones
// warned about), the model and the MCP servers. A file's tools: [] is
// warned about (it is ambiguous in the wild), a Go definition's is not.
// ok is false when d has errors; its diagnostics then name the agent.
func (e *env) finish(d *draft, from origin) (ok bool) {
	def := &d.def
	if d.unreadable {
		if def.Name != "" {
			def.Name = slugify(def.Name)
		}
		return e.done(d)
	}
	e.checkName(d)
	def.Description = strings.TrimSpace(def.Description)
	switch n := utf8.RuneCountInString(def.Description); {
	case d.failed(fDescription):
	case n == 0:
		d.fail(d.lineOf(fDescription), fDescription, "description is required: say in a sentence when the main agent should use this agent")
	case n > maxDescription:
		d.fail(d.lineOf(fDescription), fDescription, fmt.Sprintf("description is %d characters long; shorten it to at most %d", n, maxDescription))
	}
	def.Prompt = strings.TrimSpace(def.Prompt)
	def.CriticalSystemReminder = strings.TrimSpace(def.CriticalSystemReminder)
	if def.Prompt == "" && !d.failed(fPrompt) {
		switch from {
		case fromMarkdown:
			d.fail(d.line, fPrompt, "the agent has no instructions: write its system prompt below the closing ---")
		default:
			d.fail(d.line, fPrompt, "prompt is required: give the agent's system prompt")
		}
	}
	if d.emptyTools {
		d.warn(d.lineOf(fTools), fTools, "tools is empty, so the agent gets all its caller's tools; write tools: [] for none, or leave tools out")
	}
	if def.Tools != nil && len(def.Tools) == 0 && from != fromGo {
		d.warn(d.lineOf(fTools), fTools, "tools: [] gives the agent no tools at all; leave tools out to give it its caller's tools")
	}
	e.checkServers(d)
	def.Tools = e.checkTools(d, fTools, def.Tools)
	def.DisallowedTools = e.checkTools(d, fDisallowed, def.DisallowedTools)
	e.checkModel(d)
	def.Model = strings.TrimSpace(def.Model)
	return e.done(d)
}

// done names d's agent in its diagnostics and reports whether it has no
// errors.
func (e *env) done(d *draft) bool {
	for _, list := range [][]*Diagnostic{d.errs, d.warns} {
		for _, diag := range list {
			diag.Agent = d.def.Name
		}
	}
	return len(d.errs) == 0
}

func (e *env) checkName(d *draft) {
	def := &d.def
	raw := strings.TrimSpace(def.Name)
	line := d.lineOf(fName)
	if d.failed(fName) {
		return
	}
	if raw == "" {
		d.fail(line, fName, "name is required: add a line such as name: code-reviewer (lower-case letters, digits and hyphens)")
		return
	}
	slug := slugify(raw)
	switch {
	case slug == "":
		d.fail(line, fName, fmt.Sprintf("name %s has no letters or digits; use lower-case letters, digits and hyphens", quote(raw)))
	case !nameRE.MatchString(slug):
		d.fail(line, fName, fmt.Sprintf("name %s is %d characters long; use at most 64", quote(slug), len(slug)))
	case slug != raw:
		d.warn(line, fName, fmt.Sprintf("name %s is not a valid agent name (lower-case letters, digits and hyphens); it is used as %q", quote(raw), slug))
	}
	def.Name = slug
}

// checkServers checks the names of d's own MCP servers.
func (e *env) checkServers(d *draft) {
	var kept []MCPServer
	seen := map[string]bool{}
	for _, s := range d.def.MCPServers {
		s.Name = strings.TrimSpace(s.Name)
		switch {
		case s.Name == "":
			d.fail(d.lineOf(fMCPServers), fMCPServers, "mcpServers: a server's name is empty")
		case seen[s.Name]:
			d.warn(d.lineOf(fMCPServers), fMCPServers, fmt.Sprintf("mcpServers: server %s is given twice; the first one counts", quote(s.Name)))
		default:
			seen[s.Name] = true
			kept = append(kept, s)
		}
	}
	d.def.MCPServers = kept
}

// checkTools maps the tools or disallowedTools entries of d to offshoot's
// names and warns about those that stand for no tool. No entry is an
// error. A Claude Code tool with no equivalent here (WebSearch, the
// agent-team tools, …; with or without an argument rule) and an
// mcp__server[__tool] entry of a server not configured are dropped from
// the list, with a warning — unless the program has a tool of exactly
// that name. Any other allow-list entry without a tool (a misspelt name)
// stays in the list: the agent runs without it, and an agent none of
// whose tools exist fails to start rather than get every tool; such a
// disallowedTools entry has no effect.
func (e *env) checkTools(d *draft, f field, entries []string) []string {
	if entries == nil {
		return nil
	}
	allow := f == fTools
	effect, dropped := "the agent runs without it", "it is dropped, and the agent runs without it"
	if !allow {
		effect, dropped = "it has no effect", "it is dropped, as there is nothing to disallow"
	}
	line := d.lineOf(f)
	out := make([]string, 0, len(entries))
	seen := map[string]bool{}
	add := func(names ...string) {
		for _, n := range names {
			if !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
	}
	warnedNesting := false
	own := map[string]bool{}
	for _, s := range d.def.MCPServers {
		own[s.Name] = true
	}
	for _, entry := range entries {
		ref := resolveTool(entry, e.has, e.match)
		switch {
		case ref.malformed:
			d.warn(line, f, fmt.Sprintf("%s in %s is neither a tool name nor a valid pattern; it is ignored", quote(entry), f))
		case ref.notOffered == "AskUserQuestion":
			d.warn(line, f, fmt.Sprintf("Claude Code's AskUserQuestion tool in %s is offered only where someone can answer it (offshoot run and chat offer it; a program sets Options.AskUser); %s", f, dropped))
		case ref.notOffered != "":
			opt := optIn[ref.notOffered]
			d.warn(line, f, fmt.Sprintf("Claude Code's %s tool in %s %s the %s tool, which is not offered here (offshoot run and chat offer it with --allow %s); %s",
				toolBase(entry, ref), f, opt.does, ref.notOffered, opt.allow, dropped))
		case ref.claudeOnly:
			d.warn(line, f, fmt.Sprintf("Claude Code's %s tool in %s has no equivalent here; %s", toolBase(entry, ref), f, dropped))
		case ref.mcpServer != "" && !ref.known && !e.servers[ref.mcpServer] && !own[ref.mcpServer]:
			d.warn(line, f, fmt.Sprintf("%s in %s belongs to the MCP server %s, which is not configured: add it to mcpServers; until then the entry is %s",
				quote(entry), f, quote(ref.mcpServer), strings.TrimPrefix(dropped, "it is ")))
		case ref.rule && allow:
			d.warn(line, f, fmt.Sprintf("%s in tools limits what %s may do, which offshoot does not support; the agent does not get %s", quote(entry), ref.base, ref.base))
			add(entry)
		case ref.rule:
			d.warn(line, f, fmt.Sprintf("%s in disallowedTools: argument rules are not supported, so all of %s is disallowed", quote(entry), ref.base))
			add(ref.names...)
		case ref.known, ref.mcpServer != "":
			if allow && slices.ContainsFunc(ref.names, func(n string) bool { return slices.Contains(delegationTools, n) }) && !warnedNesting {
				warnedNesting = true
				d.warn(line, f, fmt.Sprintf("%s in tools lets the agent hand work to other agents, which a subagent may do only below the nesting limit "+
					"(by default a subagent starts none, and loses Task, TaskOutput and TaskStop): the agent has them as the main agent (offshoot run --agent), "+
					"or as a subagent when the limit is raised (offshoot.Options.MaxDepth)", quote(entry)))
			}
			add(ref.names...)
		default:
			also := ""
			if len(ref.names) > 0 && ref.names[0] != entry {
				also = fmt.Sprintf(" (%s here)", strings.Join(ref.names, ", "))
			}
			d.warn(line, f, fmt.Sprintf("unknown tool %s%s in %s (known: %s); %s", quote(entry), also, f, strings.Join(e.tools, ", "), effect))
			add(ref.names...)
		}
	}
	if allow && seen["*"] {
		return nil
	}
	return out
}

// toolBase is the tool name of a tools entry: its base for an entry with
// an argument rule ("Bash" for "Bash(git:*)").
func toolBase(entry string, ref toolRef) string {
	if ref.rule {
		return ref.base
	}
	return entry
}

// checkModel warns about a model no router would resolve.
func (e *env) checkModel(d *draft) {
	m := strings.TrimSpace(d.def.Model)
	if inherits(m) || e.knowsModel(m) {
		return
	}
	known := []string{model.Main, model.Light, "sonnet", "opus", "haiku"}
	if e.router != nil {
		known = e.router.Names()
	}
	d.warn(d.lineOf(fModel), fModel, fmt.Sprintf("model %s is not configured (known: %s, or inherit); the agent uses its caller's model", quote(m), strings.Join(known, ", ")))
}

// knowsModel reports whether name resolves to a model: through the router
// when there is one, else as main, light or a Claude model name.
func (e *env) knowsModel(name string) bool {
	if e.router != nil {
		_, _, err := routerModel(e.router, name)
		return err == nil
	}
	switch n := strings.ToLower(name); {
	case n == model.Main || n == model.Light:
		return true
	case family(n) != "":
		return true
	}
	return false
}
