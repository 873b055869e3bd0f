package transcriptscmd

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/cli"
	"github.com/offshoot-dev/offshoot/subagent/transcript"
)

func pruneCommand(f *folder) *cobra.Command {
	var olderThan string
	cmd := &cobra.Command{
		Use:   "prune --older-than AGE",
		Short: "Remove the transcripts of subagents not heard from for a while",
		Long: `prune removes the files of every subagent none of whose files changed for
AGE — days such as 30d, a Go duration such as 12h or 90m, or both, such as
1d12h — and the folders it leaves empty, then prints what it removed.`,
		Args: cli.Args(),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !cmd.Flags().Changed("older-than") {
				return cli.Usagef("prune needs --older-than AGE, such as --older-than 30d; nothing was removed")
			}
			age, err := cli.ParseAge(olderThan)
			if err != nil {
				return cli.Usagef("--older-than %s: %v; nothing was removed", cli.Printable(olderThan), err)
			}
			t, err := f.open(cmd)
			if err != nil {
				return err
			}
			return prune(f, t, olderThan, time.Now().Add(-age))
		},
	}
	cmd.Flags().StringVar(&olderThan, "older-than", "", "remove what has not changed for this long: 30d, 12h, 1d12h")
	return cmd
}

// prune removes the transcripts untouched since before and prints those
// it removed: the records listed before and gone after.
func prune(f *folder, t transcript.Dir, age string, before time.Time) error {
	type key struct{ root, agent string }
	listed, _ := t.List()
	n, err := t.Prune(before)
	left, _ := t.List()
	kept := map[key]bool{}
	for _, m := range left {
		kept[key{m.RootSessionID, m.AgentID}] = true
	}
	shown := 0
	for _, m := range listed {
		if kept[key{m.RootSessionID, m.AgentID}] {
			continue
		}
		shown++
		fmt.Fprintf(f.env.Stdout, "removed %s (%s, %s, started %s)\n", cli.Printable(m.AgentID), cli.Printable(orDash(m.Type)),
			cli.Printable(string(m.Status)), when(m.StartedAt))
	}
	if n > shown {
		fmt.Fprintf(f.env.Stdout, "removed %s without a readable record\n", plural(n-shown, "more transcript"))
	}
	switch {
	case n == 0:
		fmt.Fprintf(f.env.Stdout, "nothing to prune: no transcript in %s is older than %s\n", f.show(t), cli.Printable(age))
	default:
		fmt.Fprintf(f.env.Stdout, "removed %s older than %s from %s\n", plural(n, "transcript"), cli.Printable(age), f.show(t))
	}
	if err != nil {
		return cli.Failf("some transcripts could not be removed: %v; check the folder's permissions and run prune again", err)
	}
	return nil
}
