package chatcmd

import (
	"context"
	"slices"
	"strings"

	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/cli"
)

// apply shows the chat session's file changes as a unified diff with a
// summary and, after a yes typed at the chat's prompt, writes them to the
// directory the chat copied in (/apply --dry-run only shows them). Files
// that cannot be written are named; the chat goes on.
func (c *chat) apply(ctx context.Context, arg string) {
	var flags cli.WriteBackFlags
	switch arg {
	case "":
	case "--dry-run":
		flags.DryRun = true
	default:
		c.fail("/apply takes no argument but --dry-run; it shows the changes and asks before writing them")
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
