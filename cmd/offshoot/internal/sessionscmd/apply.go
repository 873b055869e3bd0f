package sessionscmd

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/cli"
	"github.com/offshoot-dev/offshoot/serde"
	"github.com/offshoot-dev/offshoot/store/journal"
)

// applyCommand returns sessions apply: write the file changes of a stored
// session to a directory, as snapshot apply does for a saved one.
func (s *sessions) applyCommand() *cobra.Command {
	var dir string
	var flags cli.WriteBackFlags
	cmd := &cobra.Command{
		Use:   "apply ID [--dir DIR] [--write | --dry-run] [--write-config PATH]...",
		Short: "Write the file changes of a stored session to a directory",
		Long: `apply shows the files a stored session created, edited and deleted, against
the files that were copied into it, as a unified diff with a summary, and
writes them to DIR (default: the project directory) with --write, or after
a yes at a terminal; --dry-run only shows them. The rules are those of
'offshoot snapshot apply': a file changed on disk since it was copied in is
left as it is, and so is anything outside DIR, behind a symbolic link, or
excluded from the copy; .git, .offshoot and the files that may hold a
secret are never written, whatever the stored session says; a file that
configures what runs next (a CI workflow, .envrc, .claude, .mcp.json, a git
hook) is written only when named with --write-config PATH, or after a yes
of its own at a terminal. apply names what it left and exits with 1.`,
		Example: `  offshoot sessions apply 3f2a… --dry-run
  offshoot sessions apply 3f2a… --write`,
		Args: cli.Args("ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := flags.Check(); err != nil {
				return err
			}
			if dir == "" {
				dir = s.env.ProjectDir
			}
			if info, err := os.Stat(dir); err != nil || !info.IsDir() {
				return cli.Usagef("--dir %s is not a directory; give the directory the session's files were copied from", dir)
			}
			ctx := cmd.Context()
			st, h, err := s.find(ctx, args[0])
			if err != nil {
				return err
			}
			defer st.Close()
			sets, err := cli.SessionReducers()
			if err != nil {
				return cli.Failf("offshoot's tools: %v; this is a bug, please report it", err)
			}
			j := journal.New(st, journal.Options{CheckpointEvery: -1})
			defer j.Close()
			sess, err := j.Open(ctx, h.ID, serde.NewRegistry(), sets)
			if err != nil {
				return cli.Failf("cannot read session %s from %s: %v", cli.Printable(h.ID), st.Where, err)
			}
			defer sess.Close()
			var ask func(string) bool
			if !flags.Write && !flags.DryRun {
				ask = cli.AskOnTerminal(s.env.Stdin, s.env.Stdout)
			}
			return s.env.RunWriteBack(cli.WriteBack{
				Snapshot: sess.Snapshot(), Dir: dir, Flags: flags, Ask: ask,
				Out: s.env.Out(), Prefix: "offshoot sessions apply: ",
				Later: "run again with --write to write them",
			})
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "", "the directory to write the changes to: the one the session's files were copied from (default: the project directory)")
	flags.Add(cmd, "the session's file changes")
	s.addFlags(cmd)
	return cmd
}
