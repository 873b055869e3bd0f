package agents

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"go.yaml.in/yaml/v3"

	"github.com/offshoot-dev/offshoot/internal/modelconfig"
	"github.com/offshoot-dev/offshoot/model"
)

// Options says where Load finds definitions and what it checks them
// against. The zero value loads the built-ins only.
type Options struct {
	// ProjectDir is the project's directory: its .offshoot/agents/*.md,
	// .offshoot/config.json ("agents") and .claude/agents/*.md are read.
	// Empty skips the project level.
	ProjectDir string
	// HomeDir is the user's home directory (os.UserHomeDir): its
	// ~/.offshoot/agents/*.md, ~/.offshoot/config.json and
	// ~/.claude/agents/*.md are read. Empty skips the user level.
	HomeDir string
	// Agents are the program's own definitions, by name (a Definition's
	// Name may be left empty).
	Agents map[string]Definition
	// AgentsJSON is the value of a --agents flag: a JSON object of
	// definitions by name, {"reviewer": {"description": …, "prompt": …}}.
	// It overrides Agents.
	AgentsJSON []byte
	// ToolNames are the names of the tools the main agent has; the tools
	// of definitions are checked against them. Nil means offshoot's own
	// tools (the file tools, the planning tools, dispatch_subagent, Task,
	// TaskOutput and TaskStop).
	ToolNames []string
	// MCPServers names configured MCP servers besides those in the
	// config.json files, so that mcp__server__tool names are known.
	MCPServers []string
	// Router, when set, is what model names are checked against (main,
	// light, configured names, aliases); without it only main, light and
	// Claude model names are known.
	Router *model.Router
	// NoBuiltins leaves out the built-in agents.
	NoBuiltins bool
	// MatchDescriptions lets Find fall back to the agent whose name and
	// description best match the words asked for.
	MatchDescriptions bool
}

// Registry holds the agents a main agent can delegate to, one definition
// per name, merged from every level by priority. Build it with Load; it is
// immutable and safe for concurrent use. The zero Registry is empty.
type Registry struct {
	defs    map[string]Definition
	broken  map[string]*Diagnostic // names whose winning definition failed to load
	aliases map[string]string
	names   []string // of defs, sorted
	errs    []*Diagnostic
	warns   []*Diagnostic
	env     *env
	byDesc  bool
}

// Load gathers definitions from every level and merges them by name,
// higher priority first:
//
//  1. the project: .offshoot/config.json, then .offshoot/agents/*.md, then
//     .claude/agents/*.md (so existing Claude Code agents work);
//  2. the program: Options.AgentsJSON (--agents), then Options.Agents;
//  3. the user: ~/.offshoot/config.json, then ~/.offshoot/agents/*.md, then
//     ~/.claude/agents/*.md;
//  4. the built-ins: general-purpose (alias general), explore, plan and
//     summary.
//
// Different names from all levels merge. Files are read in sorted order;
// a name defined twice in one directory or file keeps the first, with a
// warning naming both. Loading never stops at a problem: a definition with
// an error is left out (and hides the same name at lower levels, so a broken
// project agent never silently becomes a user's agent of the same name),
// and every problem is kept, with its file and line, in Errors and Warnings.
func Load(opts Options) *Registry {
	r := &Registry{
		defs: map[string]Definition{}, broken: map[string]*Diagnostic{}, aliases: map[string]string{},
		byDesc: opts.MatchDescriptions,
	}
	e := newEnv(opts)
	r.env = e
	project, home := opts.ProjectDir, opts.HomeDir
	if project != "" && home != "" && sameDir(project, home) {
		home = ""
	}
	projectCfg := r.readConfig(project)
	homeCfg := r.readConfig(home)
	for _, s := range append(slices.Clone(projectCfg.servers), homeCfg.servers...) {
		e.servers[s] = true
	}
	if !opts.NoBuiltins {
		for _, def := range builtins() {
			r.defs[def.Name] = def
		}
		r.aliases["general"] = "general-purpose"
	}
	r.level(home, User, homeCfg)
	r.program(opts)
	r.level(project, Project, projectCfg)
	r.names = slices.Sorted(maps.Keys(r.defs))
	return r
}

// sameDir reports whether a and b are one directory.
func sameDir(a, b string) bool {
	ia, erra := os.Stat(a)
	ib, errb := os.Stat(b)
	if erra != nil || errb != nil {
		return filepath.Clean(a) == filepath.Clean(b)
	}
	return os.SameFile(ia, ib)
}

// readConfig reads dir's .offshoot/config.json; a missing file is empty.
func (r *Registry) readConfig(dir string) configFile {
	if dir == "" {
		return configFile{}
	}
	p := filepath.Join(dir, modelconfig.Path)
	data, err := readLimited(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return configFile{}
	case err != nil:
		r.errs = append(r.errs, &Diagnostic{Path: p, Message: fmt.Sprintf("cannot read the configuration: %v", err)})
		return configFile{}
	}
	c, diag := parseConfig(p, data)
	if diag != nil {
		r.errs = append(r.errs, diag)
	}
	return c
}

// level merges the definitions of one directory level (project or user),
// lowest priority first.
func (r *Registry) level(dir string, src Source, cfg configFile) {
	if dir == "" {
		return
	}
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		r.errs = append(r.errs, &Diagnostic{Path: dir, Message: fmt.Sprintf("the %s directory does not exist or is not a directory; check Options", src)})
		return
	}
	for _, sub := range []string{filepath.Join(".claude", "agents"), filepath.Join(".offshoot", "agents")} {
		drafts, errs, warns := scanDir(filepath.Join(dir, sub), src)
		r.errs = append(r.errs, errs...)
		r.warns = append(r.warns, warns...)
		r.merge(drafts, fromMarkdown)
	}
	r.merge(agentDrafts(filepath.Join(dir, modelconfig.Path), cfg.agents, src), fromJSON)
}

// program merges the program's definitions: Agents, then AgentsJSON.
func (r *Registry) program(opts Options) {
	var drafts []*draft
	for _, name := range slices.Sorted(maps.Keys(opts.Agents)) {
		def := opts.Agents[name].clone()
		d := &draft{path: "Options.Agents", lines: map[field]int{}}
		if def.Name != "" && def.Name != name {
			d.warn(0, fName, fmt.Sprintf("the key %s names this agent; its Name %s is ignored", quote(name), quote(def.Name)))
		}
		def.Name, def.Source, def.Path = name, Program, ""
		d.def = def
		drafts = append(drafts, d)
	}
	r.merge(drafts, fromGo)
	if len(opts.AgentsJSON) == 0 {
		return
	}
	root, err := jsonNode(opts.AgentsJSON)
	switch {
	case err != nil:
		r.errs = append(r.errs, &Diagnostic{Path: "--agents", Message: fmt.Sprintf("not valid JSON: %v", err)})
	case root.Kind != yaml.MappingNode:
		r.errs = append(r.errs, &Diagnostic{Path: "--agents", Message: `--agents must be a JSON object of agents by name: {"reviewer": {"description": "…", "prompt": "…"}}`})
	default:
		r.merge(agentDrafts("--agents", root, Program), fromJSON)
	}
}

// merge checks drafts (one directory or file, in order) and lets them
// override what lower levels defined.
func (r *Registry) merge(drafts []*draft, from origin) {
	seen := map[string]*draft{}
	for _, d := range drafts {
		ok := r.env.finish(d, from)
		r.errs = append(r.errs, d.errs...)
		r.warns = append(r.warns, d.warns...)
		name := d.def.Name
		if !nameRE.MatchString(name) {
			continue
		}
		if first, dup := seen[name]; dup {
			r.warns = append(r.warns, &Diagnostic{Path: d.path, Line: d.lineOf(fName), Agent: name, Field: string(fName),
				Message: fmt.Sprintf("agent %q is defined twice, in %s and in %s; the first one counts", name, first.where(), d.where())})
			continue
		}
		seen[name] = d
		if ok {
			r.defs[name] = d.def
			delete(r.broken, name)
		} else {
			delete(r.defs, name)
			r.broken[name] = d.errs[0]
		}
	}
}

// where names the place of d for messages: its file, and line when the file
// holds several definitions.
func (d *draft) where() string {
	if d.lineOf(fName) > 0 && d.path != "" && filepath.Ext(d.path) != ".md" {
		return fmt.Sprintf("%s:%d", d.path, d.lineOf(fName))
	}
	return d.path
}

// All returns the definitions, sorted by name.
func (r *Registry) All() []Definition {
	out := make([]Definition, len(r.names))
	for i, n := range r.names {
		out[i] = r.defs[n].clone()
	}
	return out
}

// Errors returns the problems that kept definitions (or whole files) from
// loading, in the order they were found.
func (r *Registry) Errors() []*Diagnostic { return slices.Clone(r.errs) }

// Warnings returns the problems of definitions that loaded anyway: names
// turned into slugs, tools with no equivalent here, unknown models,
// frontmatter read leniently, duplicates.
func (r *Registry) Warnings() []*Diagnostic { return slices.Clone(r.warns) }
