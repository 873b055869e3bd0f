package runcmd

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/cli"
)

// AnswerCommand returns 'sessions answer': it carries on a stored run that
// waits for an answer, as run goes on.
func AnswerCommand(env *cli.Env) *cobra.Command {
	r := &run{env: env}
	cmd := &cobra.Command{
		Use:   "answer ID ANSWER",
		Short: "Answer the question a stored run waits on, and carry the run on",
		Long: `answer gives ANSWER to the question the agent of stored session ID asked
when no one could answer (offshoot run on a pipe exits with 3 then, and
prints the question), and carries the run on from there, exactly where it
stopped, printing the rest of it as run does: the agent reads ANSWER as
the result of its question. At the end it shows the files the agents
changed, and writes them back as run does (--write, --dry-run, or a yes at
a terminal). The agent may ask again: answer exits with 3 again then.

Exit codes: as run's; 2 too when the session waits for no answer.`,
		Example: `  offshoot run "Set up the database" </dev/null   # exits 3 with the question
  offshoot sessions answer 3f2a9c1e "SQLite, in one file"`,
		Args: cli.Args("ID", "ANSWER"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if strings.TrimSpace(args[1]) == "" {
				return cli.Usagef("the answer is empty; give the answer to the question, such as offshoot sessions answer ID \"yes\"")
			}
			r.flags.Resume, r.flags.Kind, r.answer = args[0], "run", args[1]
			return r.run(cmd.Context())
		},
	}
	r.flags.Add(cmd)
	r.writeFlags.Add(cmd, "the agents' file changes")
	cmd.Flags().BoolVar(&r.json, "json", false, "print every event as a JSON line instead of the tree, and nothing else on standard output")
	cmd.Flags().BoolVar(&r.noColor, "no-color", false, "print without colours (they are used on a terminal only, and never with NO_COLOR set)")
	return cmd
}
