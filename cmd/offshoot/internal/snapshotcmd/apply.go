package snapshotcmd

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/cli"
)

// applyCommand returns snapshot apply: write the file changes a saved
// session holds to a directory.
func applyCommand(env *cli.Env) *cobra.Command {
	var dir string
	var flags cli.WriteBackFlags
	cmd := &cobra.Command{
		Use:   "apply FILE --dir DIR [--write | --dry-run] [--write-config PATH]...",
		Short: "Write the file changes of a saved session to a directory",
		Long: `apply shows the files a saved session (offshoot run --save FILE) created,
edited and deleted, against the files that were copied into it, as a unified
diff with a summary, and writes them to DIR — the directory the files were
copied from — with --write, or after a yes at a terminal; --dry-run only
shows them.

A file is replaced or removed only while it is on disk as it was copied in:
one changed since is left as it is, and so is anything outside DIR, behind
a symbolic link, or excluded from the copy; .git, .offshoot, .env files and
the other files that may hold a secret are never written, whatever the
snapshot says. apply names what it left and exits with 1. Each file is
written whole or not at all (a temporary file renamed over it), keeping its
permissions.

A file that configures what runs next — a CI workflow, .envrc, .claude,
.mcp.json, an editor's tasks, a git hook — is listed apart and written only
when named with --write-config PATH (repeated for each), or after a yes of
its own at a terminal: --write alone leaves it, and says so.

Exit codes: 0 the changes were written (or shown), 1 some could not be
written (or wait to be named), or the snapshot cannot be read, 2 a usage
error (such as a --write-config PATH that is not among the changes).`,
		Example: `  offshoot run --save run.json "Fix the typos in the README"
  offshoot snapshot apply run.json --dir . --dry-run
  offshoot snapshot apply run.json --dir . --write`,
		Args: cli.Args("FILE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := flags.Check(); err != nil {
				return err
			}
			if dir == "" {
				return cli.Usagef("--dir: give the directory the session's files were copied from, such as --dir .")
			}
			if info, err := os.Stat(dir); err != nil || !info.IsDir() {
				return cli.Usagef("--dir %s is not a directory; give the directory the session's files were copied from", dir)
			}
			reg, err := Registry()
			if err != nil {
				return cli.Failf("%v; this is a bug, please report it", err)
			}
			snap, err := read(args[0], reg)
			if err != nil {
				return cli.Failf("%v", err)
			}
			var ask func(string) bool
			if !flags.Write && !flags.DryRun {
				ask = cli.AskOnTerminal(env.Stdin, env.Stdout)
			}
			return env.RunWriteBack(cli.WriteBack{
				Snapshot: snap, Dir: dir, Flags: flags, Ask: ask,
				Out: env.Out(), Prefix: "offshoot snapshot apply: ",
				Later: "run again with --write to write them",
			})
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "", "the directory to write the changes to: the one the session's files were copied from")
	flags.Add(cmd, "the session's file changes")
	return cmd
}
