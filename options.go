package offshoot

import (
	"context"
	"log/slog"
	"maps"

	"github.com/offshoot-dev/offshoot/agents"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/subagent"
	"github.com/offshoot-dev/offshoot/tools"
	"github.com/offshoot-dev/offshoot/tools/mcp"
	"github.com/offshoot-dev/offshoot/tools/vfs"
)

// Option configures a Client (NewClient).
type Option func(*config)

// config is what the options say.
type config struct {
	model        model.Model
	router       *model.Router
	modelName    string
	agentOpts    agents.Options
	agentDefs    map[string]agents.Definition
	tools        []tools.Tool
	systemPrompt string
	mounts       []vfs.Mount
	files        map[string]string
	mcpServers   map[string]mcp.ServerConfig
	transcripts  string
	notify       func(context.Context, TaskNotificationMessage)
	approve      func(context.Context, *tools.Invocation, model.ToolCall) error
	logger       *slog.Logger
	dispatch     *prompt.Registry
	session      *session.Session
	maxTurns     int
	maxDepth     int
	engine       []subagent.Option
	mainAgent    string
}

// DefaultSystemPrompt is the main agent's role unless WithSystemPrompt
// gives another.
const DefaultSystemPrompt = `You are a capable assistant. Work in the files you have, keep a plan for
work of several steps, and hand self-contained tasks to the agents listed below when one fits.
Answer with what you found or did, briefly.`

// WithModel sets the model the main agent and its agents run on: main and
// light are both m (use WithRouter for two models).
func WithModel(m model.Model) Option { return func(c *config) { c.model = m } }

// WithRouter sets the models by name: main for the main agent, light and
// any other name or alias the agents ask for (model.NewRouter reads them
// from the environment and .offshoot/config.json; model.NewStaticRouter
// takes models that exist). It wins over WithModel.
func WithRouter(r *model.Router) Option { return func(c *config) { c.router = r } }

// WithModelName sets the name of the router's model the main agent runs
// on: main by default, light, or any name the router knows.
func WithModelName(name string) Option { return func(c *config) { c.modelName = name } }

// WithAgents adds the program's own agent definitions, by name (a
// Definition's Name may be left empty), at the program's level: a
// project's files override them; they override the user's files and the
// built-ins, and the definitions of the same names in WithAgentOptions.
func WithAgents(defs map[string]agents.Definition) Option {
	return func(c *config) {
		if c.agentDefs == nil {
			c.agentDefs = map[string]agents.Definition{}
		}
		maps.Copy(c.agentDefs, defs)
	}
}

// WithAgentOptions says where the agents come from besides WithAgents: a
// project's directories (ProjectDir: .offshoot/agents,
// .offshoot/config.json, .claude/agents), a user's (HomeDir), a --agents
// flag's JSON (AgentsJSON); and how (NoBuiltins, MatchDescriptions). The
// tools, MCP servers and models the definitions are checked against are
// the client's, whatever opts says.
func WithAgentOptions(opts agents.Options) Option { return func(c *config) { c.agentOpts = opts } }

// WithTools gives the main agent more tools of the program's own; agents
// whose definitions list no tools inherit them too.
func WithTools(ts ...tools.Tool) Option { return func(c *config) { c.tools = append(c.tools, ts...) } }

// WithSystemPrompt sets the main agent's role, the first section of its
// system prompt (DefaultSystemPrompt by default). It is text, never read
// as a template.
func WithSystemPrompt(text string) Option { return func(c *config) { c.systemPrompt = text } }

// WithDirectory copies the host directory dir, read-only, into the main
// agent's virtual filesystem under mountPath ("" for its root): changes
// the agents make stay in the session, and nothing outside dir is read.
// Left out, at any depth, is what is no file of the project's or may hold
// a secret: .git directories, offshoot's own .offshoot folders (whose
// config.json may hold an API key), what the directory's .gitignore
// ignores, and the files vfs.DefaultSecrets names (.env files, SSH and TLS
// keys, .npmrc, .netrc, .aws, .docker, credentials, …); so is the
// directory of WithTranscripts when it lies inside dir. See vfs.Mount for
// the limits, and DirectoryMount to learn what was left out.
func WithDirectory(dir, mountPath string) Option {
	return WithMount(DirectoryMount(dir, mountPath))
}

// DirectoryMount returns the mount WithDirectory copies dir with, for a
// program that changes it before giving it to WithMount: to set its
// Report, to learn what was copied and what was left out, say.
func DirectoryMount(dir, mountPath string) vfs.Mount {
	return vfs.Mount{HostPath: dir, MountPath: mountPath, Exclude: directoryExcludes(), GitIgnore: true}
}

// WithMount copies host files into the main agent's virtual filesystem,
// read-only, as m says (see vfs.Mount); WithDirectory is the usual one.
func WithMount(m vfs.Mount) Option {
	return func(c *config) { c.mounts = append(c.mounts, m) }
}

// directoryExcludes returns the globs (vfs.Mount.Exclude) of what
// WithDirectory leaves out of a directory it copies in besides secrets.
func directoryExcludes() []string {
	return []string{
		".git", "**/.git",
		".offshoot", "**/.offshoot",
	}
}

// WithFiles writes files, by path, into the main agent's virtual
// filesystem before its first query (after any WithDirectory).
func WithFiles(files map[string]string) Option {
	return func(c *config) {
		if c.files == nil {
			c.files = map[string]string{}
		}
		maps.Copy(c.files, files)
	}
}

// WithMCPServers gives the main agent, and the agents that inherit its
// tools, the tools of MCP servers (mcp.LoadProject reads a project's), as
// mcp__SERVER__TOOL; agent definitions may name them in mcpServers. The
// servers start at the first query and stop at Close. A server that
// cannot be started, or stops, is a warning on the logger (WithLogger),
// and the agents go on without it.
func WithMCPServers(servers map[string]mcp.ServerConfig) Option {
	return func(c *config) {
		if c.mcpServers == nil {
			c.mcpServers = map[string]mcp.ServerConfig{}
		}
		maps.Copy(c.mcpServers, servers)
	}
}

// WithTranscripts keeps every agent's conversation on disk under dir (see
// subagent.WithTranscripts): what resuming an agent needs, and what a
// background task's output file is.
func WithTranscripts(dir string) Option { return func(c *config) { c.transcripts = dir } }

// WithTaskNotificationHandler sets a function told when a background task
// of the client's agents ends — during a query or between queries. It runs
// on the task's goroutine: return soon, and do not Close the client from
// it (Close waits for the tasks, this one included).
func WithTaskNotificationHandler(h func(ctx context.Context, n TaskNotificationMessage)) Option {
	return func(c *config) { c.notify = h }
}

// WithApprover has approve asked before every tool call, the main agent's
// and its agents' alike (runner.Request.Approve, subagent.WithApprover): a
// nil error lets the call run; an error denies it, and the model reads
// the denial as the call's failed result.
func WithApprover(approve func(ctx context.Context, inv *tools.Invocation, call model.ToolCall) error) Option {
	return func(c *config) { c.approve = approve }
}

// WithLogger sets the logger the tools and the subagent engine report to
// (slog.Default() when unset).
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.logger = l } }

// WithDispatchSubagent gives the main agent the dispatch_subagent tool
// over the prompts of reg (see package promptsubagent). Its prompt lists
// the prompts enabled in reg when its conversation starts (the first
// query), by namespace and key, so that the model knows what it can
// dispatch.
func WithDispatchSubagent(reg *prompt.Registry) Option { return func(c *config) { c.dispatch = reg } }

// WithSession has the client keep its conversation in s — a session
// restored from a snapshot, say, to carry on a saved chat — instead of a
// new one. The client does not close it.
func WithSession(s *session.Session) Option { return func(c *config) { c.session = s } }

// WithMaxTurns bounds the main agent's model calls per query
// (runner.DefaultMaxTurns by default).
func WithMaxTurns(n int) Option { return func(c *config) { c.maxTurns = n } }

// WithMaxDepth sets how deep Task delegation nests (task.WithMaxDepth): 1
// by default, so the agents the main agent starts have no Task; with 2
// they may start agents of their own, which may not. It wins over a limit
// given to the engine with WithSubagentOptions(subagent.WithMaxDepth(n)),
// which Task follows otherwise, and which also bounds dispatch_subagent.
func WithMaxDepth(n int) Option { return func(c *config) { c.maxDepth = n } }

// WithSubagentOptions passes options to the subagent engine the agents run
// on: hooks (subagent.WithStartHook, WithStopHook), limits
// (WithMaxConcurrent, WithTimeout, WithMaxDepth: see the client's own
// WithMaxDepth), ids and clock for tests.
func WithSubagentOptions(opts ...subagent.Option) Option {
	return func(c *config) { c.engine = append(c.engine, opts...) }
}
