// Package agentscmd is offshoot's agents command: list, show, create, edit,
// remove and validate the agent definitions a main agent can delegate to.
package agentscmd

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/offshoot-dev/offshoot/agents"
	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/cli"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/tools"
	"github.com/offshoot-dev/offshoot/tools/mcp"
)

// Command returns the agents command and its subcommands.
func Command(env *cli.Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "agents",
		Short: "List, show, create, edit, remove and validate agent definitions",
		Long: `Agents are the roles a main agent can hand work to: a system prompt, the tools
it may use and the model it runs on. They are Markdown files with YAML
frontmatter in .offshoot/agents (the project), ~/.offshoot/agents (the user)
and .claude/agents, entries of "agents" in .offshoot/config.json, and the
built-ins. Where two define one name, the project wins over the user, and
both over the built-ins.`,
	}
	cli.Group(cmd)
	cmd.AddCommand(listCommand(env), showCommand(env), newCommand(env), editCommand(env), rmCommand(env), validateCommand(env))
	return cmd
}

// setup is what the agents commands work from: the registry of
// definitions, loaded against the tools a main agent gets, the configured
// MCP servers and the known models.
type setup struct {
	env     *cli.Env
	opts    agents.Options
	reg     *agents.Registry
	tools   tools.Toolset
	servers map[string]mcp.ServerConfig
	// approved says whether the project has MCP servers the user
	// approved; unapproved names those the user has not. Only approved
	// ones are started, and a project agent's own only when approved.
	approved   bool
	unapproved []string
}

// load reads the definitions. router is nil unless the command has a model
// already; the configured models are then read for checking only.
func load(env *cli.Env, router *model.Router) (*setup, error) {
	ts, err := cli.MainTools()
	if err != nil {
		return nil, cli.Failf("building offshoot's tools failed: %v; this is a bug, please report it", err)
	}
	servers, approved, unapproved := env.ConfiguredServers()
	if router == nil {
		router = env.KnownModels()
	}
	opts := env.AgentOptions(ts.Names(), cli.ServerNames(servers), router)
	return &setup{env: env, opts: opts, reg: agents.Load(opts), tools: ts, servers: servers, approved: approved, unapproved: unapproved}, nil
}

// reload reads the definitions again, after a file changed.
func (s *setup) reload() { s.reg = agents.Load(s.opts) }

// level loads the definitions of one level only: the project or the user.
func (s *setup) level(src agents.Source) *agents.Registry {
	opts := s.opts
	opts.NoBuiltins = true
	switch src {
	case agents.Project:
		opts.HomeDir = ""
	case agents.User:
		opts.ProjectDir = ""
	}
	return agents.Load(opts)
}

// named returns the definition called exactly name in reg, or the
// diagnostic of the error that kept it from loading.
func named(reg *agents.Registry, name string) (agents.Definition, *agents.Diagnostic, bool) {
	for _, d := range reg.All() {
		if d.Name == name {
			return d, nil, true
		}
	}
	for _, d := range reg.Errors() {
		if d.Agent == name && d.Path != "" {
			return agents.Definition{}, d, true
		}
	}
	return agents.Definition{}, nil, false
}

// find looks up the agent a command names: exactly, or as Registry.Find
// does (ignoring case and separators). A definition that failed to load
// comes back as its diagnostic, so that it can be edited or removed.
func (s *setup) find(name string) (agents.Definition, *agents.Diagnostic, error) {
	if d, diag, ok := named(s.reg, name); ok {
		return d, diag, nil
	}
	d, err := s.reg.Find(name)
	var diag *agents.Diagnostic
	var nf *agents.NotFoundError
	switch {
	case err == nil:
		return d, nil, nil
	case errors.As(err, &diag):
		return agents.Definition{}, diag, nil
	case errors.As(err, &nf):
		return agents.Definition{}, nil, cli.Failf("no agent is called %q (the agents are %s); list them with 'offshoot agents list', or create it with 'offshoot agents new %s'",
			name, strings.Join(nf.Available, ", "), name)
	default:
		return agents.Definition{}, nil, cli.Failf("no agent is called %q: there are none; create one with 'offshoot agents new %s'", name, name)
	}
}

// isConfigFile reports whether a definition's path is a config.json, where
// it is one entry among other settings.
func isConfigFile(path string) bool { return filepath.Base(path) == "config.json" }

// diagnostics returns the errors and warnings of reg about the file path.
func diagnostics(reg *agents.Registry, path string) (errs, warns []*agents.Diagnostic) {
	for _, d := range reg.Errors() {
		if d.Path == path {
			errs = append(errs, d)
		}
	}
	for _, d := range reg.Warnings() {
		if d.Path == path {
			warns = append(warns, d)
		}
	}
	return errs, warns
}

// line renders a diagnostic as "KIND: FILE:LINE: MESSAGE", the file as a
// person reads it.
func (s *setup) line(kind string, d *agents.Diagnostic) string {
	loc := s.env.Show(d.Path)
	if loc != "" && d.Line > 0 {
		loc = fmt.Sprintf("%s:%d", loc, d.Line)
	}
	if loc == "" {
		return kind + ": " + cli.Printable(d.Message)
	}
	return kind + ": " + cli.Printable(loc+": "+d.Message)
}

// toolsSummary says in a few words which tools a definition asks for.
func toolsSummary(d agents.Definition) string {
	deny := strings.Join(d.DisallowedTools, ", ")
	switch {
	case d.Tools == nil && deny == "":
		return "all"
	case d.Tools == nil:
		return "all except " + deny
	case len(d.Tools) == 0:
		return "none"
	case deny == "":
		return strings.Join(d.Tools, ", ")
	default:
		return strings.Join(d.Tools, ", ") + " (except " + deny + ")"
	}
}

// modelSummary names a definition's model.
func modelSummary(d agents.Definition) string {
	if d.Model == "" {
		return model.Inherit
	}
	return d.Model
}
