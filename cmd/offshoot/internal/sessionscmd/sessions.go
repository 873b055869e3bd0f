// Package sessionscmd is offshoot's sessions command: it reads and manages
// the sessions run and chat keep in a store (.offshoot/sessions.db in the
// project by default) — lists them, shows one's state and its history,
// forks one at a past seq, removes them.
package sessionscmd

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"

	"github.com/google/uuid"
	"github.com/spf13/cobra"

	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/cli"
	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/snapshotcmd"
	"github.com/offshoot-dev/offshoot/serde"
	"github.com/offshoot-dev/offshoot/store"
	"github.com/offshoot-dev/offshoot/store/journal"
)

// Command returns the sessions command and its subcommands.
func Command(env *cli.Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sessions",
		Short: "Read and manage the stored sessions of run and chat: list, show, history, fork, compact, rm, prune, apply, answer",
		Long: `run and chat keep their sessions in a store: .offshoot/sessions.db in the
project by default, another SQLite file or a postgres:// URL with --store.
A session is the log of what it committed, batch by batch (a model turn, a
tool's result…), numbered by seq; a fork starts from another session at one
of its seqs, and subagents' sessions are stored as forks of their parent's.
These commands read that store (never creating it) and manage it; carry a
session on with 'offshoot chat --resume ID', and a run that waits for an
answer with 'offshoot sessions answer ID ANSWER'.`,
	}
	cli.Group(cmd)
	s := &sessions{env: env}
	cmd.AddCommand(s.listCommand(), s.showCommand(), s.historyCommand(), s.forkCommand(), s.compactCommand(), s.rmCommand(), s.pruneCommand(), s.applyCommand())
	return cmd
}

// sessions is what the subcommands share: the environment and the store
// flags.
type sessions struct {
	env   *cli.Env
	flags cli.StoreFlags
}

// addFlags adds the store flags to cmd.
func (s *sessions) addFlags(cmd *cobra.Command) {
	s.flags.Add(cmd, "read the sessions of")
}

// open opens the store, or returns nil when it is a file not made yet.
func (s *sessions) open(ctx context.Context) (*cli.Stored, error) {
	if s.flags.Off {
		return nil, cli.Usagef("--no-store: the sessions commands read a store; leave it out for %s, or give another with --store", cli.SessionsPath)
	}
	return s.env.OpenStore(ctx, s.flags, true)
}

// openFor opens the store to read or change stored sessions: a store not
// made yet is a usage error.
// find opens the store and finds the session id in it; close the store
// when done.
func (s *sessions) find(ctx context.Context, id string) (*cli.Stored, store.Header, error) {
	st, err := s.openFor(ctx)
	if err != nil {
		return nil, store.Header{}, err
	}
	h, err := cli.FindSession(ctx, st, id, "", "")
	if err != nil {
		st.Close()
		return nil, store.Header{}, err
	}
	return st, h, nil
}

func (s *sessions) openFor(ctx context.Context) (*cli.Stored, error) {
	st, err := s.open(ctx)
	if err != nil || st != nil {
		return st, err
	}
	return nil, cli.Usagef("no sessions stored yet: %s does not exist; run or chat stores them", s.where())
}

// where names the store as a person reads it.
func (s *sessions) where() string {
	if s.flags.DSN == "" {
		return cli.SessionsPath
	}
	return s.env.StoreFile(s.flags)
}

func (s *sessions) showCommand() *cobra.Command {
	var full bool
	cmd := &cobra.Command{
		Use:   "show ID",
		Short: "Summarize a stored session: header, conversations, files and plan",
		Long: `show prints a stored session's header — its parent and fork seq, when it was
created and updated, its last seq, its tags, how many sessions were forked
from it — then a summary of its state as 'offshoot snapshot show' prints
one: its slices, the conversation of every evaluation, its files and its
plan. Messages are cut to one line; --full prints them whole.`,
		Args: cli.Args("ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			st, h, err := s.find(ctx, args[0])
			if err != nil {
				return err
			}
			defer st.Close()
			forks, err := st.List(ctx, store.Query{Parent: h.ID})
			if err != nil {
				return cli.Failf("cannot list the sessions of %s: %v", st.Where, err)
			}
			sets, err := cli.SessionReducers()
			if err != nil {
				return cli.Failf("offshoot's tools: %v; this is a bug, please report it", err)
			}
			j := journal.New(st, journal.Options{CheckpointEvery: -1})
			defer j.Close()
			reg := serde.NewRegistry()
			sess, err := j.Open(ctx, h.ID, reg, sets)
			if err != nil {
				return cli.Failf("cannot read session %s from %s: %v", cli.Printable(h.ID), st.Where, err)
			}
			defer sess.Close()

			w := s.env.Stdout
			tw := tabwriter.NewWriter(w, 0, 4, 1, ' ', 0)
			row := func(label, value string) { fmt.Fprintf(tw, "%s:\t%s\n", label, value) }
			row("session", cli.Printable(h.ID))
			if h.Parent != "" {
				row("parent", fmt.Sprintf("%s at seq %d", cli.Printable(h.Parent), h.ForkSeq))
			} else {
				row("parent", "none")
			}
			row("forks", fmt.Sprint(len(forks)))
			row("created", when(h.Created))
			row("updated", when(h.Updated))
			row("seq", fmt.Sprint(h.Seq))
			row("tags", tagList(h.Tags))
			row("store", st.Where)
			if err := tw.Flush(); err != nil {
				return err
			}
			return snapshotcmd.Summary(w, sess.Snapshot(), reg, full)
		},
	}
	s.addFlags(cmd)
	cmd.Flags().BoolVar(&full, "full", false, "print messages whole instead of their first line")
	return cmd
}

func (s *sessions) historyCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "history ID",
		Short: "List a stored session's batches: seqs, time and event types",
		Long: `history prints a stored session's log, one line per batch (what one commit
of the session stored): the seqs of its events, when it was committed, and
the types of its events. A fork's log starts after the seq it was forked
at; the lines before are its parent's. A session can be forked where a
batch ends (sessions fork ID --at SEQ).`,
		Args: cli.Args("ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			st, h, err := s.find(ctx, args[0])
			if err != nil {
				return err
			}
			defer st.Close()
			w := s.env.Stdout
			if h.Parent != "" {
				fmt.Fprintf(w, "forked from %s at seq %d\n", cli.Printable(h.Parent), h.ForkSeq)
			}
			tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "SEQ\tTIME\tEVENTS")
			for b, err := range st.Batches(ctx, h.ID, 0, 0) {
				if err != nil {
					_ = tw.Flush()
					return cli.Failf("cannot read the log of session %s: %v", cli.Printable(h.ID), err)
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\n", seqs(b), when(b.Time), eventTypes(b.Events))
			}
			return tw.Flush()
		},
	}
	s.addFlags(cmd)
	return cmd
}

func (s *sessions) forkCommand() *cobra.Command {
	var at uint64
	var newID string
	cmd := &cobra.Command{
		Use:   "fork ID --at SEQ [--id NEWID]",
		Short: "Start a new session from a stored one as it was at a seq",
		Long: `fork stores a new session that starts from session ID as it was at seq SEQ,
where one of its batches ends (see 'offshoot sessions history ID'), and
prints the new session's id; the original is untouched. Nothing is copied:
the new session reads ID's log up to SEQ. Carry it on with 'offshoot chat
--resume NEWID'.`,
		Args: cli.Args("ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !cmd.Flags().Changed("at") {
				return cli.Usagef("fork needs --at SEQ, where a batch of the session ends; 'offshoot sessions history %s' lists them", cli.PrintableID(args[0]))
			}
			ctx := cmd.Context()
			if strings.ContainsFunc(newID, unicode.IsControl) || newID != strings.TrimSpace(newID) {
				return cli.Usagef("--id %q: an id is typed back later; give one without control characters or spaces around it", newID)
			}
			st, h, err := s.find(ctx, args[0])
			if err != nil {
				return err
			}
			defer st.Close()
			if err := checkAt(ctx, st, h, at); err != nil {
				return err
			}
			if newID == "" {
				newID = uuid.NewString()
			}
			switch err := store.Fork(ctx, st, h.ID, at, newID); {
			case errors.Is(err, store.ErrExists):
				return cli.Usagef("--id %s: a session of that id is stored already; give another, or leave --id out for a new one", cli.Printable(newID))
			case errors.Is(err, store.ErrInvalid):
				return cli.Usagef("--id: %s; give another, or leave --id out for a new one", cli.Printable(strings.TrimPrefix(err.Error(), "store: ")))
			case err != nil:
				return cli.Failf("cannot fork session %s: %v", cli.Printable(h.ID), err)
			}
			if err := st.SetTags(ctx, newID, cli.ForkTags(h.Tags)); err != nil {
				s.env.Warn("the new session %s counts the questions of %s: %v", cli.Printable(newID), cli.Printable(h.ID), err)
			}
			fmt.Fprintln(s.env.Stdout, cli.Printable(newID))
			return nil
		},
	}
	s.addFlags(cmd)
	cmd.Flags().Uint64Var(&at, "at", 0, "the seq to fork at: where a batch ends (see 'offshoot sessions history ID')")
	cmd.Flags().StringVar(&newID, "id", "", "the new session's id (default: a new random one)")
	return cmd
}

// checkAt returns a usage error when h cannot be forked at seq at: past
// its end, before its own log, or inside one of its batches.
func checkAt(ctx context.Context, st *cli.Stored, h store.Header, at uint64) error {
	id := cli.Printable(h.ID)
	switch {
	case at > h.Seq:
		return cli.Usagef("--at %d: session %s ends at seq %d; fork it at %d or before, where a batch ends", at, id, h.Seq, h.Seq)
	case at < h.ForkSeq:
		return cli.Usagef("--at %d: session %s starts at seq %d, where it was forked from %s; fork %s at %d instead",
			at, id, h.ForkSeq, cli.Printable(h.Parent), cli.Printable(h.Parent), at)
	case at == h.ForkSeq || at == h.Seq:
		return nil
	}
	for b, err := range st.Batches(ctx, h.ID, 0, 0) {
		if err != nil {
			return cli.Failf("cannot read the log of session %s: %v", id, err)
		}
		if b.Last() < at {
			continue
		}
		if b.Last() == at {
			return nil
		}
		return cli.Usagef("--at %d is inside a batch of session %s (seqs %s): fork at %d or %d, where batches end; 'offshoot sessions history %s' lists them",
			at, id, seqs(b), b.Seq-1, b.Last(), id)
	}
	return nil // Fork says what is wrong
}

func (s *sessions) rmCommand() *cobra.Command {
	var tree bool
	cmd := &cobra.Command{
		Use:   "rm ID [--tree]",
		Short: "Remove a stored session",
		Long: `rm removes a stored session: its header, its log and its checkpoints. A
session that others were forked from (its forks, its subagents' sessions)
is removed only with --tree, which removes them too, however deep.`,
		Args: cli.Args("ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			st, h, err := s.find(ctx, args[0])
			if err != nil {
				if tree {
					return err
				}
				return s.rmDamaged(ctx, args[0], err)
			}
			defer st.Close()
			id := cli.Printable(h.ID)
			forks, err := st.List(ctx, store.Query{Parent: h.ID})
			if err != nil {
				return cli.Failf("cannot list the sessions of %s: %v", st.Where, err)
			}
			if len(forks) > 0 && !tree {
				were := "were"
				if len(forks) == 1 {
					were = "was"
				}
				return cli.Usagef("%s %s forked from session %s (its forks or its subagents'); remove them with it with --tree, or remove them first; nothing was removed",
					plural(len(forks), "session"), were, id)
			}
			if err := store.DeleteTree(ctx, st, h.ID); err != nil {
				return cli.Failf("cannot remove session %s: %v", id, err)
			}
			if len(forks) > 0 {
				fmt.Fprintf(s.env.Stdout, "removed session %s and the sessions forked from it\n", id)
			} else {
				fmt.Fprintf(s.env.Stdout, "removed session %s\n", id)
			}
			return nil
		},
	}
	s.addFlags(cmd)
	cmd.Flags().BoolVar(&tree, "tree", false, "remove the sessions forked from it too, however deep")
	return cmd
}

// rmDamaged removes session id when finding it failed (why) because its
// header is stored but cannot be read: a damaged session must not stay
// for good. The store still refuses when sessions were forked from it.
// Any other failure is why.
func (s *sessions) rmDamaged(ctx context.Context, id string, why error) error {
	st, err := s.openFor(ctx)
	if err != nil {
		return why
	}
	defer st.Close()
	if _, err := st.Header(ctx, id); err == nil || errors.Is(err, store.ErrNotFound) {
		return why
	}
	if err := st.Delete(ctx, id); err != nil {
		return cli.Failf("%v; removing it anyway failed too: %v", why, err)
	}
	fmt.Fprintf(s.env.Stdout, "removed session %s, whose header was damaged\n", cli.Printable(id))
	return nil
}

// seqs returns the seqs of a batch's events: "5" or "5-9".
func seqs(b store.Batch) string {
	if b.Last() == b.Seq {
		return fmt.Sprint(b.Seq)
	}
	return fmt.Sprintf("%d-%d", b.Seq, b.Last())
}

// eventTypes returns the types of events in order, a run of one type
// counted: "runner.Delta×12, runner.ModelTurn".
func eventTypes(events []store.Event) string {
	var out []string
	for i := 0; i < len(events); {
		j := i + 1
		for j < len(events) && events[j].Type == events[i].Type {
			j++
		}
		t := cli.Printable(events[i].Type)
		if j-i > 1 {
			t += fmt.Sprintf("×%d", j-i)
		}
		out = append(out, t)
		i = j
	}
	return strings.Join(out, ", ")
}

// when returns t as a person reads it, in local time.
func when(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.Local().Format("2006-01-02 15:04:05")
}

// tagList returns tags as k=v pairs, sorted, or "-".
// tagList lists a session's tags but the owner token (cli.OwnerTag),
// which is bookkeeping, and better not shown where it may be copied.
func tagList(m map[string]string) string {
	var out []string
	for k, v := range m {
		if k != cli.OwnerTag {
			out = append(out, cli.Printable(k+"="+v))
		}
	}
	if len(out) == 0 {
		return "-"
	}
	slices.Sort(out)
	return strings.Join(out, ",")
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
