package agentscmd

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/offshoot-dev/offshoot/agents"
	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/cli"
)

func validateCommand(env *cli.Env) *cobra.Command {
	return &cobra.Command{
		Use:   "validate",
		Short: "Check every agent definition; print each error and warning with its file and line",
		Long: `validate loads every agent definition of the project and the user and prints
each problem with its file and line. Errors leave a definition out; warnings
(tools with no equivalent here, unknown models, names made into slugs,
frontmatter read leniently) do not. It exits with 1 when there are errors,
0 otherwise.`,
		Args: cli.Args(),
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := load(env, nil)
			if err != nil {
				return err
			}
			errs, warns := s.reg.Errors(), s.reg.Warnings()
			for _, d := range errs {
				fmt.Fprintln(env.Stdout, s.line("error", d))
			}
			for _, d := range warns {
				fmt.Fprintln(env.Stdout, s.line("warning", d))
			}
			counts := map[agents.Source]int{}
			for _, d := range s.reg.All() {
				counts[d.Source]++
			}
			fmt.Fprintf(env.Stdout, "%s (%d project, %d user, %d built-in); %s, %s\n",
				plural(len(s.reg.All()), "agent", "agents"), counts[agents.Project], counts[agents.User], counts[agents.Builtin],
				plural(len(errs), "error", "errors"), plural(len(warns), "warning", "warnings"))
			if len(errs) > 0 {
				return cli.Failf("the definitions with errors are left out until they are fixed; fix the files above and run 'offshoot agents validate' again")
			}
			return nil
		},
	}
}
