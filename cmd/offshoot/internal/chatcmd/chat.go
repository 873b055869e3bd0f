// Package chatcmd is offshoot's chat command: an interactive session with
// a main agent that keeps its conversation in its session — each line a
// turn — with the project's agents a mention away (@name), background
// tasks that report when they end, and the session saved on request.
package chatcmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/spf13/cobra"

	"github.com/offshoot-dev/offshoot"
	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/cli"
	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/columns"
	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/progress"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/store"
	"github.com/offshoot-dev/offshoot/tools/vfs"
)

// Command returns the chat command.
func Command(env *cli.Env) *cobra.Command {
	c := &chat{env: env}
	cmd := &cobra.Command{
		Use:   "chat [flags] [--resume [ID]]",
		Short: "Talk with a main agent, turn by turn, with the project's agents a mention away",
		Long: `chat is a conversation with a main agent on the configured model, as run
has it: a copy of the directory (--dir, default: the project),
without .git, .offshoot, what may hold a secret and what .gitignore ignores
(see 'offshoot run --help'), the file and planning tools, Task, TaskOutput
and TaskStop over the agents, dispatch_subagent and the configured MCP
servers (a project's own .mcp.json once you approve it: chat asks). Each
line you type is a turn; the agent remembers the whole conversation.

  @NAME TEXT     ask the main agent to hand TEXT to the agent NAME (Task)
  /agents        list the agents
  /wait          wait for the background tasks to end
  /save [FILE]   write the session's snapshot (to --save's FILE by default)
  /apply         show the agents' file changes as a diff, then write them
                 to the directory after a yes (see 'offshoot run --help');
                 --dry-run, --write-config PATH as run takes them
  /help          list the commands
  /exit          end the chat (so do Ctrl-D and, at the prompt, Ctrl-C)

A background task says so when it ends; the main agent reads its report at
your next message, and an empty line has it answer at once. Ctrl-C during a
turn stops that turn and the agents it started; the chat goes on.

The conversation is kept in .offshoot/sessions.db in the project (--store
for another SQLite file or a postgres:// URL, --no-store for none); chat
says which session it is on standard error. --resume carries on your
session updated last (one run or chat made for you: not one that came in
a cloned repository's store), or the one of the id given (--resume ID);
its files are the session's, not copied again, and chat says how many of
the files it copied then changed on disk since. 'offshoot sessions' lists
them.

Lines are edited with the usual keys on a terminal, with a history; from a
pipe or a file they are read one by one, as typed.

Exit codes: 0 the chat ended, 1 it was stopped from outside or the session
could not be saved at the end, 2 a usage or configuration error.`,
		Example: `  offshoot chat
  offshoot chat --resume
  offshoot chat --agent code-reviewer --dir ./billing --save review.json
  printf 'What does main.go do?\n/save chat.json\n' | offshoot chat`,
		Args: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("resume") && len(args) <= 1 {
				return nil
			}
			return cli.Args()(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("resume") {
				c.flags.ResumeLast = true
				if c.flags.Resume == resumeLast {
					c.flags.Resume = ""
				}
				if len(args) == 1 {
					c.flags.Resume = args[0]
				}
			}
			c.flags.Kind = "chat"
			return c.run(cmd.Context())
		},
	}
	c.flags.Add(cmd)
	cmd.Flags().StringVar(&c.flags.Resume, "resume", "", "carry on the stored session of this id, or your one updated last when none is given (see 'offshoot sessions list')")
	cmd.Flags().Lookup("resume").NoOptDefVal = resumeLast
	cmd.Flags().BoolVar(&c.noColor, "no-color", false, "print without colours (they are used on a terminal only, and never with NO_COLOR set)")
	return cmd
}

// resumeLast is the value of --resume given without an id.
const resumeLast = "\x00last"

// chat is one invocation of the command.
type chat struct {
	env     *cli.Env
	flags   cli.AgentFlags
	noColor bool
	// adjust, when set, changes the client's options: tests give their
	// models.
	adjust func(*offshoot.Options)

	client *offshoot.Client
	in     input
	// turnMu guards turning and ended: while a turn runs, the tasks that
	// end are noted in ended, and told at its end only if the turn did not
	// read what they reported (one that ends after the turn's last model
	// call is read at the next message).
	turnMu  sync.Mutex
	turning bool
	ended   []string
	cancels []context.CancelFunc // of the turns, which their background tasks run under
	outMu   sync.Mutex
}

func (c *chat) run(ctx context.Context) error {
	if c.env.Ask == nil {
		c.env.Ask = cli.AskOnTerminal(c.env.Stdin, c.env.Stdout)
	}
	client, err := c.env.NewClient(ctx, c.flags, func(o *offshoot.Options) {
		o.OnTaskNotification = c.notified
		o.Context.ClearToolResults = clearAfterTurns
		if c.adjust != nil {
			c.adjust(o)
		}
	})
	if err != nil {
		return err
	}
	c.client = client
	defer c.env.CloseStore()
	defer client.Close()
	stopTelemetry, err := c.env.Telemetry(ctx, client.Session().Bus(), c.env.Provider())
	if err != nil {
		return err
	}
	defer stopTelemetry()
	if st := c.env.Stored; st != nil {
		fmt.Fprintln(c.env.Err(), cli.SessionLine("chat", client.Session().ID(), c.env.ResumedID != "", st.Where))
	}
	c.in = newInput(c.env)
	defer c.in.Close()
	stop := progress.Tree(client.Session().Bus(), c.in, progress.Options{Color: c.env.UseColor(c.noColor), Width: c.env.TerminalWidth()})
	defer stop()
	defer func() {
		for _, cancel := range c.cancels {
			cancel()
		}
	}()

	who := "the main agent"
	if c.flags.Agent != "" {
		who = "the " + cli.Printable(c.flags.Agent) + " agent"
	}
	dir := c.flags.Dir
	if dir == "" {
		dir = c.env.ProjectDir
	}
	if c.env.ResumedID != "" {
		c.say("offshoot chat: %s, with the files of the stored session (%s), not copied from %s again", who, files(vfs.Files(client.Session()).Len()), dir)
		c.sayDrift(client.Session().Snapshot(), dir)
	} else {
		c.say("offshoot chat: %s, with %s of %s copied in", who, files(vfs.Files(client.Session()).Len()), dir)
	}
	if left := c.env.Copied.Summary(); left != "" {
		c.say("offshoot chat: %s", cli.Printable(left))
	}
	if replaced := c.env.ReplacedBuiltins(client.Agents()); replaced != "" {
		c.say("offshoot chat: %s", replaced)
	}
	for _, l := range c.env.ProjectLines() {
		c.say("offshoot chat: %s", l)
	}
	c.say("type a message; @NAME TEXT hands TEXT to an agent; /help lists the commands; /exit or Ctrl-D ends")
	c.sayWaiting()

	for {
		text, err := c.read(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			if ctx.Err() != nil {
				c.end()
				return cli.Failf("the chat was stopped from outside; the session ends with it")
			}
			return cli.Failf("%v", err)
		}
		if c.in.Echoes() {
			c.say("%s%s", prompt, cli.Printable(text))
		}
		if done := c.handle(ctx, text); done {
			break
		}
	}
	return c.end()
}

// sayDrift says whether dir changed since the resumed session copied its
// files in: how many of them differ on disk now (see vfs.DiskDrift).
func (c *chat) sayDrift(snap session.Snapshot, dir string) {
	d, err := vfs.DiskDrift(snap, dir)
	switch {
	case err != nil:
		c.say("offshoot chat: cannot tell whether %s changed since the session copied it in: %v", dir, err)
	case d.Copied == 0:
	case d.Changed == 0 && !d.Partial:
		c.say("offshoot chat: %s is as it was when the session copied it in", dir)
	default:
		n := fmt.Sprint(d.Changed)
		if d.Partial {
			n = "at least " + n
		}
		c.say("offshoot chat: since the session copied %s in, files it copied changed there: %s of %d (edited or removed); /apply leaves such a file as it is on disk", dir, n, d.Copied)
	}
}

// read waits for the next line; Ctrl-C meanwhile ends the chat, as at a
// terminal's prompt.
func (c *chat) read(ctx context.Context) (string, error) {
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var interrupted atomic.Bool
	restore := c.env.OnInterrupt(func() { interrupted.Store(true); cancel() })
	defer restore()
	text, err := c.in.ReadLine(rctx)
	if err != nil && interrupted.Load() && ctx.Err() == nil {
		return "", io.EOF
	}
	return text, err
}

// end stops the background tasks still running, saves the session when
// --save says so, and says what it did.
func (c *chat) end() error {
	if running := c.client.Tasks().Running(); len(running) > 0 {
		c.say("stopping %s still running in the background", tasks(len(running)))
		c.client.Tasks().StopAll()
	}
	if c.flags.Save != "" {
		if err := c.save(c.flags.Save); err != nil {
			return cli.Failf("%v", err)
		}
	}
	return nil
}

// turn runs one query of prompt, the line typed (typed) as the main
// agent is to read it. Ctrl-C stops it and the agents it started; the
// background tasks it starts otherwise run on after it, until the chat
// ends.
func (c *chat) turn(ctx context.Context, prompt, typed string) {
	c.turnOf(ctx, prompt == "", typed, func(tctx context.Context) iter.Seq[offshoot.Message] { return c.client.Query(tctx, prompt) })
}

// turnOf runs one query, which query starts (a prompt's or a slash
// command's), as turn says; empty is set for an empty line.
func (c *chat) turnOf(ctx context.Context, empty bool, typed string, query func(context.Context) iter.Seq[offshoot.Message]) {
	tctx, cancel := context.WithCancel(ctx)
	c.cancels = append(c.cancels, cancel)
	var interrupted atomic.Bool
	restore := c.env.OnInterrupt(func() { interrupted.Store(true); cancel() })
	c.turnMu.Lock()
	c.turning = true
	c.turnMu.Unlock()
	var res offshoot.ResultMessage
	compacted := session.Len[runner.Compacted](c.client.Session())
	defer c.sayCompactions(compacted)
	for msg := range query(tctx) {
		if m, ok := msg.(offshoot.ResultMessage); ok {
			res = m
		}
	}
	c.turnMu.Lock()
	c.turning = false
	ended := c.ended
	c.ended = nil
	c.turnMu.Unlock()
	if len(ended) > 0 && unread(c.client.Session()) {
		for _, id := range ended {
			c.readLater(id)
		}
	}
	restore()
	if !errors.Is(res.Err, offshoot.ErrNothingToContinue) {
		c.env.NoteTurn(context.WithoutCancel(ctx), c.client.Session().ID(), typed, int64(res.Usage.TotalTokens))
	}
	_, waits := c.client.Waiting()
	c.env.NoteWaiting(context.WithoutCancel(ctx), c.client.Session().ID(), waits)
	switch {
	case res.Err == nil:
	case waits:
		c.sayWaiting()
	case errors.Is(res.Err, offshoot.ErrNothingToContinue):
		if empty {
			return // an empty line with nothing new to read
		}
		c.fail("%v", res.Err)
	case interrupted.Load():
		c.say("stopped the turn (Ctrl-C), with the agents it started; say what to do next")
	case ctx.Err() != nil:
	default:
		what, todo := cli.Explain(res.Err)
		if !errors.Is(res.Err, store.ErrConflict) { // saying it again would conflict again
			todo += "; or say it again, or /exit"
		}
		if c.env.Verbose {
			c.fail("the turn failed: %s; %s\n  the error in full: %s", what, todo, cli.Chain(res.Err))
		} else {
			c.fail("the turn failed: %s; %s", what, todo)
		}
	}
}

// sayWaiting shows the question the session waits on, if any: the next
// line typed is its answer.
func (c *chat) sayWaiting() {
	w, ok := c.client.Waiting()
	if !ok {
		return
	}
	c.say("the agent asks:\n%s", indent(cli.Printable(w.Question)))
	c.say("your next line is the answer (a line starting with / is a command)")
}

// indent puts two spaces before each line of text.
func indent(text string) string {
	return "  " + strings.ReplaceAll(text, "\n", "\n  ")
}

// notified tells, between turns, that a background task ended; the tree
// has printed its line. During a turn the main agent reads it at once.
func (c *chat) notified(_ context.Context, n offshoot.TaskNotificationMessage) {
	c.turnMu.Lock()
	if c.turning {
		c.ended = append(c.ended, n.TaskID)
		c.turnMu.Unlock()
		return
	}
	c.turnMu.Unlock()
	c.readLater(n.TaskID)
}

// readLater tells that what task id reported waits for the next message.
func (c *chat) readLater(id string) {
	c.say("  the main agent reads what task %s reported at your next message; an empty line has it answer now", cli.Printable(id))
}

// unread reports whether the session holds messages from background
// tasks that no evaluation has read yet.
func unread(s *session.Session) bool {
	read, _ := session.Latest[runner.InboundRead](s)
	return session.Len[runner.Inbound](s) > read.Upto
}

// say prints a line for the user, wrapped to the terminal.
func (c *chat) say(format string, args ...any) {
	c.outMu.Lock()
	defer c.outMu.Unlock()
	fmt.Fprintln(c.in, columns.Fill(fmt.Sprintf(format, args...), c.env.TerminalWidth()))
}

// fail prints an error line; the chat goes on.
func (c *chat) fail(format string, args ...any) {
	fmt.Fprintf(c.env.Err(), "offshoot: "+format+"\n", args...)
}

func files(n int) string {
	if n == 1 {
		return "1 file"
	}
	return fmt.Sprintf("%d files", n)
}

func tasks(n int) string {
	if n == 1 {
		return "1 task"
	}
	return fmt.Sprintf("%d tasks", n)
}
