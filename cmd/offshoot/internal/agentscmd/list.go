package agentscmd

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/cli"
)

func listCommand(env *cli.Env) *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List the agents, sorted by name, with where each comes from, its model and its tools",
		Long: `list prints one line per agent, sorted by name: its name, where it comes
from (project, program, user or built-in), its model ("inherit" when it runs
on the model of the agent that dispatches it) and the tools it may use ("all",
"none", a list, or what it is denied). Where two levels define one name, only
the one in force is listed.

A definition that cannot be loaded is left out; standard error counts those
and the warnings, and 'offshoot agents validate' shows each with its file and
line.`,
		Args: cli.Args(),
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := load(env, nil)
			if err != nil {
				return err
			}
			w := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "NAME\tSOURCE\tMODEL\tTOOLS")
			for _, d := range s.reg.All() {
				fmt.Fprintln(w, cli.Printable(strings.Join([]string{d.Name, string(d.Source), modelSummary(d), toolsSummary(d)}, "\t")))
			}
			if err := w.Flush(); err != nil {
				return err
			}
			s.summarizeProblems()
			return nil
		},
	}
}

// summarizeProblems tells, on standard error, how many definitions could
// not be loaded or loaded with warnings, and how to see them.
func (s *setup) summarizeProblems() {
	errs, warns := len(s.reg.Errors()), len(s.reg.Warnings())
	switch {
	case errs > 0:
		fmt.Fprintf(s.env.Stderr, "%s left out, %s; see them with 'offshoot agents validate'\n", plural(errs, "definition with an error is", "definitions with errors are"), plural(warns, "warning", "warnings"))
	case warns > 0:
		fmt.Fprintf(s.env.Stderr, "%s; see them with 'offshoot agents validate'\n", plural(warns, "warning", "warnings"))
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
