package transcriptscmd

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/cli"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/subagent/transcript"
)

// What show prints of a tool result, of a tool call's arguments, without
// --full.
const (
	resultLines = 6
	resultChars = 600
	argsChars   = 200
)

func showCommand(f *folder) *cobra.Command {
	var full bool
	cmd := &cobra.Command{
		Use:   "show ID",
		Short: "Print a subagent's record and its conversation",
		Long: `show prints the record of the subagent with the given id — its type, model,
mode, status, times and usage — then its conversation: the task it was given,
each answer with the tools it called, and each tool's result, cut to a few
lines unless --full is given. A start of an id of 8 characters or more,
as the tree prints it, is enough when no other id starts so.`,
		Args: cli.Args("ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			t, err := f.open(cmd)
			if err != nil {
				return err
			}
			tr, err := read(t, args[0])
			if errors.Is(err, fs.ErrNotExist) {
				return cli.Failf("no subagent %q left a transcript in %s%s; see the ids with %s", cli.PrintableID(args[0]), f.show(t), cli.Short(args[0]), f.listHint(cmd))
			}
			if _, ok := errors.AsType[*cli.ExitError](err); ok {
				return err
			}
			if err != nil {
				return cli.Failf("%v", err)
			}
			record(f.env, tr)
			conversation(f.env.Stdout, tr.Messages, full)
			return nil
		},
	}
	cmd.Flags().BoolVar(&full, "full", false, "print tool results and arguments whole")
	return cmd
}

// read reads the transcript of the agent id, or of the one agent whose id
// starts with id (see cli.IDs.Resolve).
func read(t transcript.Dir, id string) (*transcript.Transcript, error) {
	var first *transcript.Transcript
	ids := cli.IDs{
		Kind: "agent",
		Exists: func(id string) (bool, error) {
			tr, err := t.Read(id)
			if errors.Is(err, fs.ErrNotExist) {
				return false, nil
			}
			first = tr
			return err == nil, err
		},
		Starting: func(prefix string, limit int) ([]string, error) {
			metas, _ := t.List()
			var match []string
			for _, m := range metas {
				if strings.HasPrefix(m.AgentID, prefix) && !slices.Contains(match, m.AgentID) && len(match) < limit {
					match = append(match, m.AgentID)
				}
			}
			return match, nil
		},
	}
	whole, found, err := ids.Resolve(id)
	switch {
	case err != nil:
		return nil, err
	case !found:
		return nil, fs.ErrNotExist
	case first != nil:
		return first, nil
	}
	return t.Read(whole)
}

// record prints what the transcript's record says of its agent.
func record(env *cli.Env, tr *transcript.Transcript) {
	m := tr.Meta
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 1, ' ', 0)
	row := func(label, value string) { fmt.Fprintf(tw, "%s:\t%s\n", label, cli.Printable(value)) }
	row("agent", m.AgentID)
	row("type", orDash(m.Type))
	if m.Description != "" {
		row("description", oneLine(m.Description, 200))
	}
	row("model", orDash(m.Model))
	mode := m.Mode
	if m.Background {
		mode += ", in the background"
	}
	row("mode", mode)
	row("depth", fmt.Sprint(m.Depth))
	row("parent", orDash(m.ParentSessionID))
	row("root", orDash(m.RootSessionID))
	row("status", string(m.Status))
	if m.Error != "" {
		row("error", oneLine(m.Error, 400))
	}
	row("started", when(m.StartedAt))
	if !m.FinishedAt.IsZero() {
		row("finished", when(m.FinishedAt))
	} else {
		row("updated", when(m.UpdatedAt))
	}
	row("duration", took(m))
	row("runs", fmt.Sprint(m.Runs))
	u := m.Usage
	row("tokens", fmt.Sprintf("%d (its own %d: %d in, %d out)", u.Total.TotalTokens, u.Own.TotalTokens, u.Own.InputTokens, u.Own.OutputTokens))
	row("model calls", fmt.Sprint(u.ModelCalls))
	row("tool calls", toolCalls(u.ToolCalls))
	row("transcript", env.Show(tr.Path))
	_ = tw.Flush()
}

func toolCalls(calls map[string]int) string {
	if len(calls) == 0 {
		return "none"
	}
	var parts []string
	for _, name := range slices.Sorted(maps.Keys(calls)) {
		parts = append(parts, fmt.Sprintf("%s %d", name, calls[name]))
	}
	return strings.Join(parts, ", ")
}

// conversation prints the messages: the text of each, the tools an answer
// calls, each tool's result — cut unless full.
func conversation(w io.Writer, msgs []model.Message, full bool) {
	fmt.Fprintf(w, "\nconversation (%s):\n", plural(len(msgs), "message"))
	for _, m := range msgs {
		text := strings.TrimRight(cli.Printable(m.Content), "\n")
		switch m.Role {
		case model.RoleTool:
			label := "tool"
			if m.Name != "" {
				label += " " + cli.Printable(m.Name)
			}
			if !full {
				text = clipLines(text, resultLines, resultChars)
			}
			block(w, label, text)
		default:
			if text != "" || len(m.ToolCalls) == 0 {
				block(w, string(m.Role), text)
			}
		}
		for _, c := range m.ToolCalls {
			args := cli.Printable(c.Arguments)
			if !full {
				args = oneLine(args, argsChars)
			}
			fmt.Fprintf(w, "  %s → %s %s\n", m.Role, cli.Printable(c.Name), args)
		}
	}
}

// block prints a message: on the label's line when it is one line, below
// it, indented, otherwise.
func block(w io.Writer, label, text string) {
	if !strings.Contains(text, "\n") {
		fmt.Fprintf(w, "  %s: %s\n", label, text)
		return
	}
	fmt.Fprintf(w, "  %s:\n", label)
	for line := range strings.SplitSeq(text, "\n") {
		fmt.Fprintf(w, "      %s\n", line)
	}
}

// clipLines keeps the first n lines of s and at most chars characters,
// saying how much was left out.
func clipLines(s string, n, chars int) string {
	lines := strings.Split(s, "\n")
	left := 0
	if len(lines) > n {
		left = len(lines) - n
		lines = lines[:n]
	}
	out := strings.Join(lines, "\n")
	if r := []rune(out); len(r) > chars {
		out = string(r[:chars]) + "…"
	}
	if left > 0 {
		what := "lines"
		if left == 1 {
			what = "line"
		}
		out += fmt.Sprintf("\n… %d more %s (--full prints them)", left, what)
	}
	return out
}

// oneLine returns s on one line, its runs of white space made single
// spaces, cut at n characters.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		s = string(r[:n]) + "…"
	}
	return s
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
