package offshoot

import (
	"context"
	"log/slog"

	"github.com/offshoot-dev/offshoot/agents"
	"github.com/offshoot-dev/offshoot/hooks"
	"github.com/offshoot-dev/offshoot/model"
	"github.com/offshoot-dev/offshoot/permission"
	"github.com/offshoot-dev/offshoot/project"
	"github.com/offshoot-dev/offshoot/prompt"
	"github.com/offshoot-dev/offshoot/runner"
	"github.com/offshoot-dev/offshoot/session"
	"github.com/offshoot-dev/offshoot/store"
	"github.com/offshoot-dev/offshoot/subagent"
	"github.com/offshoot-dev/offshoot/tools"
	"github.com/offshoot-dev/offshoot/tools/mcp"
	"github.com/offshoot-dev/offshoot/tools/vfs"
)

// Options configure a Client (NewClient). Only a model is required: Model
// or Router. Every other field may be left zero, and says what its zero
// value means.
type Options struct {
	// Model is the model the main agent and its agents run on: main and
	// light are both Model (use Router for two models).
	Model model.Model
	// Router gives the models by name: main for the main agent, light
	// and any other name or alias the agents ask for (model.NewRouter
	// reads them from the environment and .offshoot/config.json;
	// model.NewStaticRouter takes models that exist). It wins over Model.
	Router *model.Router
	// ModelName names the router's model the main agent runs on: main
	// when empty, light, or any name the router knows.
	ModelName string

	// Agents are the program's own agent definitions, by name (a
	// Definition's Name may be left empty), at the program's level: a
	// project's files override them; they override the user's files and
	// the built-ins, and the definitions of the same names in
	// AgentOptions.Agents.
	Agents map[string]agents.Definition
	// AgentOptions say where the agents come from besides Agents: a
	// project's directories (ProjectDir: .offshoot/agents,
	// .offshoot/config.json, .claude/agents), a user's (HomeDir), a
	// --agents flag's JSON (AgentsJSON); and how (NoBuiltins,
	// MatchDescriptions). The tools, MCP servers and models the
	// definitions are checked against are the client's, whatever
	// AgentOptions says. The zero value loads the built-ins only.
	AgentOptions agents.Options
	// MainAgent has the main agent play the agent of that name, one of
	// the client's agents (found as Task finds them): its prompt is the
	// main agent's role (instead of SystemPrompt), its tools list and
	// disallowedTools narrow the main agent's tools, and its model is the
	// main agent's unless ModelName says another. It may still delegate
	// to the other agents when its tools allow Task. An agent that does
	// not exist, or did not load, is NewClient's error. Empty: the main
	// agent is offshoot's own.
	MainAgent string
	// SystemPrompt is the main agent's role, the first section of its
	// system prompt. It is text, never read as a template. Empty, the
	// role is offshoot's own: "You are a capable assistant. Work in the
	// files you have, keep a plan for work of several steps, and hand
	// self-contained tasks to the agents listed below when one fits.
	// Answer with what you found or did, briefly."
	SystemPrompt string
	// Memory is the project's memory (project.LoadMemory reads it:
	// CLAUDE.md, .claude/CLAUDE.md, CLAUDE.local.md, AGENTS.md and the
	// user's ~/.claude/CLAUDE.md, with their imports). Its Text is the
	// "Project Instructions" section of the main agent's system prompt,
	// after its role, and of every agent's it delegates to, as Claude Code
	// gives them to its subagents. Nil: no such section.
	Memory *project.Memory
	// Skills are the skills the main agent may load (project.LoadSkills
	// reads a project's and its user's, in the Agent Skills format): the
	// Skill tool lists them, returns a skill's instructions when called,
	// and each skill's folder is copied, read-only, under
	// .offshoot/skills/NAME of the agents' files, for the usual tools to
	// read. While a skill with allowed-tools is active (until the next
	// query), a call of any other tool is denied. Agents whose definitions
	// list skills (the main agent's too, with MainAgent) get those skills'
	// instructions in their system prompt.
	// Nil: no skills.
	Skills *project.Skills

	// Tools are more tools of the program's own for the main agent;
	// agents whose definitions list no tools inherit them too. Nil
	// entries are skipped.
	Tools []tools.Tool
	// MCPServers give the main agent, and the agents that inherit its
	// tools, the tools of MCP servers (mcp.LoadProject reads a
	// project's), as mcp__SERVER__TOOL; agent definitions may name them
	// in mcpServers. The servers start at the first query and stop at
	// Close. A server that cannot be started, or stops, is a warning on
	// Logger, and the agents go on without it.
	MCPServers map[string]mcp.ServerConfig
	// ProjectAgentServers lets the agents of the project (AgentOptions'
	// ProjectDir) start the MCP servers their files configure inline: a
	// command run on this machine, written by whoever wrote the project.
	// Off by default; set it once the user approved them. Without it the
	// agent runs without those servers' tools.
	ProjectAgentServers bool
	// DispatchSubagent, when set, gives the main agent the
	// dispatch_subagent tool over its prompts (see package
	// promptsubagent). Its prompt lists the prompts enabled in the
	// registry when its conversation starts (the first query), by
	// namespace and key, so that the model knows what it can dispatch.
	DispatchSubagent *prompt.Registry

	// Mounts copy host files into the main agent's virtual filesystem,
	// read-only, each as its vfs.Mount says. DirectoryMount(dir,
	// mountPath) is the usual one: it copies the host directory dir
	// under mountPath ("" for the root), and leaves out, at any depth and
	// whatever the case, what is no file of the project's or may hold a
	// secret: .git directories, the agents' configuration (.claude and
	// offshoot's own .offshoot folders: agent definitions, settings with
	// hooks, a config.json that may hold an API key), what the
	// directory's .gitignore ignores, and the files vfs.DefaultSecrets()
	// names (.env files, SSH and TLS keys, .npmrc, .netrc, .aws, .docker,
	// credentials, shell histories, …). The Transcripts
	// directory is left out of any mount it lies inside. The changes the
	// agents make stay in the session, and nothing outside the mounts is
	// read. See vfs.Mount for the limits.
	Mounts []vfs.Mount
	// Files are written, by path, into the main agent's virtual
	// filesystem before its first query (after the Mounts).
	Files map[string]string

	// Transcripts, when set, is the directory every agent's conversation
	// is kept in on disk (see subagent.Options.Transcripts): what resuming an
	// agent needs, and what a background task's output file is. Empty:
	// no transcripts.
	Transcripts string
	// Session, when set, is the session the client keeps its
	// conversation in — a session restored from a snapshot, say, to carry
	// on a saved chat — instead of a new one. The client does not close
	// it.
	Session *session.Session
	// Store, when set, keeps the client's session durably (package store:
	// store/sqlite, store/postgres, store.NewMemory): every batch the
	// session — and every subagent's, stored under it — commits is
	// appended before its dispatch returns. With SessionID naming a stored
	// session, the client opens it and carries the conversation on with
	// its files, plan and records, in this process or another; with a new
	// id, or none, it starts one (its id is Session().ID()). Files are
	// written into a new session only. Store and Session do not go
	// together.
	Store store.Store
	// SessionID is the id of the client's session: a stored one to open
	// (with Store), or the id a new one gets (generated when empty).
	SessionID string
	// SessionTags are a new session's tags (session.WithTags): stored in
	// its header, for finding it again (store.Query.Tags). A session
	// opened from the store keeps the tags it was stored with.
	SessionTags map[string]string

	// OnTaskNotification, when set, is told when a background task of the
	// client's agents ends — during a query or between queries. It runs on
	// the task's goroutine: return soon, and do not Close the client from
	// it (Close waits for the tasks, this one included).
	OnTaskNotification func(ctx context.Context, n TaskNotificationMessage)
	// Hooks run at the points of the agents' life Claude Code names
	// (package hooks: Go functions, or commands from a settings file read
	// by hooks.ParseSettings): UserPromptSubmit before a query's prompt is
	// sent (a block fails the query, nothing sent; context is added to the
	// message); Stop when the main agent would finish a query (a block
	// keeps it working, the reason its next message, 8 times in a row at
	// most); SubagentStart and SubagentStop around each agent it starts
	// (as Subagents' StartHooks and StopHooks); PreCompact before a
	// compaction (a block refuses an automatic one); SessionStart when
	// NewClient starts or resumes a conversation (its context goes with
	// the first query); SessionEnd at Close; PreToolUse and PostToolUse
	// around every tool call of every agent, in the permission path
	// (Permissions; when Permissions is nil, or its Hooks are, these
	// hooks are its hooks). Their Logger is the client's unless they name
	// one. A project's command hooks run what
	// the project's authors wrote: give them only once the user approved
	// them. Nil: no hooks.
	Hooks *hooks.Hooks
	// Permissions, when set, decide every tool call of the main agent
	// and of every agent it starts (Task, dispatch_subagent), each call
	// named by its agent: PreToolUse hooks, deny and ask rules, the
	// permission mode, allow rules, and the CanUseTool callback, in the
	// Claude Agent SDK's order (see permission.Policy; project.LoadSettings
	// reads a project's settings files for its Settings). A denied call
	// does not run: the model reads "Permission to use the tool 'NAME'
	// was denied: REASON" as its result, and the call's ToolInvoked
	// record is marked Denied. Its PostToolUse hooks run after each call
	// that ran, their words added to the result. Nil: every call runs.
	Permissions *permission.Policy
	// Approver, when set, is asked before every tool call of every agent
	// that the permission path (Permissions, a skill's allowed-tools)
	// lets run: a nil error lets the call run; an error denies it, and the
	// model reads the denial as the call's failed result;
	// runner.Wait(question) parks the main agent's call until
	// Client.Answer, when it is asked again with the answer
	// (runner.AnswerOf). It is the program's last word, kept for programs
	// that approve calls in code; Permissions.CanUseTool is the place for
	// a person's answer. Nil: the permission path decides alone.
	Approver func(ctx context.Context, inv *tools.Invocation, call model.ToolCall) error
	// AskUser, when set, offers the main agent Claude Code's
	// AskUserQuestion tool (agents that inherit its tools get it too) and
	// answers it: it gets the model's questions worded for a person, each
	// with its numbered options, and returns the answer, which the model
	// reads as the call's result word for word. When no one can answer
	// now — a service, a pipe — return runner.Wait(question): the main
	// agent's query then ends waiting (its ResultMessage.Err holds the
	// *runner.Waiting; Client.Waiting says it), the process may exit, and
	// Client.Answer continues the run exactly there, from the stored
	// session. An agent's wait is not parked: its model reads that no one
	// can answer now. Nil: no AskUserQuestion tool.
	AskUser func(ctx context.Context, question string) (string, error)
	// Logger is the logger the tools and the subagent engine report to;
	// slog.Default() when nil.
	Logger *slog.Logger

	// Context says how the main agent keeps its conversation within its
	// model's context window (see runner.ContextOptions): compacted
	// automatically by default, the summaries written by the router's
	// light model unless Context.SummaryModel gives another. Set
	// Context.ClearToolResults to clear old tool results first (the
	// offshoot chat command clears those older than 5 turns). Compact
	// compacts on demand.
	Context runner.ContextOptions

	// MaxTurns bounds the main agent's model calls per query;
	// runner.DefaultMaxTurns when 0.
	MaxTurns int
	// MaxDepth is how deep Task delegation nests (task.Options.MaxDepth).
	// With 0 it is the limit given to the engine among Subagents
	// (subagent.Options.MaxDepth), else 1: the agents the main agent starts
	// have no Task. With 2 they may start agents of their own, which may
	// not. MaxDepth wins over the engine's limit, which also bounds
	// dispatch_subagent.
	MaxDepth int
	// Subagents configure the subagent engine the agents run on: hooks
	// (StartHooks, StopHooks), limits (MaxConcurrent, Timeout, MaxDepth:
	// see MaxDepth), ids and clock for tests. Its Transcripts, Approve and
	// Logger default to the client's; its OnTaskNotification run after
	// the client's own handling.
	Subagents subagent.Options
}

// defaultSystemPrompt is the main agent's role unless Options.SystemPrompt
// gives another.
const defaultSystemPrompt = `You are a capable assistant. Work in the files you have, keep a plan for
work of several steps, and hand self-contained tasks to the agents listed below when one fits.
Answer with what you found or did, briefly.`

// DirectoryMount returns the mount (for Options.Mounts) that copies the
// host directory dir, read-only, under mountPath ("" for the root),
// leaving out what Options.Mounts says. A program may change it before
// giving it: to set its Report, to learn what was copied and what was
// left out, say.
func DirectoryMount(dir, mountPath string) vfs.Mount {
	return vfs.Mount{HostPath: dir, MountPath: mountPath, GitIgnore: true}
}
