package chatcmd

import (
	"context"
	"slices"
	"strings"

	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/cli"
)

// apply shows the chat session's file changes as a unified diff with a
// summary and, after a yes typed at the chat's prompt, writes them to the
// directory the chat copied in (/apply --dry-run only shows them). A file
// that configures what runs next is written after a yes of its own, or
// when /apply names it with --write-config PATH. Files that cannot be
// written are named; the chat goes on.
func (c *chat) apply(ctx context.Context, arg string) {
	flags, ok := applyFlags(arg)
	if !ok {
		c.fail("/apply takes --dry-run and --write-config PATH (repeated), and nothing else; it shows the changes and asks before writing them")
		return
	}
	dir := c.flags.Dir
	if dir == "" {
		dir = c.env.ProjectDir
	}
	err := c.env.RunWriteBack(cli.WriteBack{
		Snapshot: c.client.Session().Snapshot(),
		Dir:      dir,
		Flags:    flags,
		Ask:      func(question string) bool { return c.confirm(ctx, question) },
		Out:      sayWriter{c},
		Prefix:   "offshoot chat: ",
	})
	if err != nil {
		c.fail("%v", err)
	}
}

// applyFlags reads /apply's argument: --dry-run, and --write-config PATH
// (or --write-config=PATH), repeated; false for anything else.
func applyFlags(arg string) (cli.WriteBackFlags, bool) {
	var flags cli.WriteBackFlags
	words := strings.Fields(arg)
	for i := 0; i < len(words); i++ {
		switch w := words[i]; {
		case w == "--dry-run":
			flags.DryRun = true
		case w == "--write-config" && i+1 < len(words):
			i++
			flags.WriteConfig = append(flags.WriteConfig, words[i])
		case strings.HasPrefix(w, "--write-config=") && len(w) > len("--write-config="):
			flags.WriteConfig = append(flags.WriteConfig, strings.TrimPrefix(w, "--write-config="))
		default:
			return cli.WriteBackFlags{}, false
		}
	}
	return flags, true
}

// confirm asks a yes-or-no question at the chat's prompt: the next line
// answers it.
func (c *chat) confirm(ctx context.Context, question string) bool {
	c.say("%s [y/N]", question)
	answer, err := c.read(ctx)
	if err != nil {
		return false
	}
	if c.in.Echoes() {
		c.say("%s%s", prompt, cli.Printable(answer))
	}
	return slices.Contains([]string{"y", "yes"}, strings.ToLower(strings.TrimSpace(answer)))
}

// sayWriter writes to the chat's output under its lock, a write at a
// time.
type sayWriter struct{ c *chat }

func (w sayWriter) Write(p []byte) (int, error) {
	w.c.outMu.Lock()
	defer w.c.outMu.Unlock()
	return w.c.in.Write(p)
}
