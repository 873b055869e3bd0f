package transcriptscmd

import (
	"fmt"
	"slices"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/cli"
	"github.com/offshoot-dev/offshoot/subagent/transcript"
)

func listCommand(f *folder) *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List the subagents that left a transcript, newest first",
		Long: `list prints one line per subagent that left a transcript, newest first: its
id, its type (an agent type, or the namespace/key of a dispatched prompt), its
status, when it started, how long it ran and the tokens it spent, its own
subagents' included. A record that cannot be read is a warning.`,
		Args: cli.Args(),
		RunE: func(cmd *cobra.Command, _ []string) error {
			t, err := f.open(cmd)
			if err != nil {
				return err
			}
			metas, err := t.List()
			if err != nil {
				f.env.Warn("%v; remove what cannot be read, or prune it with 'offshoot transcripts prune'", err)
			}
			if len(metas) == 0 {
				fmt.Fprintf(f.env.Stdout, "no transcripts in %s\n", f.show(t))
				return nil
			}
			slices.Reverse(metas)
			return table(f.env, metas)
		},
	}
}

func table(env *cli.Env, metas []transcript.Meta) error {
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "AGENT\tTYPE\tSTATUS\tSTARTED\tDURATION\tTOKENS")
	for _, m := range metas {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\n", cli.Printable(m.AgentID), cli.Printable(orDash(m.Type)), cli.Printable(string(m.Status)),
			when(m.StartedAt), took(m), m.Usage.Total.TotalTokens)
	}
	return tw.Flush()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
