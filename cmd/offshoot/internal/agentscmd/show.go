package agentscmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/offshoot-dev/offshoot/agents"
	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/cli"
	"github.com/offshoot-dev/offshoot/tools"
	"github.com/offshoot-dev/offshoot/tools/mcp"
)

func showCommand(env *cli.Env) *cobra.Command {
	return &cobra.Command{
		Use:   "show NAME",
		Short: "Show every field of an agent, the tools it gets here, its file and its prompt",
		Long: `show prints every field of the agent's definition, the file it comes from, and
the tools it would get from offshoot's own toolset (the file tools, the
planning tools, dispatch_subagent) and the tools of the configured MCP servers
and of its own, which are started to list them. A server that cannot be
started is a warning.`,
		Args: cli.Args("NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := load(env, nil)
			if err != nil {
				return err
			}
			d, broken, err := s.find(args[0])
			if err != nil {
				return err
			}
			if broken != nil {
				fmt.Fprintln(env.Stderr, s.line("error", broken))
				return cli.Failf("agent %q is left out because of the error above; fix it with 'offshoot agents edit %s'", args[0], args[0])
			}
			return s.show(cmd.Context(), d)
		},
	}
}

func (s *setup) show(ctx context.Context, d agents.Definition) error {
	w := tabwriter.NewWriter(s.env.Stdout, 0, 4, 1, ' ', 0)
	row := func(label, value string) { fmt.Fprintf(w, "%s:\t%s\n", label, cli.Printable(value)) }
	row("name", d.Name)
	row("description", d.Description)
	row("source", string(d.Source))
	row("file", s.fileOf(d))
	row("model", modelSummary(d))
	row("tools", toolsOrAll(d.Tools))
	row("disallowed tools", listOrNone(d.DisallowedTools))
	row("max turns", maxTurns(d.MaxTurns))
	row("background", yesNo(d.Background))
	row("fork context", yesNo(d.ForkContext))
	row("skills", listOrNone(d.Skills))
	row("mcp servers", servers(d.MCPServers))
	row("critical system reminder", orNone(d.CriticalSystemReminder))

	parent := s.parentTools(ctx, d)
	if ctx.Err() != nil {
		return cli.Failf("interrupted while the MCP servers started; their tools are not listed")
	}
	// Started by the main agent with Task at the default depth (1), the
	// agent is at the depth limit: it gets no Task, TaskOutput or TaskStop.
	resolved, err := d.ResolveTools(parent, true)
	var missing *agents.MissingToolsError
	switch {
	case errors.As(err, &missing):
		row("resolved tools", "none: "+missing.Error()+"; the agent cannot start until one of its tools exists")
	case err != nil:
		row("resolved tools", "none: "+err.Error())
	default:
		row("resolved tools", fmt.Sprintf("%s (%d)", listOrNone(resolved.Names()), resolved.Len()))
	}
	if un := unavailable(d, parent); len(un) > 0 {
		row("not available here", strings.Join(un, ", "))
	}
	if err := w.Flush(); err != nil {
		return err
	}
	for _, diag := range s.reg.Warnings() {
		if diag.Agent == d.Name && (diag.Path == d.Path || d.Path == "") {
			fmt.Fprintln(s.env.Stdout, s.line("warning", diag))
		}
	}
	fmt.Fprintln(s.env.Stdout, "prompt:")
	indent(s.env.Stdout, d.Prompt)
	return nil
}

// fileOf says where a definition comes from.
func (s *setup) fileOf(d agents.Definition) string {
	switch {
	case d.Source == agents.Builtin:
		return "none (built in; a project or user agent of the same name replaces it)"
	case d.Path == "":
		return "none"
	case isConfigFile(d.Path):
		return fmt.Sprintf("%s (in \"agents\")", s.env.Show(d.Path))
	default:
		return s.env.Show(d.Path)
	}
}

// parentTools returns the tools a main agent would hand d: offshoot's own,
// and the tools of the configured MCP servers and of d's own, when d could
// get any of them. Only the servers a run may start without asking are
// started: the user's, and the project's (its files' and a project
// agent's own) once approved; the others are named in a warning. Servers
// that cannot be started are warnings.
func (s *setup) parentTools(ctx context.Context, d agents.Definition) tools.Toolset {
	if !mayUseMCP(d) || (len(s.servers) == 0 && len(d.MCPServers) == 0) {
		return s.tools
	}
	startable := maps.Clone(s.servers)
	notStarted := slices.Clone(s.unapproved)
	for _, name := range s.unapproved {
		delete(startable, name)
	}
	if len(notStarted) > 0 {
		s.env.Warn("the project's MCP servers (%s) are not started, so their tools are not listed: they run commands on this machine, and you have not approved them; approve them with 'offshoot run --approve-mcp' or in 'offshoot chat'",
			cli.Printable(strings.Join(notStarted, ", ")))
	}
	m, err := mcp.NewManager(startable)
	if err != nil {
		s.env.Warn("%v; the tools of the MCP servers are not listed", err)
		return s.tools
	}
	defer func() { _ = m.Close() }()
	for _, srv := range d.MCPServers {
		if srv.Config == nil {
			if _, ok := s.servers[srv.Name]; !ok {
				s.env.Warn("MCP server %q of agent %s is not configured; add it to \"mcpServers\" in .mcp.json or .offshoot/config.json", srv.Name, d.Name)
			}
			continue
		}
		if d.Source == agents.Project && !s.approved {
			continue // named in the warning above
		}
		cfg, err := mcp.ParseServer(srv.Name, srv.Config)
		if err == nil {
			err = m.Add(srv.Name, cfg)
		}
		if err != nil {
			s.env.Warn("%v", err)
		}
	}
	mcpTools, err := m.Tools(ctx, m.Names()...)
	if ctx.Err() != nil {
		return s.tools
	}
	for _, w := range m.Warnings() {
		s.env.Warn("%v", w)
	}
	if err != nil {
		s.env.Warn("%v; the tools of the MCP servers are not listed", err)
		return s.tools
	}
	all, err := s.tools.With(mcpTools.Tools()...)
	if err != nil {
		s.env.Warn("%v; the tools of the MCP servers are not listed", err)
		return s.tools
	}
	return all
}

// mayUseMCP reports whether d could get a tool of an MCP server: it takes
// every tool, names one or a pattern, or has servers of its own.
func mayUseMCP(d agents.Definition) bool {
	if d.Tools == nil || len(d.MCPServers) > 0 {
		return true
	}
	for _, t := range d.Tools {
		if strings.HasPrefix(t, "mcp__") || strings.ContainsAny(t, "*?[") {
			return true
		}
	}
	return false
}

// unavailable returns the entries of d's tools that stand for no tool of
// parent.
func unavailable(d agents.Definition, parent tools.Toolset) []string {
	var out []string
	for _, t := range d.Tools {
		one := agents.Definition{Name: d.Name, Tools: []string{t}}
		if _, err := one.ResolveTools(parent, false); err != nil {
			out = append(out, t)
		}
	}
	return out
}

func toolsOrAll(ts []string) string {
	if ts == nil {
		return "all (its caller's)"
	}
	return listOrNone(ts)
}

func listOrNone(xs []string) string {
	if len(xs) == 0 {
		return "none"
	}
	return strings.Join(xs, ", ")
}

func orNone(s string) string {
	if strings.TrimSpace(s) == "" {
		return "none"
	}
	return s
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func maxTurns(n int) string {
	if n == 0 {
		return "default"
	}
	return strconv.Itoa(n)
}

func servers(ss []agents.MCPServer) string {
	var out []string
	for _, s := range ss {
		if s.Config != nil {
			out = append(out, s.Name+" (configured here)")
		} else {
			out = append(out, s.Name)
		}
	}
	return listOrNone(out)
}

// indent writes text with every line indented by two spaces.
func indent(w io.Writer, text string) {
	for line := range strings.SplitSeq(strings.TrimRight(cli.Printable(text), "\n"), "\n") {
		if line == "" {
			fmt.Fprintln(w)
			continue
		}
		fmt.Fprintln(w, "  "+line)
	}
}
