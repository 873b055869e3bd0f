package chatcmd

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"strings"
	"sync/atomic"
	"text/tabwriter"

	"github.com/offshoot-dev/offshoot"
	"github.com/offshoot-dev/offshoot/agents"
	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/cli"
	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/columns"
)

// help lists the chat's commands.
const help = `  TEXT           a message to the main agent
  @NAME TEXT     ask the main agent to hand TEXT to the agent NAME with the Task tool
  (empty line)   have the main agent answer what background tasks reported since your last message
  /agents        list the agents
  /wait          wait until the background tasks have ended (Ctrl-C stops waiting)
  /compact [WHAT]  summarize the conversation so far, keeping WHAT in particular, to free the
                 model's context window (every message stays in the session)
  /save [FILE]   write the session's snapshot to FILE (default: --save's file)
  /apply         show the agents' file changes as a diff; write them to the directory after a yes
                 (--dry-run only shows them; --write-config PATH names a file that configures
                 what runs next, such as .envrc or a CI workflow, asked apart otherwise)
  /help          this list
  /exit          end the chat; so do Ctrl-D and, at the prompt, Ctrl-C`

// handle acts on one line; done is true when the chat ends.
func (c *chat) handle(ctx context.Context, line string) (done bool) {
	if _, waits := c.client.Waiting(); waits && !strings.HasPrefix(strings.TrimSpace(line), "/") {
		c.turnOf(ctx, false, line, func(tctx context.Context) iter.Seq[offshoot.Message] { return c.client.Answer(tctx, line) })
		return false
	}
	switch r := parse(line); r.kind {
	case command:
		return c.command(ctx, r)
	case mention:
		c.mention(ctx, r)
	default:
		c.turn(ctx, r.text, r.text)
	}
	return false
}

// command runs a slash command.
func (c *chat) command(ctx context.Context, r request) (done bool) {
	switch r.name {
	case "exit", "quit":
		return true
	case "help":
		c.say("%s", help)
		if lines := c.projectCommands(); lines != "" {
			c.say("the project's and your commands (.claude/commands):\n%s", lines)
		}
	case "agents":
		c.listAgents()
	case "wait":
		c.wait(ctx)
	case "apply":
		c.apply(ctx, r.text)
	case "compact":
		c.compact(ctx, r.text)
	case "save":
		path := r.text
		if path == "" {
			path = c.flags.Save
		}
		if path == "" {
			c.fail("/save needs a file, such as /save chat.json (or start the chat with --save FILE)")
			return false
		}
		if err := c.save(path); err != nil {
			c.fail("%v", err)
		}
	default:
		cmd, ok := c.env.Commands.Find(r.name)
		if !ok {
			c.fail("there is no command /%s; /help lists the commands", cli.Printable(r.name))
			return false
		}
		c.turnOf(ctx, false, "/"+r.name+" "+r.text, func(tctx context.Context) iter.Seq[offshoot.Message] {
			return c.client.QueryCommand(tctx, cmd, r.text)
		})
	}
	return false
}

// projectCommands lists the slash commands of the project and the user,
// one a line, as /help shows them; "" when there are none. A built-in
// command of the same name wins, and is not listed again.
func (c *chat) projectCommands() string {
	if c.env.Commands == nil {
		return ""
	}
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	for _, k := range c.env.Commands.All {
		if builtin[k.Name] {
			continue
		}
		use := "/" + k.Name
		if k.ArgumentHint != "" {
			use += " " + k.ArgumentHint
		}
		fmt.Fprintf(tw, "  %s\t%s (%s)\n", cli.Printable(use), cli.Printable(k.Description), k.Source)
	}
	_ = tw.Flush()
	return strings.TrimRight(b.String(), "\n")
}

// builtin are the chat's own commands, which win over a project's.
var builtin = map[string]bool{"exit": true, "quit": true, "help": true, "agents": true, "wait": true, "apply": true, "save": true}

// mention asks the main agent to hand the text to the agent named: a turn
// like any other, whose message says which agent the user addressed, so
// that the main agent calls Task with it and reads its answer. The agent
// must exist; the main agent needs the Task tool.
func (c *chat) mention(ctx context.Context, r request) {
	if r.name == "" {
		c.fail("@ needs an agent's name, such as @explore find the tests; /agents lists them")
		return
	}
	def, err := c.client.Agents().Find(r.name)
	var nf *agents.NotFoundError
	var diag *agents.Diagnostic
	switch {
	case errors.As(err, &nf):
		c.fail("no agent is called %s (the agents are %s); /agents lists them", cli.Printable(r.name), strings.Join(nf.Available, ", "))
		return
	case errors.As(err, &diag):
		c.fail("the agent %s did not load: %s; fix it and check with 'offshoot agents validate'", cli.Printable(r.name), cli.Printable(diag.Message))
		return
	case err != nil:
		c.fail("%v", err)
		return
	}
	if r.text == "" {
		c.fail("say what %s should do: @%s TEXT", def.Name, def.Name)
		return
	}
	c.turn(ctx, mentionPrompt(def.Name, r.text), "@"+def.Name+" "+r.text)
}

// mentionPrompt is the message of a turn the user addressed to an agent.
func mentionPrompt(agent, text string) string {
	return fmt.Sprintf("%s\n\n(The user addressed this message to the %s agent: hand it to that agent with the Task tool, "+
		"subagent_type %q, passing the message on in full, then tell the user what it answered.)", text, agent, agent)
}

// listAgents prints the agents the main agent can hand work to.
func (c *chat) listAgents() {
	c.outMu.Lock()
	defer c.outMu.Unlock()
	fmt.Fprint(c.in, agentTable(c.client.Agents().All(), c.env.TerminalWidth()))
	fmt.Fprintln(c.in, "  mention one with @NAME TEXT")
}

// agentTable returns the table /agents prints: each agent's name, source
// and the first line of its description, each line cut to width columns
// as every line of the chat is (to 80 characters of description when
// width is 0, off a terminal).
func agentTable(defs []agents.Definition, width int) string {
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "  NAME\tSOURCE\tDESCRIPTION")
	for _, d := range defs {
		fmt.Fprintf(w, "  %s\t%s\t%s\n", cli.Printable(d.Name), d.Source, cli.Printable(clip(d.Description, 80)))
	}
	_ = w.Flush()
	if width <= 0 {
		return b.String()
	}
	var out strings.Builder
	for line := range strings.Lines(b.String()) {
		out.WriteString(columns.Cut(strings.TrimSuffix(line, "\n"), width) + "\n")
	}
	return out.String()
}

// wait waits for the background tasks to end and what they reported to
// be told (see notified), those that have just ended included: their
// status is final before the chat is told, and the next line read before
// would have its turn read the report, told nowhere. Ctrl-C stops
// waiting, and the tasks go on.
func (c *chat) wait(ctx context.Context) {
	running := c.client.Tasks().Unreported()
	if len(running) == 0 {
		c.say("no background task is running")
		return
	}
	c.say("waiting for %s in the background (Ctrl-C stops waiting)", tasks(len(running)))
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var interrupted atomic.Bool
	restore := c.env.OnInterrupt(func() { interrupted.Store(true); cancel() })
	defer restore()
	if err := c.client.Tasks().Wait(wctx); err != nil && interrupted.Load() {
		c.say("stopped waiting; the tasks go on")
	}
}

// save writes the session's snapshot to path.
func (c *chat) save(path string) error {
	if err := cli.SaveSnapshot(path, c.client.Session()); err != nil {
		return err
	}
	c.say("saved the session to %s; read it with 'offshoot snapshot show %s'", path, path)
	return nil
}

// clip shortens s to its first line and at most n runes.
func clip(s string, n int) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
