package cli

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/tools/vfs"
)

// WriteBackFlags are the flags of the commands that write a session's
// file changes back to a directory (run, snapshot apply, sessions apply;
// chat's /apply takes them too): --write writes them, --dry-run only
// shows them; with neither, the user is asked at a terminal, and
// elsewhere they are only shown. A file that configures what runs next
// (a CI workflow, .envrc, .claude, .mcp.json, a git hook, …) is written
// only when named with --write-config, or after a yes of its own at a
// terminal.
type WriteBackFlags struct {
	// Write writes the changes without asking (--write).
	Write bool
	// DryRun only shows them (--dry-run).
	DryRun bool
	// WriteConfig names the files that configure what runs next to write
	// too (--write-config PATH, repeated).
	WriteConfig []string
}

// writeConfigFlag is the flag that names a file that configures what
// runs next.
const writeConfigFlag = "--write-config"

// Add registers --write, --dry-run and --write-config on cmd; what says
// whose changes they are ("the agents' file changes").
func (f *WriteBackFlags) Add(cmd *cobra.Command, what string) {
	cmd.Flags().BoolVar(&f.Write, "write", false, "write "+what+" to the directory, without asking (files changed on disk meanwhile are left, and make exit code 1)")
	cmd.Flags().BoolVar(&f.DryRun, "dry-run", false, "only show "+what+" as a diff; write nothing")
	cmd.Flags().StringArrayVar(&f.WriteConfig, writeConfigFlag[2:], nil, "write the file `PATH` (relative to the directory) too, though it configures what runs next (a CI workflow, .envrc, .claude, .mcp.json, an editor's tasks, a git hook: left unless named); repeat it for each")
}

// Check returns a usage error when the flags contradict each other; call
// it before the command does anything.
func (f WriteBackFlags) Check() error {
	if f.Write && f.DryRun {
		return Usagef("--write writes the changes and --dry-run only shows them; give one or the other")
	}
	return nil
}

// WriteBack is one showing (and maybe writing) of a session's changes.
type WriteBack struct {
	// Snapshot holds the session's files and what was mounted.
	Snapshot session.Snapshot
	// Dir is the directory the changes are written to.
	Dir string
	// Flags say whether to write.
	Flags WriteBackFlags
	// Ask, when not nil, asks the user whether to write (without --write
	// or --dry-run); nil where no one can answer.
	Ask func(question string) bool
	// Out receives the diff and what happened; Prefix starts each line
	// about it ("offshoot run: ").
	Out    io.Writer
	Prefix string
	// Later says how to write the changes later, when they were only
	// shown ("run again with --write"); empty for nothing.
	Later string
}

// RunWriteBack shows the changes of the session against what was mounted as a
// unified diff and a summary, then writes them as the flags (or the
// user) say. Files that cannot be written — changed on disk since they
// were mounted, excluded, behind a symbolic link — are named and left;
// they make an ExitFailed error, with --dry-run too. The diff is made
// printable: a file's content cannot act on the terminal.
func (e *Env) RunWriteBack(w WriteBack) error {
	if err := w.Flags.Check(); err != nil {
		return err
	}
	plan, err := vfs.PlanWriteBack(w.Snapshot, w.Dir)
	if err != nil {
		return Failf("cannot compare the session's files with %s: %v", w.Dir, err)
	}
	say := func(format string, args ...any) {
		fmt.Fprintf(w.Out, w.Prefix+format+"\n", args...)
	}
	if err := nameConfiguration(plan, w.Flags.WriteConfig); err != nil {
		return err
	}
	if len(plan.Changes) == 0 {
		say("the files have no changes to write to %s", e.Show(plan.Dir))
		return nil
	}
	if d := plan.Diff(); d != "" {
		fmt.Fprint(w.Out, Printable(d))
	}
	waiting := paths(plan.Configuration())
	if len(waiting) > 0 {
		say("%s what runs next (CI, git hooks, editor tasks, agents' settings, MCP servers), written only when named: %s", configure(len(waiting)), Printable(strings.Join(waiting, ", ")))
		fmt.Fprint(w.Out, Printable(plan.ConfigurationDiff()))
	}
	summary := Printable(plan.Summary())
	writable := plan.Pending()
	write := w.Flags.Write
	switch {
	case w.Flags.DryRun || writable == 0 && (len(waiting) == 0 || w.Ask == nil):
	case write:
	case w.Ask != nil:
		if writable > 0 {
			write = w.Ask(fmt.Sprintf("Write these changes to %s (%s)?", e.Show(plan.Dir), summary))
		}
		if (write || writable == 0) && len(waiting) > 0 &&
			w.Ask(fmt.Sprintf("Also write the %s what runs next: %s?", configure(len(waiting)), Printable(strings.Join(waiting, ", ")))) {
			if err := plan.Allow(waiting...); err != nil {
				return Failf("%v; this is a bug, please report it", err)
			}
			write = true
		}
	}
	conflicts := func() {
		if d := plan.ConflictDiff(); d != "" {
			say("the files changed on disk since they were copied in, against the session's version, to merge by hand:")
			fmt.Fprint(w.Out, Printable(d))
		}
	}
	if !write {
		say("not written to %s: %s", e.Show(plan.Dir), summary)
		if writable > 0 && w.Later != "" {
			say("%s", w.Later)
		}
		if left := plan.Left(); len(left) > 0 {
			conflicts()
			return Failf("%s cannot be written to %s: %s%s", files(len(left)), e.Show(plan.Dir), leftList(left), nameHint(plan))
		}
		return nil
	}
	err = plan.Apply()
	say("wrote to %s: %s", e.Show(plan.Dir), Printable(plan.Summary()))
	if err != nil {
		conflicts()
		left := plan.Left()
		return Failf("%s not written, left unchanged on disk: %s; make those changes by hand, or run again on the files as they are now%s", files(len(left)), leftList(left), nameHint(plan))
	}
	return nil
}

// nameConfiguration lets the plan write the files that configure what
// runs next that names names: a name that is not one of them is a usage
// error, and none is written.
func nameConfiguration(plan *vfs.WriteBack, names []string) error {
	if len(names) == 0 {
		return nil
	}
	waiting := paths(plan.Configuration())
	for _, n := range names {
		if !slices.Contains(waiting, n) {
			those := "the changes have none"
			if len(waiting) > 0 {
				those = "those are: " + strings.Join(waiting, ", ")
			}
			return Usagef("%s %s: it is not a file that configures what runs next among the changes; %s", writeConfigFlag, Printable(n), Printable(those))
		}
	}
	if err := plan.Allow(names...); err != nil {
		return Failf("%v; this is a bug, please report it", err)
	}
	return nil
}

// nameHint says how to write the files that configure what runs next
// that are still left; "" when none is.
func nameHint(plan *vfs.WriteBack) string {
	if len(plan.Configuration()) == 0 {
		return ""
	}
	return "; to write the files that configure what runs next, name each with " + writeConfigFlag + " PATH"
}

// configure returns "1 file that configures" or "N files that
// configure".
func configure(n int) string {
	if n == 1 {
		return "1 file that configures"
	}
	return fmt.Sprintf("%d files that configure", n)
}

// paths returns the paths of changes.
func paths(changes []vfs.Change) []string {
	out := make([]string, 0, len(changes))
	for _, c := range changes {
		out = append(out, c.Path)
	}
	return out
}

// leftList names the changes left, with why.
func leftList(left []vfs.Change) string {
	parts := make([]string, 0, len(left))
	for _, c := range left {
		parts = append(parts, fmt.Sprintf("%s (%s)", c.Path, c.Left))
	}
	return Printable(strings.Join(parts, ", "))
}

// files returns "1 file" or "N files".
func files(n int) string {
	if n == 1 {
		return "1 file"
	}
	return fmt.Sprintf("%d files", n)
}
