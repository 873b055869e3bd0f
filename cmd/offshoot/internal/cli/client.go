package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/offshoot-dev/offshoot"
	"github.com/offshoot-dev/offshoot/agents"
	"github.com/offshoot-dev/offshoot/internal/modelconfig"
	"github.com/offshoot-dev/offshoot/internal/openerr"
	"github.com/offshoot-dev/offshoot/model"
	projectfiles "github.com/offshoot-dev/offshoot/project"
	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/tools/vfs"
)

// maxTurns bounds --max-turns, as the Task tool bounds max_turns.
const maxTurns = 10000

// dirMaxBytes caps the text files copied from --dir (the mount's
// MaxBytes): the default cap of a vfs.Mount, set here so that the messages
// about a directory too large name the cap in force.
const dirMaxBytes = 4 << 20

// AgentFlags are the flags of the commands that run a main agent (run and
// chat): which agent it plays, on which model, over which directory, and
// where its session is saved.
type AgentFlags struct {
	// Agent is the agent the main agent plays (--agent); empty for
	// offshoot's own main agent.
	Agent string
	// Model names the main agent's model (--model): main, light or a
	// configured name; empty for main, or the played agent's model.
	Model string
	// Dir is the directory copied into the agents' files (--dir); empty
	// for the project directory.
	Dir string
	// Save is the file the session's snapshot is written to (--save).
	Save string
	// MaxTurns bounds the main agent's model calls for each task or
	// message (--max-turns); 0 for the runner's default.
	MaxTurns int
	// Models are the model settings given on the command line (--timeout,
	// --stall-timeout, --no-stream), which win over the configuration.
	Models ModelFlags
	// ApproveMCP approves the project's MCP servers (--approve-mcp), and
	// records the approval (see Env.Servers).
	ApproveMCP bool
	// ApproveHooks approves the project's hooks (--approve-hooks), and
	// records the approval (see Env.Hooks).
	ApproveHooks bool
	// ApproveSettings approves the project's settings files
	// (--approve-settings), and records the approval (see
	// Env.settingsApproved).
	ApproveSettings bool
	// PermissionMode is --permission-mode: default, acceptEdits, plan,
	// bypassPermissions or dontAsk; empty for the settings' mode.
	PermissionMode string
	// Allow are the tools --allow gives the agents: bash, or
	// bash=unconfined (see bashTool); webfetch (see webFetchTool).
	Allow []string
	// Store is where the session is kept (--store, --no-store).
	Store StoreFlags
	// Resume, with ResumeLast, carries a stored session on: the one of
	// that id, or the one updated last when Resume is empty (chat
	// --resume).
	Resume     string
	ResumeLast bool
	// Kind ("run" or "chat") and Task (run's) tag a new session for
	// sessions list (see Summary); the command sets them, not a flag.
	Kind, Task string
	// Remote sends the agents' subagents to workers (--nats, --pool).
	Remote RemoteFlags
}

// Add registers the flags on cmd.
func (f *AgentFlags) Add(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.Agent, "agent", "", "run this agent as the main agent: its prompt, tools and model (see 'offshoot agents list')")
	fl.StringVar(&f.Model, "model", "", "the main agent's model: main, light or a configured name (default: main, or the agent's model)")
	fl.StringVar(&f.Dir, "dir", "", "the directory the agents work on, copied in; their changes reach it only when written back (default: the project directory)")
	fl.StringVar(&f.Save, "save", "", "write the session's snapshot to this file at the end (read it with 'offshoot snapshot show')")
	fl.IntVar(&f.MaxTurns, "max-turns", 0, fmt.Sprintf("the most model calls the main agent makes for one task or message (default %d)", runner.DefaultMaxTurns))
	fl.BoolVar(&f.ApproveMCP, "approve-mcp", false, "start the MCP servers this project configures (.mcp.json), and remember that you approved them for this project until they change")
	fl.BoolVar(&f.ApproveHooks, "approve-hooks", false, "run the hooks this project's settings configure (.claude/settings.json), and remember that you approved them for this project until they change")
	fl.BoolVar(&f.ApproveSettings, "approve-settings", false, "apply the allow rules, mode and hooks of this project's settings (.claude/settings.json), and remember that you approved them for this project until they change")
	fl.StringVar(&f.PermissionMode, "permission-mode", "", permissionModeUsage)
	fl.StringSliceVar(&f.Allow, "allow", nil, allowUsage)
	f.Store.Add(cmd, "keep the session in")
	f.Models.Add(cmd)
	f.Remote.add(cmd)
}

// NewClient returns the client of a command that runs a main agent, as
// flags say: on the configured models (or the scripted model of
// ScriptEnv); with the directory copied in; with the Task,
// TaskOutput and TaskStop tools over the project's, the user's and the
// built-in agents; with dispatch_subagent over offshoot's worker prompt;
// with the tools of the configured MCP servers; keeping the agents'
// transcripts in TranscriptsDir; warnings to standard error. A flag or a
// configuration that is wrong is a usage error that says what to do; so is
// no model configured. Agent definitions that did not load are counted on
// standard error. adjust, when not nil, changes the options before the
// client is made: a command sets its own (OnTaskNotification), tests
// their models. The session is kept in the store flags.Store picks (see
// OpenStore), set in e.Stored, and opened from it with Resume or
// ResumeLast. Close the client, then the store (CloseStore), when done.
// Cancelling ctx (the first Ctrl-C) stops the copy of the directory at
// once: nothing is started, and the error says so.
func (e *Env) NewClient(ctx context.Context, f AgentFlags, adjust func(*offshoot.Options)) (*offshoot.Client, error) {
	dir := f.Dir
	if dir == "" {
		dir = e.ProjectDir
	}
	if err := isDir(dir); err != nil {
		return nil, Usagef("--dir %s: %v; give the directory the agents should read", dir, err)
	}
	if f.MaxTurns < 0 || f.MaxTurns > maxTurns {
		return nil, Usagef("--max-turns %d: give a number from 1 to %d, or leave it out for %d", f.MaxTurns, maxTurns, runner.DefaultMaxTurns)
	}
	if f.Save != "" {
		if info, err := os.Stat(f.Save); err == nil && info.IsDir() {
			return nil, Usagef("--save %s is a directory; give a file to write the snapshot to", f.Save)
		}
		if err := isDir(filepath.Dir(f.Save)); err != nil {
			return nil, Usagef("--save %s: its directory: %v; give a file in an existing directory", f.Save, err)
		}
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, Usagef("--dir %s: %v", f.Dir, err)
	}
	router, err := e.Models(f.Models)
	if err != nil {
		return nil, err
	}
	servers, agentServers, err := e.Servers(f.ApproveMCP)
	if err != nil {
		return nil, err
	}
	if err := e.openSessionStore(f); err != nil {
		return nil, err
	}
	e.Copied = vfs.MountReport{}
	e.Memory = projectfiles.LoadMemory(projectfiles.Options{Dir: dir, HomeDir: e.HomeDir})
	e.Skills = projectfiles.LoadSkills(projectfiles.Options{Dir: dir, HomeDir: e.HomeDir})
	e.Commands = projectfiles.LoadCommands(projectfiles.Options{Dir: dir, HomeDir: e.HomeDir})
	mount := offshoot.DirectoryMount(dir, "")
	mount.Report, mount.MaxBytes, mount.Context = &e.Copied, dirMaxBytes, ctx
	prompts, err := workerPrompts()
	if err != nil {
		e.CloseStore()
		return nil, Failf("offshoot's worker prompt: %v; this is a bug, please report it", err)
	}
	answer := answerOnTerminal(e.Stdin, e.Stdout) // asks about tool calls; nil off a terminal
	bash, err := e.bashTool(f.Allow, answer != nil)
	if err != nil {
		e.CloseStore()
		return nil, err
	}
	fetch, err := webFetchTool(f.Allow, router)
	if err != nil {
		e.CloseStore()
		if bash != nil {
			_ = bash.Close()
		}
		return nil, err
	}
	e.bash = bash
	policy, err := e.policy(f, answer, func(tool string) bool {
		switch tool {
		case "bash":
			return bash != nil
		case "web_fetch":
			return fetch != nil
		}
		// The agents have the tools of MCP servers the user configured or
		// approved, and of their agent files' own servers (a project's
		// only once approved).
		return strings.HasPrefix(tool, "mcp__")
	})
	if err != nil {
		e.CloseStore()
		return nil, err
	}
	opts := offshoot.Options{
		Router:              router,
		ModelName:           f.Model,
		AgentOptions:        agents.Options{ProjectDir: e.ProjectDir, HomeDir: e.HomeDir},
		Memory:              e.Memory,
		Skills:              e.Skills,
		MainAgent:           f.Agent,
		Mounts:              []vfs.Mount{mount},
		MCPServers:          servers,
		ProjectAgentServers: agentServers,
		Transcripts:         e.TranscriptsDir(),
		DispatchSubagent:    prompts,
		Logger:              e.Logger(),
		MaxTurns:            f.MaxTurns,
		Hooks:               e.Hooks(e.Settings, f.ApproveHooks || f.ApproveSettings), // approving the settings approves their hooks too
		Permissions:         policy,
		AskUser:             e.askUser(),
	}
	if e.Stored != nil {
		opts.Store, opts.SessionID = e.Stored.Store, e.ResumedID
		opts.SessionTags = e.sessionTags(f.Kind, f.Task)
	}
	if bash != nil {
		opts.Tools = append(opts.Tools, bash)
	}
	if fetch != nil {
		opts.Tools = append(opts.Tools, fetch)
	}
	var fwd *forward
	if f.Remote.NATS != "" {
		fwd = &forward{}
		opts.Subagents.Executor = fwd
	}
	if adjust != nil {
		adjust(&opts)
	}
	c, err := offshoot.NewClient(opts)
	if err != nil && ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		e.CloseStore()
		return nil, Failf("interrupted while copying %s in: nothing was started; run the command again to start over", dir)
	}
	if err != nil {
		err = e.clientError(f, dir, router, err) // while the store is open: it names it
		e.CloseStore()
		return nil, err
	}
	if fwd != nil {
		if err := e.startRemote(ctx, f.Remote, c, router, fwd); err != nil {
			_ = c.Close()
			e.CloseStore()
			return nil, err
		}
	}
	for _, w := range e.Copied.Warnings {
		e.Warn("%s", Printable(w))
	}
	e.countAgentProblems(c.Agents())
	return c, nil
}

// openSessionStore opens the store of f into e.Stored, and finds the
// session to resume into e.ResumedID.
func (e *Env) openSessionStore(f AgentFlags) error {
	e.Stored, e.ResumedID = nil, ""
	resume := f.ResumeLast || f.Resume != ""
	if resume && f.Store.Off {
		return Usagef("--resume reads a stored session, and --no-store keeps none; give one or the other")
	}
	ctx := context.Background()
	st, err := e.OpenStore(ctx, f.Store, resume)
	if err != nil || st == nil {
		if err == nil && resume {
			where, _ := e.storeWhere(f.Store)
			return Usagef("--resume: no session is stored in %s yet; start one with 'offshoot chat'", where)
		}
		return err
	}
	owner, err := e.Owner()
	if err != nil {
		e.Warn("your sessions are not tagged as yours: %v", err)
	}
	if resume {
		h, err := FindSession(ctx, st, f.Resume, owner, "--resume")
		if err != nil {
			st.Close()
			return err
		}
		e.ResumedID = h.ID
	}
	e.owner = owner
	e.Stored = st
	return nil
}

// CloseStore closes the store NewClient opened, if any, and removes the
// bash tool's scratch directories; call it after the client's Close.
func (e *Env) CloseStore() {
	if e.remote != nil {
		e.remote()
		e.remote = nil
	}
	if e.bash != nil {
		if err := e.bash.Close(); err != nil {
			e.Warn("removing the bash tool's scratch directories: %v", err)
		}
		e.bash = nil
	}
	if e.Stored != nil {
		if err := e.Stored.Close(); err != nil {
			e.Warn("closing the session store %s: %v", e.Stored.Where, err)
		}
		e.Stored = nil
	}
}

// clientError says what to change when NewClient failed.
func (e *Env) clientError(f AgentFlags, dir string, router *model.Router, err error) error {
	var nf *agents.NotFoundError
	var diag *agents.Diagnostic
	var open *openerr.Error
	var journal *session.JournalError
	switch {
	case errors.As(err, &open):
		where := "the store"
		if e.Stored != nil {
			where = e.Stored.Where
		}
		return Failf("--resume: cannot carry on session %s from %s: %v; start a new session, or carry on another (see 'offshoot sessions list')",
			Printable(open.ID), where, open.Err)
	case errors.As(err, &journal):
		return e.storeFailed(journal.Err)
	case errors.As(err, &nf):
		return Usagef("--agent %s: no agent is called so (the agents are %s); see them with 'offshoot agents list'", f.Agent, strings.Join(nf.Available, ", "))
	case errors.Is(err, agents.ErrNoAgents):
		return Usagef("--agent %s: there are no agents; create one with 'offshoot agents new %s'", f.Agent, f.Agent)
	case errors.As(err, &diag):
		return Usagef("--agent %s did not load: %s; fix it and check with 'offshoot agents validate'", f.Agent, Printable(diag.Error()))
	case errors.Is(err, model.ErrUnknownModel):
		return Usagef("--model %s: no model is called so here; use one of %s (configure more in %s)", f.Model, strings.Join(router.Names(), ", "), modelconfig.Path)
	case errors.Is(err, vfs.ErrMountTooLarge):
		return Usagef("--dir %s: its text files come to more than %d MiB, the most the agents' files take; point --dir at a smaller directory, such as the part of the project the task is about",
			dir, dirMaxBytes>>20)
	default:
		return Usagef("cannot set up the main agent with the files of %s: %v; give a smaller directory with --dir (at most %d MiB of text files are copied), or check --agent and the configuration",
			dir, err, dirMaxBytes>>20)
	}
}

// countAgentProblems tells, on standard error, how many agent definitions
// were left out because of errors, and how to see why.
func (e *Env) countAgentProblems(reg *agents.Registry) {
	switch n := len(reg.Errors()); n {
	case 0:
	case 1:
		e.Warn("1 agent definition has an error and is left out; see it with 'offshoot agents validate'")
	default:
		e.Warn("%d agent definitions have errors and are left out; see them with 'offshoot agents validate'", n)
	}
}

// The worker is the prompt dispatch_subagent runs for offshoot's main
// agent.
const (
	workerNS  = "offshoot"
	workerKey = "worker"
)

// workerPrompts returns a registry holding the worker prompt.
func workerPrompts() (*prompt.Registry, error) {
	worker, err := prompt.New(workerNS, workerKey, prompt.Markdown[prompt.NoParams]("Worker", `
		You carry out one block of work handed to you by the agent that planned it: a step
		of its plan, or a self-contained task. You start from a copy of its files and its
		plan, with the tools it has. Do the work, write the files you are asked to deliver,
		and end with a short, self-contained report of what you found or did: the agent
		that handed you the work reads only that report and the files you wrote.`))
	if err != nil {
		return nil, err
	}
	reg := prompt.NewRegistry()
	if err := reg.Register(worker); err != nil {
		return nil, err
	}
	return reg, nil
}
