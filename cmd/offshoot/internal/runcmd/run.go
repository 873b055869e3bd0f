// Package runcmd is offshoot's run command: one task for a main agent on
// the configured model, over a copy of a directory, with the
// project's agents (Task, TaskOutput, TaskStop), dispatch_subagent and the
// configured MCP servers — printed as a tree while it happens, or as JSON
// lines. It waits for the background tasks the run starts and has the
// main agent read what they report before it ends, then shows the files
// it changed as a diff and writes them back when asked to.
package runcmd

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"strings"

	"github.com/spf13/cobra"

	"github.com/offshoot-dev/offshoot"
	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/cli"
	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/columns"
	"github.com/offshoot-dev/offshoot/cmd/offshoot/internal/progress"
	"github.com/offshoot-dev/offshoot/project"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/tools/vfs"
)

// maxRounds bounds the queries that read background tasks' notifications
// after the task's own: each may start more tasks, and a model must not
// keep the run going forever.
const maxRounds = 10

// Command returns the run command.
func Command(env *cli.Env) *cobra.Command {
	r := &run{env: env}
	cmd := &cobra.Command{
		Use:   "run [flags] TASK",
		Short: "Run a task with a main agent on the configured model",
		Long: `run hands TASK to a main agent on the configured model (LLM_MODEL_ID,
LLM_API_KEY and LLM_BASE_URL, LIGHT_LLM_* for the light model, or "models" in
~/.offshoot/config.json or .offshoot/config.json) and prints what happens as
it happens.

The agent works on a copy of the directory (--dir, default: the project).
Left out of the copy, at any depth and whatever the case: .git, the agents'
configuration (.claude and offshoot's own .offshoot folders), files that
may hold a secret (.env files, .ssh, .aws, keys, credentials, .npmrc,
.netrc and the like), what .gitignore ignores, and files that are not
UTF-8 text; the run says how many it left out, and why.

At the end, run shows the files the agents created, edited and deleted as a
unified diff, and writes them to the directory with --write, or after a yes
at a terminal; --dry-run only shows them. A file changed on disk since the
run copied it is left as it is on disk, and so is anything excluded from
the copy or behind a symbolic link; run names them and exits with 1. A
file that configures what runs next (a CI workflow, .envrc, .claude,
.mcp.json, an editor's tasks, a git hook) is listed apart and written only
when named with --write-config PATH, or after a yes of its own at a
terminal.

The agent has the file and planning tools, Task, TaskOutput and TaskStop
over the project's, the user's and the built-in agents, dispatch_subagent,
and the tools of the configured MCP servers (a project's own .mcp.json only
once you approved it with --approve-mcp). The background tasks it starts are
waited for, and it reads what they report before the run ends.

The session is kept in .offshoot/sessions.db in the project (--store for
another SQLite file or a postgres:// URL, --no-store for none), and run says
which on standard error: carry it on with 'offshoot chat --resume ID', read
it with 'offshoot sessions show ID'.

Ctrl-C stops the run and every agent it started, and says so; a second
Ctrl-C exits at once.

When the agent asks the user a question (AskUserQuestion), run asks it at
a terminal and goes on with the answer. Where no one can answer (standard
input or output is no terminal) the run waits: it prints the question and
how to answer, keeps the session, and exits with 3; 'offshoot sessions
answer ID "ANSWER"' carries it on from there, with the rest of the run.

Exit codes: 0 the task is done, 1 the run failed or was interrupted (with
what to do next), or files could not be written back, 2 a usage or
configuration error, such as no model configured, 3 the run waits for an
answer.`,
		Example: `  offshoot run "Summarize what the billing module does"
  offshoot run --agent code-reviewer --dir ./billing "Review the tax rules"
  offshoot run --write "Fix the typos in the README"
  offshoot run --json --save run.json "List the TODOs" > events.jsonl`,
		Args: cli.Args("TASK"),
		RunE: func(cmd *cobra.Command, args []string) error {
			r.task = args[0]
			r.flags.Kind, r.flags.Task = "run", r.task
			return r.run(cmd.Context())
		},
	}
	r.flags.Add(cmd)
	r.writeFlags.Add(cmd, "the agents' file changes")
	cmd.Flags().BoolVar(&r.json, "json", false, "print every event as a JSON line instead of the tree, and nothing else on standard output")
	cmd.Flags().BoolVar(&r.noColor, "no-color", false, "print without colours (they are used on a terminal only, and never with NO_COLOR set)")
	return cmd
}

// run is one invocation of the command.
type run struct {
	env     *cli.Env
	flags   cli.AgentFlags
	json    bool
	noColor bool
	task    string
	// answer, when set, carries on the stored session that waits for it
	// (sessions answer) instead of running task.
	answer string

	// writeFlags are --write and --dry-run (see writeBack).
	writeFlags cli.WriteBackFlags

	// adjust, when set, changes the client's options: tests give their
	// models.
	adjust func(*offshoot.Options)
}

func (r *run) run(ctx context.Context) error {
	if strings.TrimSpace(r.task) == "" && r.answer == "" {
		return cli.Usagef("the task is empty; say what the agent should do, such as offshoot run \"Summarize the README\"")
	}
	if err := r.writeFlags.Check(); err != nil {
		return err
	}
	client, err := r.env.NewClient(ctx, r.flags, r.adjust)
	if err != nil {
		return err
	}
	defer r.env.CloseStore()
	defer client.Close()
	if _, waits := client.Waiting(); r.answer != "" && !waits {
		return cli.Usagef("session %s waits for no answer: nothing was asked, or it was answered already; carry it on with 'offshoot chat --resume %s'", cli.Printable(client.Session().ID()), cli.Printable(client.Session().ID()))
	}
	stopTelemetry, err := r.env.Telemetry(ctx, client.Session().Bus(), r.env.Provider())
	if err != nil {
		return err
	}
	defer stopTelemetry()
	if st := r.env.Stored; st != nil {
		fmt.Fprintln(r.env.Err(), cli.SessionLine("run", client.Session().ID(), r.answer != "", st.Where))
	}
	out := r.env.Out()
	var stop func()
	if r.json {
		stop = progress.JSON(client.Session().Bus(), out)
		if left := r.env.Copied.Summary(); left != "" {
			r.say("%s", cli.Printable(left))
		}
		if replaced := r.env.ReplacedBuiltins(client.Agents()); replaced != "" {
			r.say("%s", replaced)
		}
		for _, l := range r.env.ProjectLines() {
			r.say("%s", l)
		}
	} else {
		stop = progress.Tree(client.Session().Bus(), out, progress.Options{Color: r.env.UseColor(r.noColor), Width: r.env.TerminalWidth()})
		if r.answer != "" {
			r.say("%s goes on with your answer, with the files of the stored session (%s)", r.who(), filesOf(client))
		} else {
			r.say("%s, with %s of %s copied in", r.who(), filesOf(client), r.dir())
		}
		if left := r.env.Copied.Summary(); left != "" {
			r.say("%s", cli.Printable(left))
		}
		if replaced := r.env.ReplacedBuiltins(client.Agents()); replaced != "" {
			r.say("%s", replaced)
		}
		for _, l := range r.env.ProjectLines() {
			r.say("%s", l)
		}
		fmt.Fprintln(out)
	}
	tokens, err := r.work(ctx, client)
	r.env.NoteTurn(context.WithoutCancel(ctx), client.Session().ID(), r.task, tokens)
	w, waits := client.Waiting()
	r.env.NoteWaiting(context.WithoutCancel(ctx), client.Session().ID(), waits)
	// The tasks still running when the run failed or was interrupted end
	// with it, and the tree shows them end.
	client.Tasks().StopAll()
	stop()
	if r.flags.Save != "" {
		if serr := cli.SaveSnapshot(r.flags.Save, client.Session()); serr != nil {
			return cli.Failf("%v", serr)
		}
		r.say("saved the session to %s; read it with 'offshoot snapshot show %s'", r.flags.Save, r.flags.Save)
	}
	if waits && errors.Is(err, errWaiting) {
		for _, l := range cli.Waiting(w, client.Session().ID(), r.flags) {
			r.say("%s", l)
		}
		if r.env.Stored == nil {
			r.say("no session is stored (--no-store), so the answer cannot come later: run the task again without --no-store, or at a terminal")
		} else {
			r.say("the files the agents changed stay in the session until the run ends")
		}
		return cli.Silent(cli.ExitWaiting)
	}
	if err != nil && ctx.Err() != nil {
		return cli.Failf("the run was interrupted: it stopped, with every agent it started; run it again to start over")
	}
	if err != nil {
		return err
	}
	return r.writeBack(client)
}

// work runs the task, then lets the background tasks it started finish and
// has the main agent read what they report, as often as they start more,
// up to maxRounds times. It returns the tokens its queries spent.
func (r *run) work(ctx context.Context, client *offshoot.Client) (tokens int64, err error) {
	first := client.Query(ctx, r.task)
	if r.answer != "" {
		first = client.Answer(ctx, r.answer)
	} else if name, args, ok := project.ParseCommandLine(r.task); ok {
		cmd, found := r.env.Commands.Find(name)
		if !found {
			return 0, cli.Usagef("there is no command /%s (.claude/commands/%s.md); to send a task that begins with /, begin it with a space", cli.Printable(name), cli.Printable(name))
		}
		first = client.QueryCommand(ctx, cmd, args)
	}
	res := result(first)
	tokens += int64(res.Usage.TotalTokens)
	if _, ok := errors.AsType[*runner.Waiting](res.Err); ok {
		return tokens, errWaiting
	}
	if err := r.failed(res); err != nil {
		return tokens, err
	}
	for round := 0; ; round++ {
		running := client.Tasks().Running()
		if round == maxRounds {
			if len(running) > 0 {
				r.say("stopping %s still running: the main agent has read what its background tasks reported %d times", tasks(len(running)), maxRounds)
				client.Tasks().StopAll()
			}
			return tokens, nil
		}
		if len(running) > 0 {
			r.say("waiting for %s the main agent started in the background (Ctrl-C stops them)", tasks(len(running)))
			if err := client.Tasks().Wait(ctx); err != nil {
				return tokens, err
			}
		}
		res := query(ctx, client, "")
		tokens += int64(res.Usage.TotalTokens)
		if errors.Is(res.Err, offshoot.ErrNothingToContinue) {
			return tokens, nil
		}
		if _, ok := errors.AsType[*runner.Waiting](res.Err); ok {
			return tokens, errWaiting
		}
		if err := r.failed(res); err != nil {
			return tokens, err
		}
	}
}

// errWaiting is work's error when the run stopped to wait for an answer
// (Client.Waiting says to what).
var errWaiting = errors.New("the run waits for an answer")

// query runs one query to its end and returns its result. The messages
// themselves are printed from the session's bus.
func query(ctx context.Context, client *offshoot.Client, prompt string) offshoot.ResultMessage {
	return result(client.Query(ctx, prompt))
}

// result runs a query's messages to their end and returns its result.
func result(msgs iter.Seq[offshoot.Message]) offshoot.ResultMessage {
	var res offshoot.ResultMessage
	for msg := range msgs {
		if m, ok := msg.(offshoot.ResultMessage); ok {
			res = m
		}
	}
	return res
}

// failed returns the error of a query that failed: what happened and
// what to do, in a sentence each; the whole chain with --verbose.
func (r *run) failed(res offshoot.ResultMessage) error {
	if res.Err == nil {
		return nil
	}
	what, todo := cli.Explain(res.Err)
	if r.env.Verbose {
		return cli.Failf("the run failed: %s; %s\n  the error in full: %s", what, todo, cli.Chain(res.Err))
	}
	return cli.Failf("the run failed: %s; %s", what, todo)
}

// say prints a line about the run: on standard output with the tree
// (wrapped to the terminal), on standard error with --json, whose standard
// output holds events only.
func (r *run) say(format string, args ...any) {
	if r.json {
		fmt.Fprintf(r.env.Err(), "offshoot run: "+format+"\n", args...)
		return
	}
	fmt.Fprintln(r.env.Out(), columns.Fill(fmt.Sprintf("offshoot run: "+format, args...), r.env.TerminalWidth()))
}

// who names the main agent.
func (r *run) who() string {
	if r.flags.Agent != "" {
		return "the " + cli.Printable(r.flags.Agent) + " agent"
	}
	return "the main agent"
}

// dir is the directory copied in, as a person reads it.
func (r *run) dir() string {
	if r.flags.Dir == "" {
		return r.env.ProjectDir
	}
	return r.flags.Dir
}

func filesOf(client *offshoot.Client) string {
	if n := vfs.Files(client.Session()).Len(); n != 1 {
		return fmt.Sprintf("%d files", n)
	}
	return "1 file"
}

func tasks(n int) string {
	if n == 1 {
		return "1 task"
	}
	return fmt.Sprintf("%d tasks", n)
}
