package sessionscmd

import (
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/cli"
	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/columns"
	"github.com/offshoot-dev/offshoot/store"
)

// defaultLimit is how many sessions list prints without --limit.
const defaultLimit = 20

// unknownWidth is the columns a first question is cut to when standard
// output is no terminal: a line stays readable, and bounded.
const unknownWidth = 120

// listedSession is a session as list --json prints it: its shape is documented
// in docs/cli.md, and stays.
type listedSession struct {
	ID            string    `json:"id"`
	Parent        string    `json:"parent,omitempty"`
	ForkSeq       uint64    `json:"fork_seq,omitempty"`
	Kind          string    `json:"kind"`
	FirstQuestion string    `json:"first_question"`
	Turns         int       `json:"turns"`
	Tokens        int64     `json:"tokens"`
	Created       time.Time `json:"created"`
	Updated       time.Time `json:"updated"`
	Seq           uint64    `json:"seq"`
	Waiting       bool      `json:"waiting,omitempty"`
}

func (s *sessions) listCommand() *cobra.Command {
	var all, asJSON bool
	limit := defaultLimit
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the stored sessions, the most recently active first",
		Long: fmt.Sprintf(`list prints the stored sessions, the most recently active first, by what a
person recognises: a short id (its first %d characters, which every command
that takes a session id accepts), run or chat, the questions answered
(turns), the tokens they spent, the last activity, and the first question,
cut to the terminal's width. Only the sessions that were not forked from
another are listed, unless --all (the forks, with where they were forked
from, and the sessions of the subagents, as agent).

At most --limit sessions are listed (%d by default); list says when more
are stored. --json prints them as one JSON object, whole, for scripts:
{"sessions": [{"id", "parent", "fork_seq", "kind", "first_question",
"turns", "tokens", "created", "updated", "seq", "waiting"}, …], "more":
false}. A session that waits for an answer ('offshoot sessions answer')
is listed as waiting ("run, waiting"; "waiting": true).`, cli.ShortLen, defaultLimit),
		Args: cli.Args(),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if limit < 1 {
				return cli.Usagef("--limit %d: give 1 or more", limit)
			}
			ctx := cmd.Context()
			st, err := s.open(ctx)
			if err != nil {
				return err
			}
			if st == nil {
				if asJSON {
					fmt.Fprintln(s.env.Stdout, `{"sessions":[],"more":false}`)
					return nil
				}
				fmt.Fprintf(s.env.Stdout, "no sessions stored yet (%s does not exist)\n", s.where())
				return nil
			}
			defer st.Close()
			hs, err := st.List(ctx, store.Query{Roots: !all, Limit: limit + 1})
			if err != nil {
				return cli.Failf("cannot list the sessions of %s: %v; remove a damaged session with 'offshoot sessions rm ID', or move the file away", st.Where, err)
			}
			more := len(hs) > limit
			hs = hs[:min(len(hs), limit)]
			if asJSON {
				return s.listJSON(hs, more)
			}
			if len(hs) == 0 {
				fmt.Fprintf(s.env.Stdout, "no sessions stored yet in %s\n", st.Where)
				return nil
			}
			s.listTable(hs, all)
			if more {
				fmt.Fprintln(s.env.Stdout, "more sessions are stored: give a larger --limit to list them")
			}
			return nil
		},
	}
	s.addFlags(cmd)
	cmd.Flags().BoolVar(&all, "all", false, "list the forks and the subagents' sessions too")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the sessions as JSON, whole, for scripts")
	cmd.Flags().IntVar(&limit, "limit", defaultLimit, "list at most this many sessions, the most recently active")
	return cmd
}

// listJSON prints hs as list --json does.
func (s *sessions) listJSON(hs []store.Header, more bool) error {
	out := struct {
		Sessions []listedSession `json:"sessions"`
		More     bool            `json:"more"`
	}{Sessions: make([]listedSession, 0, len(hs)), More: more}
	for _, h := range hs {
		sum := cli.Summarize(h)
		out.Sessions = append(out.Sessions, listedSession{
			ID: h.ID, Parent: h.Parent, ForkSeq: h.ForkSeq, Kind: sum.Kind, FirstQuestion: sum.Question,
			Turns: sum.Turns, Tokens: sum.Tokens, Created: h.Created, Updated: h.Updated, Seq: h.Seq, Waiting: sum.Waiting,
		})
	}
	b, err := json.Marshal(out)
	if err != nil {
		return cli.Failf("cannot print the sessions as JSON: %v", err)
	}
	_, err = fmt.Fprintf(s.env.Stdout, "%s\n", b)
	return err
}

// listTable prints hs as a table, each one's first question cut to the
// terminal's width; with forks, where each was forked from.
func (s *sessions) listTable(hs []store.Header, forks bool) {
	ids := shortIDs(hs)
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	header := "ID\tKIND\tTURNS\tTOKENS\tLAST ACTIVITY\t"
	if forks {
		header += "FORKED FROM\t"
	}
	fmt.Fprintln(tw, header+"FIRST QUESTION")
	for i, h := range hs {
		sum := cli.Summarize(h)
		kind := orDash(sum.Kind)
		if sum.Waiting {
			kind += ", waiting"
		}
		row := fmt.Sprintf("%s\t%s\t%s\t%s\t%s\t", ids[i], kind, count(sum.Turns), tokens(sum.Tokens), minute(h.Updated))
		if forks {
			from := "-"
			if h.Parent != "" {
				from = fmt.Sprintf("%s@%d", cli.Printable(cli.ShortID(h.Parent)), h.ForkSeq)
			}
			row += from + "\t"
		}
		// The question, on one line, is the last cell: tabwriter pads
		// none after it.
		fmt.Fprintln(tw, row+orDash(cli.Printable(sum.Question)))
	}
	_ = tw.Flush()
	width := s.env.TerminalWidth()
	if width <= 0 {
		width = unknownWidth
	}
	for line := range strings.Lines(b.String()) {
		fmt.Fprintln(s.env.Stdout, columns.Cut(strings.TrimSuffix(line, "\n"), width))
	}
}

// shortIDs returns the ids of hs as list prints them: each one's first
// cli.ShortLen characters, or more of it where two listed ids start
// alike.
func shortIDs(hs []store.Header) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		id := cli.ShortID(h.ID)
		for j, o := range hs {
			if j != i && o.ID != h.ID && strings.HasPrefix(o.ID, id) {
				id = h.ID // two alike: the whole id tells them apart
				break
			}
		}
		out[i] = cli.Printable(id)
	}
	return out
}

// minute returns t as list prints it, in local time, to the minute.
func minute(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.Local().Format("2006-01-02 15:04")
}

// count returns n, or "-" for none.
func count(n int) string {
	if n == 0 {
		return "-"
	}
	return fmt.Sprint(n)
}

// tokens returns n as a person reads it: 950, 12.3k, 4.1M; "-" for none.
func tokens(n int64) string {
	switch {
	case n == 0:
		return "-"
	case n < 1000:
		return fmt.Sprint(n)
	case n < 1_000_000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	default:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
