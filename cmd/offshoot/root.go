package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/agentscmd"
	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/chatcmd"
	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/cli"
	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/democmd"
	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/runcmd"
	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/sessionscmd"
	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/snapshotcmd"
	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/transcriptscmd"
	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/uicmd"
	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/workercmd"
)

// Run runs offshoot with args in env and returns the exit code. Errors are
// printed to env.Stderr, prefixed with "offshoot: ".
func Run(ctx context.Context, env *cli.Env, args []string) int {
	root := newRoot(env)
	root.SetArgs(args)
	root.SetIn(env.Stdin)
	root.SetOut(env.Stdout)
	root.SetErr(env.Stderr)
	err := root.ExecuteContext(ctx)
	var ee *cli.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee) && ee.Err == nil:
		// The command said what happened; only the exit code is left.
	case errors.As(err, &ee) || env.Started():
		// What the error quotes may come from a repository (a stored
		// session's ids, a file's contents): printed with its control
		// characters marked, never as terminal escapes.
		fmt.Fprintln(env.Stderr, "offshoot: "+cli.Printable(err.Error()))
	default:
		// cobra found the command line wrong.
		fmt.Fprintln(env.Stderr, "offshoot: "+cli.Printable(err.Error())+"; run 'offshoot --help' for usage")
	}
	return cli.Code(err, env.Started())
}

// newRoot returns the root command with every command family.
func newRoot(env *cli.Env) *cobra.Command {
	root := &cobra.Command{
		Use:   "offshoot",
		Short: "Agents on immutable sessions, with subagents forked from a snapshot",
		Long: `offshoot shows the library at work (demo), runs a main agent on your model —
a task (run) or a conversation (chat) — manages the agent definitions a main
agent delegates to, and reads what runs leave behind: the sessions they store
(sessions), the transcripts of their subagents and the session snapshots they
save.

Start with 'offshoot demo': a planner dispatching plan-step subagents,
offline, checked for snapshot parity and isolation. Then, with a model
configured (LLM_MODEL_ID, LLM_API_KEY, LLM_BASE_URL, or "models" in
.offshoot/config.json): offshoot run "Summarize this project".

Exit codes: 0 success, 1 the operation failed, 2 a usage or configuration
error.`,
		SilenceErrors: true,
		SilenceUsage:  true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			if cmd.Flags().Changed("home") {
				env.SetHomeGiven()
			}
			return env.Resolve()
		},
	}
	root.CompletionOptions.DisableDefaultCmd = true
	root.PersistentFlags().StringVar(&env.ProjectDir, "project", "", "the project directory (default: the working directory)")
	root.PersistentFlags().StringVar(&env.HomeDir, "home", "", "the user's home directory, for ~/.offshoot (default: $HOME)")
	root.PersistentFlags().BoolVar(&env.Verbose, "verbose", false, "when something fails, show the whole error chain after the explanation")
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		return cli.Usagef("%v; see '%s --help'", err, cmd.CommandPath())
	})
	root.AddCommand(democmd.Command(env), runcmd.Command(env), chatcmd.Command(env), agentscmd.Command(env), snapshotcmd.Command(env), transcriptscmd.Command(env), sessionsWithAnswer(env), uicmd.Command(env), workercmd.Command(env))
	return root
}

// sessionsWithAnswer is the sessions command with its answer subcommand,
// which carries a run on as run does.
func sessionsWithAnswer(env *cli.Env) *cobra.Command {
	cmd := sessionscmd.Command(env)
	cmd.AddCommand(runcmd.AnswerCommand(env))
	return cmd
}
