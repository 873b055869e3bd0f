package sessionscmd

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/cli"
	"github.com/offshoot-dev/offshoot/store"
)

func (s *sessions) pruneCommand() *cobra.Command {
	var olderThan string
	cmd := &cobra.Command{
		Use:   "prune --older-than AGE",
		Short: "Remove the stored sessions not updated for a while",
		Long: `prune removes the stored sessions not updated for AGE — days such as 30d, a
Go duration such as 12h or 90m, or both, such as 1d12h — then prints what it
removed. A session that a more recent one was forked from is kept, so that
the recent one stays whole.`,
		Args: cli.Args(),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !cmd.Flags().Changed("older-than") {
				return cli.Usagef("prune needs --older-than AGE, such as --older-than 30d; nothing was removed")
			}
			age, err := cli.ParseAge(olderThan)
			if err != nil {
				return cli.Usagef("--older-than %s: %v; nothing was removed", cli.Printable(olderThan), err)
			}
			ctx := cmd.Context()
			st, err := s.open(ctx)
			if err != nil {
				return err
			}
			if st == nil {
				fmt.Fprintf(s.env.Stdout, "nothing to prune: no sessions stored yet (%s does not exist)\n", s.where())
				return nil
			}
			defer st.Close()
			return s.prune(ctx, st, cli.Printable(olderThan), time.Now().Add(-age))
		},
	}
	s.addFlags(cmd)
	cmd.Flags().StringVar(&olderThan, "older-than", "", "remove what was not updated for this long: 30d, 12h, 1d12h")
	return cmd
}

// prune removes the sessions of st last updated before before, the forks
// first; one that a session kept was forked from is kept. Each old
// session is tried once, after the old sessions forked from it were: a
// chain of forks takes a pass, however its sessions are listed. Sessions
// whose forks loop back to them (a damaged store) are kept.
func (s *sessions) prune(ctx context.Context, st *cli.Stored, age string, before time.Time) error {
	old, err := st.List(ctx, store.Query{UpdatedBefore: before})
	if err != nil {
		return cli.Failf("cannot list the sessions of %s: %v", st.Where, err)
	}
	index := make(map[string]int, len(old))
	for i, h := range old {
		index[h.ID] = i
	}
	// parent returns the index of the old session h was forked from.
	parent := func(h store.Header) (int, bool) {
		p, ok := index[h.Parent]
		return p, ok && h.Parent != h.ID
	}
	forks := make([]int, len(old)) // of each, the old sessions forked from it not tried yet
	for _, h := range old {
		if p, ok := parent(h); ok {
			forks[p]++
		}
	}
	var ready []int // the old sessions whose old forks were all tried
	for i, h := range old {
		if forks[i] == 0 && h.Parent != h.ID {
			ready = append(ready, i)
		}
	}
	removed, kept, tried := 0, 0, 0
	for len(ready) > 0 {
		h := old[ready[len(ready)-1]]
		ready = ready[:len(ready)-1]
		tried++
		switch err := st.Delete(ctx, h.ID); {
		case err == nil:
			removed++
			fmt.Fprintf(s.env.Stdout, "removed %s (updated %s)\n", cli.Printable(h.ID), when(h.Updated))
		case errors.Is(err, store.ErrHasChildren):
			kept++
		case errors.Is(err, store.ErrNotFound):
		default:
			return cli.Failf("cannot remove session %s: %v", cli.Printable(h.ID), err)
		}
		if p, ok := parent(h); ok {
			if forks[p]--; forks[p] == 0 {
				ready = append(ready, p)
			}
		}
	}
	if removed == 0 {
		fmt.Fprintf(s.env.Stdout, "nothing to prune: no session in %s is older than %s\n", st.Where, age)
	} else {
		fmt.Fprintf(s.env.Stdout, "removed %s older than %s from %s\n", plural(removed, "session"), age, st.Where)
	}
	if kept > 0 {
		fmt.Fprintf(s.env.Stdout, "kept %s that more recent sessions were forked from\n", plural(kept, "older session"))
	}
	if loops := len(old) - tried; loops > 0 {
		fmt.Fprintf(s.env.Stdout, "kept %s forked from each other in a loop: %s is damaged; 'offshoot sessions list --all' shows them\n", plural(loops, "older session"), st.Where)
	}
	return nil
}
