package snapshotcmd

import (
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/cli"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/serde"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/tools/planning"
	"github.com/offshoot-dev/offshoot/tools/vfs"
)

func showCommand(env *cli.Env) *cobra.Command {
	var full bool
	cmd := &cobra.Command{
		Use:   "show FILE",
		Short: "Summarize a saved session: identity, slices, conversations, files and plan",
		Long: `show prints a readable summary of the session snapshot saved in FILE: its
identity, each slice with its number of items, the conversation of every
evaluation it recorded, the files of its virtual filesystem and its plan.
Messages are cut to one line; --full prints them whole.`,
		Args: cli.Args("FILE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			reg, err := Registry()
			if err != nil {
				return cli.Failf("%v; this is a bug, please report it", err)
			}
			snap, err := read(args[0], reg)
			if err != nil {
				return fail(cli.ExitFailed, err)
			}
			return show(env.Stdout, args[0], snap, reg, full)
		},
	}
	cmd.Flags().BoolVar(&full, "full", false, "print messages whole instead of their first line")
	return cmd
}

func show(w io.Writer, file string, snap session.Snapshot, reg *serde.Registry, full bool) error {
	tw := tabwriter.NewWriter(w, 0, 4, 1, ' ', 0)
	row := func(label, value string) { fmt.Fprintf(tw, "%s:\t%s\n", label, value) }
	row("snapshot", file)
	row("session", cli.Printable(snap.SessionID()))
	row("parent", orNone(cli.Printable(snap.ParentID())))
	row("children", orNone(cli.Printable(strings.Join(snap.ChildIDs(), ", "))))
	row("created", snap.CreatedAt().Format(time.RFC3339))
	row("tags", tags(snap.Tags()))
	if err := tw.Flush(); err != nil {
		return err
	}
	return Summary(w, snap, reg, full)
}

// Summary prints what a session's state holds, as 'offshoot snapshot show'
// does after its header: each slice with its number of items, the
// conversation of every evaluation, the files and the plan. Messages are
// cut to one line unless full. reg names the slices' types.
func Summary(w io.Writer, snap session.Snapshot, reg *serde.Registry, full bool) error {
	types := snap.Types()
	slices.SortFunc(types, func(a, b reflect.Type) int { return strings.Compare(reg.Name(a), reg.Name(b)) })
	fmt.Fprintf(w, "\nslices (%d):\n", len(types))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	for _, t := range types {
		fmt.Fprintf(tw, "%d\t  %s\n", snap.Len(t), reg.Name(t))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	conversations(w, snap, full)
	files(w, snap)
	plan(w, snap)
	return nil
}

// conversations prints every evaluation's conversation, with what it
// spent over all its queries.
func conversations(w io.Writer, snap session.Snapshot, full bool) {
	evals := runner.Evaluations(snap)
	if len(evals) == 0 {
		return
	}
	sums := spending(snap)
	fmt.Fprintf(w, "\nconversations (%d):\n", len(evals))
	wait, waits := waiting(snap)
	for _, id := range evals {
		msgs := runner.Conversation(snap, id)
		head := "  " + cli.Printable(id)
		s := sums[id]
		if s.ns != "" || s.key != "" {
			head += fmt.Sprintf(" (%s/%s)", cli.Printable(s.ns), cli.Printable(s.key))
		}
		head += ": " + plural(len(msgs), "message", "messages")
		if s.queries > 1 {
			head += ", " + plural(s.queries, "query", "queries")
		}
		if s.finished > 0 {
			head += fmt.Sprintf(", %s, %s, %s", plural(s.turns, "model turn", "model turns"),
				plural(s.toolCalls, "tool call", "tool calls"), plural(s.tokens, "token", "tokens"))
		}
		switch {
		case waits && wait.Evaluation == id:
			head += fmt.Sprintf(", waiting for an answer to its %s call: %s", cli.Printable(wait.Tool), clipLine(cli.Printable(wait.Question)))
		case s.finished > 0 && s.finished >= s.queries:
			head += ", finished"
		case s.queries > 1:
			head += fmt.Sprintf(", %d of %d queries finished", s.finished, s.queries)
		}
		fmt.Fprintln(w, head)
		for _, m := range msgs {
			message(w, m, full)
		}
	}
}

// spent is what an evaluation's queries spent. Continuing a conversation
// (Request.Continue) records another PromptRendered and, when the query
// ends, another PromptExecuted under the same evaluation id: the counts
// are the sums over the queries that ended, and finished counts those that
// succeeded.
type spent struct {
	ns, key                  string
	queries, finished        int
	turns, toolCalls, tokens int
}

// spending sums the records of each evaluation of snap.
func spending(snap session.Snapshot) map[string]spent {
	sums := map[string]spent{}
	for v := range snap.Items(reflect.TypeFor[runner.PromptRendered]()) {
		r := v.(runner.PromptRendered)
		s := sums[r.Evaluation]
		s.ns, s.key = r.NS, r.Key
		s.queries++
		sums[r.Evaluation] = s
	}
	for v := range snap.Items(reflect.TypeFor[runner.PromptExecuted]()) {
		e := v.(runner.PromptExecuted)
		s := sums[e.Evaluation]
		if e.Succeeded() {
			s.finished++
		}
		s.turns += e.Turns
		s.toolCalls += e.ToolCalls
		s.tokens += e.Usage.TotalTokens
		sums[e.Evaluation] = s
	}
	return sums
}

// waiting returns what snap waits for, when it waits for an answer (see
// runner.Waiting).
func waiting(snap session.Snapshot) (runner.Waiting, bool) {
	var last runner.Waiting
	for v := range snap.Items(reflect.TypeFor[runner.Waiting]()) {
		last = v.(runner.Waiting)
	}
	return last, last.CallID != "" && !last.Answered
}

// clipLine is the first line of text, cut to 100 characters.
func clipLine(text string) string {
	line, _, _ := strings.Cut(text, "\n")
	if r := []rune(line); len(r) > 100 {
		return string(r[:99]) + "…"
	}
	return line
}

// plural returns n with the singular or the plural noun, as n asks.
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// message prints one message of a conversation: its role, then its text
// on one line (whole with full), and each tool call.
func message(w io.Writer, m model.Message, full bool) {
	role := string(m.Role)
	if m.Role == model.RoleTool && m.Name != "" {
		role = "tool " + cli.Printable(m.Name)
	}
	text := m.Content
	if !full {
		text = oneLine(text, 100)
	} else {
		text = cli.Printable(capped(text, maxShownBytes))
	}
	switch {
	case text == "" && len(m.ToolCalls) > 0:
	case full && strings.Contains(text, "\n"):
		fmt.Fprintf(w, "    %s:\n", role)
		for line := range strings.SplitSeq(strings.TrimRight(text, "\n"), "\n") {
			fmt.Fprintf(w, "      %s\n", line)
		}
	default:
		fmt.Fprintf(w, "    %s: %s\n", role, text)
	}
	for _, c := range m.ToolCalls {
		args := cli.Printable(capped(c.Arguments, maxShownBytes))
		if !full {
			args = oneLine(c.Arguments, 80)
		}
		fmt.Fprintf(w, "    %s → %s %s\n", m.Role, cli.Printable(c.Name), args)
	}
}

// files prints the files of the snapshot's virtual filesystem.
func files(w io.Writer, snap session.Snapshot) {
	table := vfs.FilesOf(snap)
	if table.Len() == 0 {
		return
	}
	fmt.Fprintf(w, "\nfiles (%d):\n", table.Len())
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for f := range table.All() {
		fmt.Fprintf(tw, "  %s\t%s\tversion %d\n", cli.Printable(f.Path), size(f.SizeBytes()), f.Version)
	}
	_ = tw.Flush()
}

// plan prints the snapshot's plan.
func plan(w io.Writer, snap session.Snapshot) {
	p, ok := planning.PlanOf(snap)
	if !ok || !p.Exists() {
		return
	}
	fmt.Fprintf(w, "\nplan: %s (%s, %d of %d steps done)\n", oneLine(p.Objective, 240), p.Status, p.Done(), len(p.Steps))
	for _, s := range p.Steps {
		fmt.Fprintf(w, "  %s [%s] %s\n", s.StepID, s.Status, oneLine(s.Title, 160))
		for _, n := range s.Notes {
			fmt.Fprintf(w, "       note: %s\n", oneLine(n, 512))
		}
	}
}

// maxShownBytes bounds what --full prints of one message or tool call's
// arguments: a snapshot may hold a message of many megabytes.
const maxShownBytes = 64 << 10

// capped returns s cut to n bytes at a character boundary, saying how
// much more there is.
func capped(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf(" … (%s more not shown)", size(len(s)-cut))
}

// oneLine returns s on one line, its runs of white space made single
// spaces, cut at n characters, with control characters escaped. Only the
// start of a long s is looked at.
func oneLine(s string, n int) string {
	if len(s) > 8*n+64 {
		s = strings.ToValidUTF8(s[:8*n+64], "")
	}
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		s = string(r[:n]) + "…"
	}
	return cli.Printable(s)
}

func size(n int) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d B", n)
	case n < 1024*1024:
		return fmt.Sprintf("%.1f KiB", float64(n)/1024)
	default:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1024*1024))
	}
}

func tags(m map[string]string) string {
	if len(m) == 0 {
		return "none"
	}
	var out []string
	for k, v := range m {
		out = append(out, k+"="+v)
	}
	slices.Sort(out)
	return oneLine(strings.Join(out, ", "), 1000)
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
