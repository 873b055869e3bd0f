package snapshotcmd

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/cli"
	"github.com/offshoot-dev/offshoot/session"
)

func diffCommand(env *cli.Env) *cobra.Command {
	return &cobra.Command{
		Use:   "diff A B",
		Short: "Show how the state of two saved sessions differs",
		Long: `diff compares the slices of the session snapshots saved in A and B, item by
item, and prints a paragraph for each slice that differs: the items only A
has (-), the items only B has (+) and the items that changed, as compared.

What says which run an item belongs to, or when it happened, is not
compared, so two runs of the same task that did the same work are equal:
the session's own identity (ids, children, tags, time) and, inside items,
the fields listed below. Where one of those ids, or a time, appears inside
a text (a tool's result, a task's notification), it reads <id> or <time>.

` + fieldList() + `

Like diff(1), it exits with 0 when the states are equal, 1 when they differ
and 2 when a file cannot be read.`,
		Args: cli.Args("A", "B"),
		RunE: func(cmd *cobra.Command, args []string) error {
			reg, err := Registry()
			if err != nil {
				return fail(cli.ExitUsage, fmt.Errorf("%w; this is a bug, please report it", err))
			}
			var snaps [2]session.Snapshot
			for i, path := range args {
				if snaps[i], err = read(path, reg); err != nil {
					return fail(cli.ExitUsage, err)
				}
			}
			d, err := compare(snaps[0], snaps[1], reg.Name)
			if err != nil {
				return fail(cli.ExitUsage, fmt.Errorf("%w; this is a bug, please report it", err))
			}
			d = cli.Printable(clipLines(d, maxDiffLine))
			if d == "" {
				fmt.Fprintf(env.Stdout, "no differences in state between %s and %s\n", args[0], args[1])
				return nil
			}
			for i, mark := range []string{"---", "+++"} {
				fmt.Fprintf(env.Stdout, "%s %s (session %s)\n", mark, args[i], cli.Printable(snaps[i].SessionID()))
			}
			fmt.Fprint(env.Stdout, d)
			if !strings.HasSuffix(d, "\n") {
				fmt.Fprintln(env.Stdout)
			}
			return cli.Silent(cli.ExitFailed)
		},
	}
}

// maxDiffLine bounds the printed width of one line of a diff: a value of
// many megabytes is shown cut, saying how much more it holds.
const maxDiffLine = 2000

// clipLines cuts every line of s longer than n bytes (see capped).
func clipLines(s string, n int) string {
	if len(s) <= n {
		return s
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = capped(l, n)
	}
	return strings.Join(lines, "\n")
}
