package sessionscmd

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/cli"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/serde"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/store/journal"
)

// mainPrompt is the main agent's prompt in the records of run and chat.
const mainPrompt = "offshoot/main"

func (s *sessions) compactCommand() *cobra.Command {
	var guidance string
	cmd := &cobra.Command{
		Use:   "compact ID [--keep WHAT]",
		Short: "Summarize a stored session's conversation, to free its model's context window",
		Long: `compact runs a summary turn on the light model over the main agent's
conversation in session ID, all but its last turns, and stores it: 'chat
--resume ID' then goes on from the summary. Nothing is removed: every
message stays in the session's log, and 'offshoot sessions fork ID --at SEQ',
with the seq compact prints, carries on from before the compaction.`,
		Args: cli.Args("ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			st, h, err := s.find(ctx, args[0])
			if err != nil {
				return err
			}
			defer st.Close()
			router, err := s.env.Models()
			if err != nil {
				return err
			}
			light, err := router.Resolve(model.Light, nil)
			if err != nil {
				return cli.Failf("compact writes the summary with the light model: %v", err)
			}
			sets, err := cli.SessionReducers()
			if err != nil {
				return cli.Failf("offshoot's tools: %v; this is a bug, please report it", err)
			}
			j := journal.New(st, journal.Options{})
			defer j.Close()
			sess, err := j.Open(ctx, h.ID, serde.NewRegistry(), sets)
			if err != nil {
				return cli.Failf("cannot read session %s from %s: %v", cli.Printable(h.ID), st.Where, err)
			}
			defer sess.Close()
			eval := ""
			for r := range session.All[runner.PromptRendered](sess) {
				if r.NS+"/"+r.Key == mainPrompt {
					eval = r.Evaluation
				}
			}
			if eval == "" {
				return cli.Usagef("session %s holds no conversation of run or chat's main agent to compact", cli.Printable(h.ID))
			}
			done, err := runner.Compact(ctx, runner.Request{Session: sess, Continue: eval, Model: light, ModelName: model.Light},
				strings.TrimSpace(guidance))
			switch {
			case errors.Is(err, runner.ErrNothingToCompact):
				return cli.Usagef("session %s: nothing to compact: its conversation holds no more than its last turns, which a compaction keeps", cli.Printable(h.ID))
			case err != nil:
				return cli.Failf("cannot compact session %s: %v", cli.Printable(h.ID), err)
			}
			fmt.Fprintf(s.env.Stdout, "compacted session %s: %d → %d tokens of context\nto undo it: offshoot sessions fork %s --at %d\n",
				cli.Printable(h.ID), done.TokensBefore, done.TokensAfter, cli.Printable(h.ID), done.Seq)
			return nil
		},
	}
	s.addFlags(cmd)
	cmd.Flags().StringVar(&guidance, "keep", "", "what the summary should keep in particular")
	return cmd
}
