package offshoot

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/offshoot-dev/offshoot/agents"
	"github.com/offshoot-dev/offshoot/hooks"
	"github.com/offshoot-dev/offshoot/internal/openerr"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/project"
	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/serde"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/store"
	"github.com/offshoot-dev/offshoot/store/journal"
	"github.com/offshoot-dev/offshoot/subagent"
	"github.com/offshoot-dev/offshoot/subagent/transcript"
	"github.com/offshoot-dev/offshoot/tools"
	"github.com/offshoot-dev/offshoot/tools/mcp"
	"github.com/offshoot-dev/offshoot/tools/planning"
	"github.com/offshoot-dev/offshoot/tools/promptsubagent"
	"github.com/offshoot-dev/offshoot/tools/task"
	"github.com/offshoot-dev/offshoot/tools/vfs"
)

// The errors of a client. Match them with errors.Is.
var (
	// ErrNoModel: NewClient was given no model.
	ErrNoModel = errors.New("offshoot: no model configured: set Options.Model (any model.Model) or Options.Router (main and light, from model.NewRouter)")
	// ErrClosed: the client was closed.
	ErrClosed = errors.New("offshoot: the client is closed; create a new one")
	// ErrBusy: a query is running; queries of one client take turns.
	ErrBusy = errors.New("offshoot: a query of this client is running; finish it, or break out of its loop, before the next")
	// ErrNothingToContinue: an empty prompt, and nothing new for the main
	// agent to read.
	ErrNothingToContinue = errors.New("offshoot: nothing to continue: the prompt is empty and no task notification has arrived since the last query; give a prompt, or wait for a task (Client.Tasks)")
)

// The main agent's prompt is ns/key in the session's records.
const (
	promptNS  = "offshoot"
	promptKey = "main"
)

// Client is a main agent with its tools and agents, keeping its
// conversation in its session across queries: a chat is successive
// Query calls. Create one with NewClient and Close it when done. Its
// methods are safe for concurrent use; queries take turns.
type Client struct {
	session      *session.Session
	ownsSession  bool
	journal      *journal.Journal // with Options.Store
	engine       *subagent.Engine
	registry     *agents.Registry
	main         *prompt.Prompt
	params       []any
	instructions instructions // the project's, in params
	model        model.Model
	modelName    string
	router       *model.Router
	toolFilter   tools.Filter  // the main agent's tools, when it plays an agent
	tools        tools.Toolset // the main agent's own tools, toolFilter applied
	maxTurns     int
	context      runner.ContextOptions // the light model writes the summaries
	approve      func(context.Context, *tools.Invocation, model.ToolCall) error
	afterTool    func(context.Context, *tools.Invocation, model.ToolCall, string) string
	logger       *slog.Logger
	mcp          *mcp.Manager
	mcpNames     []string
	agentServers bool       // Options.ProjectAgentServers
	mcpMu        sync.Mutex // guards mcpTools and mcpReady: ServerTools may run beside a query
	mcpTools     tools.Toolset
	mcpReady     bool
	notifyClient func(context.Context, TaskNotificationMessage)
	dispatch     *prompt.Registry // the prompts of dispatch_subagent, nil without it
	hooks        *hooks.Hooks     // Options.Hooks, nil without any
	hookMode     string           // the permission mode the hooks are told
	startContext string           // the SessionStart hooks' context, for the first query

	turn   sync.Mutex // held by the running query
	closed atomic.Bool

	mu      sync.Mutex
	current *pipe              // the running query's, for task notifications
	stop    context.CancelFunc // stops the running query's evaluation
}

// role is the main agent's role: text, never a template.
type role struct{ Text string }

// instructions are the project's instructions (Options.Memory): text,
// never a template.
type instructions struct{ Text string }

// NewClient returns a client: a main agent on the model of opts.Model or
// opts.Router, with a virtual filesystem (Mounts, Files), a plan, the
// Task, TaskOutput and TaskStop tools over its agents (the built-ins and
// those of Agents and AgentOptions), the program's Tools and those of
// its MCPServers, and dispatch_subagent with DispatchSubagent. Without a
// model it returns ErrNoModel. Agent definitions that do not load are not
// an error here: Agents().Errors() lists them.
func NewClient(opts Options) (*Client, error) {
	router, err := routerOf(opts)
	if err != nil {
		return nil, err
	}
	c := &Client{
		maxTurns: opts.MaxTurns, context: opts.Context, logger: opts.Logger,
		notifyClient: opts.OnTaskNotification, agentServers: opts.ProjectAgentServers,
	}
	policy := withToolHooks(opts.Permissions, opts.Hooks)
	c.approve, c.afterTool = c.approval(opts.Skills, policy, opts.Approver), c.afterToolOf(policy)
	eo := opts.Subagents
	eo.OnTaskNotification = append([]func(context.Context, subagent.TaskNotification){c.notified}, eo.OnTaskNotification...)
	if eo.Transcripts == "" {
		eo.Transcripts = transcript.Dir(opts.Transcripts)
	}
	if eo.Approve == nil {
		eo.Approve = c.approve
	}
	if eo.AfterTool == nil {
		eo.AfterTool = c.afterTool
	}
	if eo.Logger == nil {
		eo.Logger = opts.Logger
	}
	if eo.Store == nil {
		eo.Store = opts.Store
	}
	c.setupHooks(opts, &eo)
	c.engine = subagent.New(eo)

	taskOpts := task.Options{MaxDepth: opts.MaxDepth, ProjectAgentServers: opts.ProjectAgentServers}
	if len(opts.MCPServers) > 0 {
		if c.mcp, err = mcp.NewManager(opts.MCPServers, mcp.WithWarnings(c.serverUnavailable)); err != nil {
			return nil, fmt.Errorf("offshoot: the MCP servers: %w", err)
		}
		c.mcpNames = slices.Sorted(maps.Keys(opts.MCPServers))
		taskOpts.MCP = c.mcp
	}
	c.router = router
	if err := c.build(opts, router, taskOpts); err != nil {
		c.closeMCP()
		return nil, err
	}
	if err := c.resolveModel(opts, router); err != nil {
		c.closeMCP()
		return nil, err
	}
	if err := c.start(opts); err != nil {
		c.closeMCP()
		return nil, err
	}
	c.sessionStart()
	return c, nil
}

// routerOf returns the router the options give.
func routerOf(opts Options) (*model.Router, error) {
	switch {
	case opts.Router != nil:
		return opts.Router, nil
	case opts.Model != nil:
		r, err := model.NewStaticRouter(map[string]model.Model{model.Main: opts.Model}, nil)
		if err != nil {
			return nil, fmt.Errorf("offshoot: %w", err)
		}
		return r, nil
	}
	return nil, ErrNoModel
}

// build loads the agents and builds the main agent's prompt.
func (c *Client) build(opts Options, router *model.Router, taskOpts task.Options) error {
	mounts := append(slices.Clone(opts.Mounts), opts.Skills.Mounts()...)
	vfsOpts := vfs.Options{Mounts: withoutTranscripts(mounts, opts.Transcripts)}
	for _, m := range mounts {
		vfsOpts.AllowedRoots = append(vfsOpts.AllowedRoots, m.HostPath)
	}
	own := slices.DeleteFunc(slices.Clone(opts.Tools), func(t tools.Tool) bool { return t == nil })
	skillTool, err := project.SkillTool(opts.Skills)
	if err != nil {
		return fmt.Errorf("offshoot: the skills: %w", err)
	}
	if skillTool != nil {
		own = append(own, skillTool)
	}
	if opts.AskUser != nil {
		ask, err := askUserTool(c, opts.AskUser)
		if err != nil {
			return fmt.Errorf("offshoot: the AskUserQuestion tool: %w", err)
		}
		own = append(own, ask)
	}
	taskOpts.Skills = preloads(opts.Skills)
	fileTools, err := vfs.Tools(vfsOpts)
	if err != nil {
		return fmt.Errorf("offshoot: the files: %w", err)
	}
	planTools, err := planning.Tools()
	if err != nil {
		return fmt.Errorf("offshoot: the plan: %w", err)
	}
	names := append(fileTools.Names(), planTools.Names()...)
	names = append(names, task.ToolName, task.OutputToolName, task.StopToolName)
	for _, t := range own {
		names = append(names, t.Spec().Name)
	}
	if opts.DispatchSubagent != nil {
		names = append(names, promptsubagent.ToolName)
	}

	ao := opts.AgentOptions
	ao.Agents = maps.Clone(ao.Agents)
	if len(opts.Agents) > 0 && ao.Agents == nil {
		ao.Agents = map[string]agents.Definition{}
	}
	maps.Copy(ao.Agents, opts.Agents)
	ao.ToolNames, ao.MCPServers, ao.Router = names, append(slices.Clone(ao.MCPServers), c.mcpNames...), router
	c.registry = agents.Load(ao)

	text := opts.SystemPrompt
	if text == "" {
		text = defaultSystemPrompt
	}
	c.instructions = instructions{Text: opts.Memory.Text()}
	taskOpts.Instructions = c.instructions.Text
	c.params = []any{role{Text: text}, c.instructions}
	sections := []prompt.Part{
		prompt.Markdown[role]("Role", "{{ .Text }}", prompt.WithTools(own...)),
		prompt.Markdown[instructions]("Project Instructions", "{{ .Text }}", prompt.WithEnabled(func(i instructions) bool { return i.Text != "" })),
		vfs.Section(vfsOpts),
		planning.Section(planning.Options{}),
		task.Section(c.registry, c.engine, router, taskOpts),
	}
	if opts.DispatchSubagent != nil {
		c.dispatch = opts.DispatchSubagent
		sections = append(sections, promptsubagent.Section(opts.DispatchSubagent, c.engine, promptsubagent.Options{}), dispatchSection)
	}
	if c.main, err = prompt.New(promptNS, promptKey, sections...); err != nil {
		return fmt.Errorf("offshoot: the main agent's prompt: %w", err)
	}
	return nil
}

// start sets up the session: its tools installed, the mounts copied in,
// the files written.
func (c *Client) start(opts Options) error {
	r, err := c.main.Render(c.params...)
	if err != nil {
		return fmt.Errorf("offshoot: the main agent's prompt: %w", err)
	}
	opened, err := c.open(opts, r.Tools)
	if err != nil {
		return err
	}
	fail := func(err error) error {
		if c.ownsSession {
			_ = c.session.Close()
		}
		if c.journal != nil {
			_ = c.journal.Close()
		}
		return err
	}
	if err := c.session.Install(context.Background(), append(r.Tools.Reducers(), runner.Reducers())...); err != nil {
		return fail(fmt.Errorf("offshoot: %w", err))
	}
	if c.tools, err = r.Tools.Filter(c.toolFilter); err != nil {
		return fail(fmt.Errorf("offshoot: the main agent's tools: %w", err))
	}
	if len(opts.Files) > 0 && !opened {
		events := make([]any, 0, len(opts.Files))
		for _, path := range slices.Sorted(maps.Keys(opts.Files)) {
			events = append(events, vfs.FileWritten{Path: path, Content: opts.Files[path]})
		}
		if err := c.session.Dispatch(context.Background(), events...); err != nil {
			return fail(fmt.Errorf("offshoot: the files: %w", err))
		}
	}
	return nil
}

// open sets the client's session: Options.Session, or one of its own —
// opened from Options.Store when it holds Options.SessionID (opened is
// then true), else new, journaled to the store when there is one.
func (c *Client) open(opts Options, ts tools.Toolset) (opened bool, err error) {
	if opts.Session != nil {
		if opts.Store != nil || opts.SessionID != "" {
			return false, errors.New("offshoot: Options.Session is a session of the program's; Store and SessionID make the client's own: give one or the other")
		}
		c.session = opts.Session
		return false, nil
	}
	var sopts []session.Option
	if opts.SessionID != "" {
		sopts = append(sopts, session.WithID(opts.SessionID))
	}
	if opts.SessionTags != nil {
		sopts = append(sopts, session.WithTags(opts.SessionTags))
	}
	if opts.Store != nil {
		ctx := context.Background()
		c.journal = journal.New(opts.Store, journal.Options{})
		reg := serde.NewRegistry()
		if opts.SessionID != "" {
			_, err := opts.Store.Header(ctx, opts.SessionID)
			switch {
			case err == nil:
				s, err := c.journal.Open(ctx, opts.SessionID, reg, append(ts.Reducers(), runner.Reducers()))
				if err != nil {
					_ = c.journal.Close()
					return false, fmt.Errorf("offshoot: %w", &openerr.Error{ID: opts.SessionID, Err: err})
				}
				c.session, c.ownsSession = s, true
				if err := c.interrupted(ctx, reg); err != nil {
					_ = s.Close()
					_ = c.journal.Close()
					return false, err
				}
				return true, nil
			case !errors.Is(err, store.ErrNotFound):
				_ = c.journal.Close()
				return false, fmt.Errorf("offshoot: the store: %w", err)
			}
		}
		sopts = append(sopts, session.WithRegistry(reg), session.WithJournal(c.journal))
	}
	s, err := session.New(sopts...)
	if err != nil {
		if c.journal != nil {
			_ = c.journal.Close()
		}
		return false, fmt.Errorf("offshoot: %w", err)
	}
	c.session, c.ownsSession = s, true
	return false, nil
}

// interrupted tells the opened session of the background tasks that were
// running when the process that ran them ended: each is reported failed,
// with the last text its stored session holds, in the notification its
// main agent reads at its next model call.
func (c *Client) interrupted(ctx context.Context, reg *serde.Registry) error {
	for _, t := range subagent.Interrupted(c.session.Snapshot()) {
		if err := subagent.Interrupt(ctx, c.session, t, c.lastText(ctx, reg, t.SessionID)); err != nil {
			return fmt.Errorf("offshoot: telling the session of task %s, which its process left running: %w", t.TaskID, err)
		}
	}
	return nil
}

// lastText returns the last text the stored session id's model wrote, ""
// when there is none or it cannot be read.
func (c *Client) lastText(ctx context.Context, reg *serde.Registry, id string) string {
	child, err := c.journal.Open(ctx, id, reg, nil)
	if err != nil {
		return ""
	}
	defer child.Close()
	snap := child.Snapshot()
	evals := runner.Evaluations(snap)
	for i := len(evals) - 1; i >= 0; i-- {
		msgs := runner.Conversation(snap, evals[i])
		for j := len(msgs) - 1; j >= 0; j-- {
			if msgs[j].Role == model.RoleAssistant && strings.TrimSpace(msgs[j].Content) != "" {
				return msgs[j].Content
			}
		}
	}
	return ""
}

// Session returns the session the client keeps its conversation and state
// in: for snapshots (Snapshot, session.MarshalSnapshot), its files
// (vfs.FS) and its records (runner.ToolInvoked, …). Write to it only
// between queries.
func (c *Client) Session() *session.Session { return c.session }

// Tools returns the main agent's own tools, in the order its model is
// offered them: the program's (Options.Tools), the file tools, the
// planning tools, Task, TaskOutput and TaskStop, and dispatch_subagent
// with Options.DispatchSubagent; only those its agent's definition allows
// when it plays one (Options.MainAgent). The tools of the MCP servers,
// which start at the first query, are not among them (see ServerTools).
func (c *Client) Tools() tools.Toolset { return c.tools }

// Tasks returns the background tasks of the client's agents: Get one by
// id, list the Running ones, Wait for all, StopAll.
func (c *Client) Tasks() *subagent.Manager { return c.engine.Tasks() }

// Agents returns the agents the main agent can delegate to, with the
// problems loading them met (Errors, Warnings).
func (c *Client) Agents() *agents.Registry { return c.registry }

// Close stops the running query, if any, and the background tasks still
// running, waiting for them; runs the SessionEnd hooks; stops the MCP
// servers; and closes the session unless Options.Session gave it. It may
// be called from a query's loop. It is idempotent.
func (c *Client) Close() error {
	if c.closed.Swap(true) {
		return nil
	}
	c.mu.Lock()
	if c.stop != nil {
		c.stop()
	}
	c.mu.Unlock()
	c.engine.Tasks().StopAll()
	c.sessionEnd()
	var errs []error
	if c.mcp != nil {
		errs = append(errs, c.mcp.Close())
	}
	if c.ownsSession {
		errs = append(errs, c.session.Close())
	}
	if c.journal != nil {
		errs = append(errs, c.journal.Close())
	}
	return errors.Join(errs...)
}

func (c *Client) closeMCP() {
	if c.mcp != nil {
		_ = c.mcp.Close()
	}
}

// notified hands a background task's notification to the program's
// handler and to the running query, if the task is the main agent's.
func (c *Client) notified(ctx context.Context, n subagent.TaskNotification) {
	msg := TaskNotificationMessage{n}
	if c.notifyClient != nil {
		c.notifyClient(ctx, msg)
	}
	if n.SessionID != c.session.ID() {
		return
	}
	c.mu.Lock()
	p := c.current
	c.mu.Unlock()
	if p != nil {
		p.put(msg, false)
	}
}

// serverUnavailable logs that an MCP server could not be started, or
// stopped: the run goes on without its tools.
func (c *Client) serverUnavailable(err *mcp.ServerError) {
	l := c.logger
	if l == nil {
		l = slog.Default()
	}
	l.Warn("offshoot: an MCP server is unavailable; the agents go on without its tools", "error", err)
}

// serverTools returns the MCP servers' tools, starting the servers at the
// first query or ServerTools.
func (c *Client) serverTools(ctx context.Context) (tools.Toolset, error) {
	c.mcpMu.Lock()
	defer c.mcpMu.Unlock()
	if c.mcp == nil || c.mcpReady {
		return c.mcpTools, nil
	}
	set, err := c.mcp.Tools(ctx, c.mcpNames...)
	if err != nil {
		return tools.Toolset{}, fmt.Errorf("offshoot: the MCP servers: %w", err)
	}
	c.mcpTools, c.mcpReady = set, true
	return set, nil
}
